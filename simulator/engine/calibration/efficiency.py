"""Efficiency constants: one set per (runtime family, device class), as issue 9 allows.

A runtime family is an inference or training stack whose kernels reach a characteristic
fraction of the datasheet figures: llama.cpp's CUDA/CPU backends, llama.cpp's Metal backend,
ik_llama.cpp, seed 001's Metal Marlin trellis kernels, KTransformers, torchtune. A device class
is where the work runs (`gpu`, `cpu`, `unified`). The shipped table
(`data/efficiency.json`) is written by `python -m simulator.engine.calibration.fit` from the
measurement corpus (docs/accuracy.md, "How predictions are made"); a key with no measurement
keeps the prior below and says so (`fitted_on` empty). The table also carries one global
model constant that is no runtime's efficiency: the routing pool fraction f of batched MoE
decode (decode.distinct_experts), fitted on the batched MoE decode rows (1.0, uniform routing,
where no table is loaded).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from simulator.engine.errors import EngineInputError
from simulator.engine.hardware import BF16_ACC32, FP8, FP16_ACC16, FP16_VECTOR
from simulator.engine.serve.hardware import CPU, DEVICE_CLASSES, GPU, UNIFIED, DeviceClass
from simulator.engine.version import ENGINE_PACKAGE

LLAMA_CPP = "llama.cpp"  # CUDA, Vulkan and CPU backends
LLAMA_CPP_METAL = "llama.cpp-metal"
IK_LLAMA_CPP = "ik_llama.cpp"
METAL_MARLIN = "metal-marlin"  # seed 001: fused trellis kernels on Apple GPUs
KTRANSFORMERS = "ktransformers"  # KTransformers / kt-kernel: experts computed on the CPU
TORCHTUNE = "torchtune"
# Runtimes the corpus names but has few or no rows of yet: each borrows the fitted constants
# of its parent family (PARENT_RUNTIME) until rows of its own pin them.
LLAMA_CPP_VULKAN = "llama.cpp-vulkan"
LLAMA_CPP_ROCM = "llama.cpp-rocm"  # HIP backend on AMD GPUs
LLAMA_CPP_SYCL = "llama.cpp-sycl"  # SYCL (oneAPI) backend on Intel GPUs, IPEX-LLM's builds too
MLX = "mlx"  # Apple's MLX / mlx-lm
VLLM = "vllm"
SGLANG = "sglang"
TENSORRT_LLM = "tensorrt-llm"  # NVIDIA TensorRT-LLM (trtllm-serve, trtllm-bench)
UNSLOTH = "unsloth"  # fused Triton kernels over PyTorch
MEGATRON = "megatron"  # Megatron-Core: Megatron-LM, Megatron-Bridge, NeMo, ms-swift's megatron
HF_TRANSFORMERS = "hf-transformers"  # transformers + PEFT / TRL, axolotl, LLaMA-Factory
INFERENCE_RUNTIMES = (LLAMA_CPP, LLAMA_CPP_METAL, IK_LLAMA_CPP, METAL_MARLIN, KTRANSFORMERS,
                      LLAMA_CPP_VULKAN, LLAMA_CPP_ROCM, LLAMA_CPP_SYCL, MLX, VLLM, SGLANG,
                      TENSORRT_LLM)  # fmt: skip
TRAINING_RUNTIMES = (TORCHTUNE, UNSLOTH, HF_TRANSFORMERS, MEGATRON)
RUNTIMES = (*INFERENCE_RUNTIMES, *TRAINING_RUNTIMES)
PARENT_RUNTIME = {
    LLAMA_CPP_VULKAN: LLAMA_CPP,
    LLAMA_CPP_ROCM: LLAMA_CPP,
    LLAMA_CPP_SYCL: LLAMA_CPP,
    IK_LLAMA_CPP: LLAMA_CPP,
    MLX: LLAMA_CPP_METAL,
    SGLANG: VLLM,
    TENSORRT_LLM: VLLM,
    VLLM: LLAMA_CPP,
    UNSLOTH: TORCHTUNE,
    HF_TRANSFORMERS: TORCHTUNE,
    MEGATRON: TORCHTUNE,
}
# Runtimes whose kernels on a unified-memory machine are their discrete-GPU kernels (CUDA on
# DGX Spark's GB10, ROCm/HIP and Vulkan on Strix Halo's Radeon 8060S): with no constants of
# their own there, they borrow their GPU class's bandwidth efficiency and per-layer cost
# (Efficiency.get); Metal and MLX have no discrete-GPU class.
GPU_KERNELS_ON_UNIFIED = frozenset(
    {LLAMA_CPP, IK_LLAMA_CPP, LLAMA_CPP_VULKAN, LLAMA_CPP_ROCM, VLLM, SGLANG, TENSORRT_LLM}
)
# The tensor kernel path each runtime's GPU GEMMs and attention run on (hardware.py): llama.cpp
# and its forks multiply in FP16 with FP16 accumulate (cuBLAS CUBLAS_COMPUTE_16F for F16 and
# dequantized weights, MMQ and FlashAttention tiles in half precision); PyTorch stacks (vLLM,
# SGLang, KTransformers' GPU side, every training stack) run BF16 with FP32 accumulate.
TENSOR_PATH = {
    LLAMA_CPP: FP16_ACC16,
    IK_LLAMA_CPP: FP16_ACC16,
    LLAMA_CPP_VULKAN: FP16_ACC16,
    # MMQ's integer dot products and FP16 on the vector units: on RDNA 4 the corpus's ROCm
    # builds read at the vector figure, where Vulkan's coopmat shaders read at the WMMA one
    # (docs/accuracy.md, "What moved in engine 1.27.0").
    LLAMA_CPP_ROCM: FP16_VECTOR,
    LLAMA_CPP_SYCL: FP16_ACC16,  # GGML_SYCL_F16: FP16 oneDNN/oneMKL GEMMs
}


# Runtimes whose FP8 checkpoints run FP8 GEMMs on FP8 tensor cores (vLLM's and SGLang's
# cutlass/DeepGEMM W8A8 kernels, activations quantized per token) where the GPU has them.
FP8_GEMM_RUNTIMES = frozenset({VLLM, SGLANG, TENSORRT_LLM})


def tensor_path(runtime: str | None, weights: str = "") -> str:
    """The kernel path of `runtime`'s GEMMs for weights stored as `weights` (a format name)."""
    runtime = runtime or LLAMA_CPP
    if weights.upper().startswith("FP8") and runtime in FP8_GEMM_RUNTIMES:
        return FP8
    return TENSOR_PATH.get(runtime, BF16_ACC32)


# Runtimes whose constants do not describe a maker's GPUs, with what the corpus shows: the
# Vulkan constants are fitted on Radeon cards, and the Arc Pro B70's Vulkan (Mesa) runs of
# kyuz0/intel-b70-ai-toolboxes read 1.6-4x slower than they predict, where SYCL on the same
# card and build fits (docs/model.md, "Runtime families without rows of their own").
UNDESCRIBED_MAKERS = {LLAMA_CPP_VULKAN: frozenset({"Intel"})}


def runtime_describes(runtime: str, maker: str) -> bool:
    """Whether `runtime`'s constants describe GPUs of `maker`."""
    return maker not in UNDESCRIBED_MAKERS.get(runtime, frozenset())


# The runtime a prediction assumes when the request names none: what people run on each
# kind of machine (rankings use these).
DEFAULT_RUNTIME = {GPU: LLAMA_CPP, CPU: LLAMA_CPP, UNIFIED: LLAMA_CPP_METAL}
# Runtimes whose layer split pipelines a prompt's micro-batches over the GPUs (llama.cpp and
# its forks since ggml-org/llama.cpp PR #6017; serve/prefill.layer_split_pipeline_factor).
PIPELINING_RUNTIMES = frozenset({LLAMA_CPP, IK_LLAMA_CPP, LLAMA_CPP_VULKAN, LLAMA_CPP_ROCM})
# Runtimes whose GPU backends launch a routed-expert layer's routing as separate kernels
# (softmax or sigmoid, top-k, the weights' gather and normalisation, then the experts' outputs
# weighted and added): llama.cpp's Metal, Vulkan and SYCL backends and MLX. llama.cpp's CUDA
# backend (HIP's too: ggml-hip builds the ggml-cuda sources) fuses "softmax->top-k->get_rows"
# into one kernel (ggml/src/ggml-cuda/topk-moe.cu), ik_llama.cpp is that backend's fork, and
# vLLM, SGLang and TensorRT-LLM run fused MoE kernels under CUDA graphs: their routed-expert
# layers cost a dense layer's (docs/model.md, "A routed-expert layer's extra kernels").
RUNTIMES_WITH_UNFUSED_MOE_ROUTING = frozenset(
    {LLAMA_CPP_METAL, MLX, LLAMA_CPP_VULKAN, LLAMA_CPP_SYCL}
)
# Runtimes built with ggml's RPC backend, which splits the layers over machines on a network
# (ggml-org/llama.cpp tools/rpc): llama.cpp on every backend, and its fork ik_llama.cpp.
RPC_RUNTIMES = frozenset(
    {LLAMA_CPP, LLAMA_CPP_METAL, IK_LLAMA_CPP, LLAMA_CPP_VULKAN, LLAMA_CPP_ROCM, LLAMA_CPP_SYCL}
)
# Runtimes whose attention kernels read only the tokens a DeepSeek sparse-attention indexer
# picks (DeepSeek-V3.2, GLM-5): vLLM, SGLang and TensorRT-LLM run FlashMLA's sparse kernels.
# llama.cpp computes the indexer's choice as a mask over a dense attention (ggml-org/llama.cpp
# PR #23346, "implemented sparse attention by masking KQ mask elements"; ik_llama.cpp keeps
# the dense graph unless --dsa is given, PR #2045), so its attention reads every cached token.
SPARSE_ATTENTION_RUNTIMES = frozenset({VLLM, SGLANG, TENSORRT_LLM})
# Runtimes whose sliding-window layers cache, and attend over, the whole context: ik_llama.cpp
# allocates "full-context KV" for a model's SWA layers and has no window-sized cache for them
# (ikawrakow/ik_llama.cpp issue #1607, "SWA KV cache compression for Gemma 4 (and other SWA
# models)", 2026-04-09, open when read 2026-12-07), its attention running over every cached
# position under the window's mask (serve/workload.model_as_run).
RUNTIMES_WITHOUT_WINDOWED_CACHE = frozenset({IK_LLAMA_CPP})
# Hybrid runtimes that compute the CPU-resident experts' prefill on the CPU (KTransformers'
# CPU MoE kernels) rather than copying them to the GPU per micro-batch as llama.cpp does.
RUNTIMES_COMPUTING_EXPERTS_ON_CPU = frozenset({KTRANSFORMERS})
# Metal Marlin's per-layer cost, derived from seed 001's own kernel table (shared/seeds/001,
# "Fused GEMM Kernel Performance": GLM-4.7-Flash expert shape 2048×1536, 3 bpw, M4 Max) and not
# fitted on its decode figure: 2.8 ms at batch 1 and 4.2 ms at batch 32, 32× the rows for 1.5×
# the time, so a fused trellis dispatch is latency-bound. The line through the two points
# meets batch 0 at 2.755 ms: the fixed cost of one dispatch. Decode runs one fused MoE dispatch
# (moe_trellis_swiglu) per layer. Its reads and arithmetic take the Apple GPU class's
# constants, i.e. llama.cpp-metal's, fitted on corpus rows H021–H031 (docs/model.md).
METAL_MARLIN_BATCH_1_S, METAL_MARLIN_BATCH_32_S = 2.8e-3, 4.2e-3
METAL_MARLIN_DISPATCH_S = round(
    METAL_MARLIN_BATCH_1_S - (METAL_MARLIN_BATCH_32_S - METAL_MARLIN_BATCH_1_S) / (32 - 1), 7
)
TRAIN = "train"  # the device class of training constants (flops_efficiency = utilization)
DEVICE_CLASS_NAMES = (GPU, CPU, UNIFIED, TRAIN)
_DATA = "data/efficiency.json"
UNIFORM_ROUTING = 1.0  # routing pool fraction before any fit: every expert equally likely
NO_EXPERT_GEMM_UNDERFILL = 0.0  # m½ before any fit: expert GEMMs at the dense efficiency
MAX_EXPERT_GEMM_HALF_ROWS = 1024.0  # rows; a bound on what a file may claim
NO_MOE_LAYER_EXTRA = 0.0  # before any fit: a routed-expert layer costs a dense layer's
MAX_MOE_LAYER_EXTRA = 16.0  # per-layer costs; a bound on what a file may claim
NO_NETWORK_HOP_S = 0.0  # before any fit: a machine boundary costs its bytes alone
MAX_NETWORK_HOP_S = 1.0  # seconds; a bound on what a file may claim
MAX_UNIT_STREAM_GBPS = 1000.0  # GB/s per SM; a bound on what a file may claim


@dataclass(frozen=True, slots=True, kw_only=True)
class RuntimeConstants:
    """What one runtime reaches on one device class: fraction of peak memory bandwidth in
    weight/KV reads, fraction of peak FLOPS in GEMMs and attention, fixed seconds per layer
    per token (or per micro-batch in prefill). `fitted_on` lists the measurement ids the fit
    used; empty means the prior was kept."""

    runtime: str
    device_class: str
    bandwidth_efficiency: float
    flops_efficiency: float
    layer_overhead_s: float
    fitted_on: tuple[str, ...] = ()
    note: str = ""
    # Fraction of peak FLOPS in attention kernels; None until rows at depth pin it, and then
    # the GEMMs' flops_efficiency stands in (the documented prior).
    attention_efficiency: float | None = None
    # GB/s one GPU SM (compute unit) streams in this runtime's weight reads (serve/hardware.py,
    # streamed_bandwidth_efficiency); None: no cap, the prior.
    unit_stream_gbps: float | None = None
    # m½ of routed experts' prefill GEMMs in this runtime's kernels on this class (serve/
    # prefill.py, expert_gemm_underfill); None: the table's pooled value
    # (`Efficiency.expert_gemm_half_rows`), until MoE prompts of its own pin it.
    expert_gemm_half_rows: float | None = None

    def as_device_class(self, pooled_half_rows: float = NO_EXPERT_GEMM_UNDERFILL) -> DeviceClass:
        """These constants as the device class computes with them; `pooled_half_rows`: the
        table's m½ where the entry has none of its own."""
        own = self.expert_gemm_half_rows
        return DeviceClass(
            name=self.device_class,
            bandwidth_efficiency=self.bandwidth_efficiency,
            flops_efficiency=self.flops_efficiency,
            layer_overhead_s=self.layer_overhead_s,
            attention_efficiency=self.attention_efficiency,
            unit_stream_gbps=self.unit_stream_gbps,
            expert_gemm_half_rows=pooled_half_rows if own is None else own,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Efficiency:
    """The per-(runtime, device class) constants, and the routing pool fraction f of batched
    MoE decode (one global value; `routing_pool_fitted_on` lists the rows it was fitted on)."""

    entries: tuple[RuntimeConstants, ...]
    corpus_assembled: str = ""
    routing_pool_fraction: float = UNIFORM_ROUTING
    routing_pool_fitted_on: tuple[str, ...] = ()
    # m½ of routed experts' prefill GEMMs (serve/prefill.py, expert_gemm_underfill), pooled:
    # fitted on every MoE prefill row on GPUs and unified memory, it stands for the runtimes
    # and classes without an m½ of their own (`RuntimeConstants.expert_gemm_half_rows`); 0,
    # the prior, is no underfill.
    expert_gemm_half_rows: float = NO_EXPERT_GEMM_UNDERFILL
    expert_gemm_fitted_on: tuple[str, ...] = ()
    # The fixed cost of each machine boundary a token crosses over llama.cpp's RPC backend
    # (serve/network.py): one global value fitted on rows of several machines; 0, the prior,
    # is the hidden state's bytes alone.
    network_hop_s: float = NO_NETWORK_HOP_S
    network_hop_fitted_on: tuple[str, ...] = ()
    # What a routed-expert layer costs beyond a dense one, in the runtime's per-layer costs,
    # on the runtimes that launch MoE routing unfused (RUNTIMES_WITH_UNFUSED_MOE_ROUTING): one
    # global value fitted on their decodes of dense and MoE models; 0, the prior, is a dense
    # layer's cost.
    moe_layer_extra: float = NO_MOE_LAYER_EXTRA
    moe_layer_extra_fitted_on: tuple[str, ...] = ()

    def get(self, runtime: str, device_class: str) -> RuntimeConstants:
        """The constants of `runtime` on `device_class`; with no entry, its parent family's
        (PARENT_RUNTIME), then, on unified memory, its own GPU class's
        (GPU_KERNELS_ON_UNIFIED), each said in the note; else the prior."""
        for entry in self.entries:
            if entry.runtime == runtime and entry.device_class == device_class:
                return entry
        parent = PARENT_RUNTIME.get(runtime)
        if parent is not None:
            borrowed = self.get(parent, device_class)
            if borrowed.fitted_on or parent in PARENT_RUNTIME:
                return dataclasses.replace(
                    borrowed,
                    runtime=runtime,
                    fitted_on=(),
                    note=f"borrowed from {parent}: no row of {runtime} on {device_class} yet",
                )
        prior = prior_constants(runtime, device_class)
        if device_class == UNIFIED and runtime in GPU_KERNELS_ON_UNIFIED:
            gpu = self.get(runtime, GPU)
            if gpu.fitted_on or gpu.note.startswith("borrowed"):
                # The weight-streaming kernels are the GPU's: their share of what the memory
                # sustains in a streaming benchmark (the system's own, measured on its LPDDR5X:
                # sustained.py) and their per-layer cost carry over. A unified system's FLOPS
                # figure has another basis (GB10's is derived from a sparse FP4 figure), so
                # FLOPS keep the prior.
                return dataclasses.replace(
                    prior,
                    bandwidth_efficiency=gpu.bandwidth_efficiency,
                    layer_overhead_s=gpu.layer_overhead_s,
                    note=(
                        f"bandwidth and per-layer cost borrowed from {runtime} on {GPU}: no row "
                        f"of it on {UNIFIED} yet; FLOPS efficiency is the prior"
                    ),
                )
        return prior

    def borrows(self, runtime: str, device_class: str) -> bool:
        """Whether `runtime` has no fitted constants of its own on `device_class`."""
        return not self.get(runtime, device_class).fitted_on

    def device_class(self, runtime: str | None, location: str) -> DeviceClass:
        runtime = runtime or DEFAULT_RUNTIME[location]
        constants = self.get(runtime, location).as_device_class(self.expert_gemm_half_rows)
        if runtime in RUNTIMES_WITH_UNFUSED_MOE_ROUTING:
            return dataclasses.replace(constants, moe_layer_extra=self.moe_layer_extra)
        return constants

    def replace(self, entry: RuntimeConstants) -> Efficiency:
        """A copy with `entry` in place of the one with the same key (or added)."""
        key = (entry.runtime, entry.device_class)
        kept = tuple(e for e in self.entries if (e.runtime, e.device_class) != key)
        return dataclasses.replace(self, entries=(*kept, entry))


# Training prior: seed 000's utilization (workload.DEFAULT_UTILIZATION).
TRAIN_PRIOR_UTILIZATION = 0.70


def prior_constants(runtime: str, device_class: str) -> RuntimeConstants:
    """The constants before any fit: the device-class defaults chosen on seeds 002–003
    (infer_hardware.DEVICE_CLASSES) and seed 000's 70 % training utilization."""
    if device_class == TRAIN:
        return RuntimeConstants(
            runtime=runtime,
            device_class=TRAIN,
            bandwidth_efficiency=1.0,
            flops_efficiency=TRAIN_PRIOR_UTILIZATION,
            layer_overhead_s=0.0,
            note="prior: seed 000's utilization",
        )
    base = DEVICE_CLASSES[device_class]
    return RuntimeConstants(
        runtime=runtime,
        device_class=device_class,
        bandwidth_efficiency=base.bandwidth_efficiency,
        flops_efficiency=base.flops_efficiency,
        layer_overhead_s=base.layer_overhead_s,
        note="prior: infer_hardware.DEVICE_CLASSES (seeds 002–003)",
    )


PRIOR_EFFICIENCY = Efficiency(entries=())


def efficiency_to_json(efficiency: Efficiency) -> dict[str, Any]:
    return {
        "corpus_assembled": efficiency.corpus_assembled,
        "routing_pool_fraction": efficiency.routing_pool_fraction,
        "routing_pool_fitted_on": list(efficiency.routing_pool_fitted_on),
        "expert_gemm_half_rows": efficiency.expert_gemm_half_rows,
        "expert_gemm_fitted_on": list(efficiency.expert_gemm_fitted_on),
        "network_hop_s": efficiency.network_hop_s,
        "network_hop_fitted_on": list(efficiency.network_hop_fitted_on),
        "moe_layer_extra": efficiency.moe_layer_extra,
        "moe_layer_extra_fitted_on": list(efficiency.moe_layer_extra_fitted_on),
        "entries": [
            {
                "runtime": e.runtime,
                "device_class": e.device_class,
                "bandwidth_efficiency": e.bandwidth_efficiency,
                "flops_efficiency": e.flops_efficiency,
                "layer_overhead_s": e.layer_overhead_s,
                "attention_efficiency": e.attention_efficiency,
                "unit_stream_gbps": e.unit_stream_gbps,
                "expert_gemm_half_rows": e.expert_gemm_half_rows,
                "fitted_on": list(e.fitted_on),
                "note": e.note,
            }
            for e in sorted(efficiency.entries, key=lambda e: (e.runtime, e.device_class))
        ],
    }


def _fraction(
    entry: Mapping[str, Any], key: str, path: str, *, upper: float, default: float | None = None
) -> float:
    value = entry.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= upper:
        raise EngineInputError(field=f"{path}.{key}", message=f"must be a number in [0, {upper}]")
    return float(value)


def _row_ids(value: object, field: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(i, str) for i in value):
        raise EngineInputError(field=field, message="must be a list of row ids")
    return tuple(value)


def _entry_from_json(entry: object, path: str) -> RuntimeConstants:
    if not isinstance(entry, Mapping):
        raise EngineInputError(field=path, message="must be an object")
    runtime, device_class = entry.get("runtime"), entry.get("device_class")
    if runtime not in RUNTIMES:
        raise EngineInputError(field=f"{path}.runtime", message=f"must be one of {RUNTIMES}")
    if device_class not in DEVICE_CLASS_NAMES:
        raise EngineInputError(
            field=f"{path}.device_class", message=f"must be one of {DEVICE_CLASS_NAMES}"
        )
    fitted_on = _row_ids(entry.get("fitted_on", []), f"{path}.fitted_on")
    return RuntimeConstants(
        runtime=str(runtime),
        device_class=str(device_class),
        bandwidth_efficiency=_fraction(entry, "bandwidth_efficiency", path, upper=1.0),
        flops_efficiency=_fraction(entry, "flops_efficiency", path, upper=1.0),
        layer_overhead_s=_fraction(entry, "layer_overhead_s", path, upper=1.0),
        attention_efficiency=(
            None
            if entry.get("attention_efficiency") is None
            else _fraction(entry, "attention_efficiency", path, upper=1.0)
        ),
        unit_stream_gbps=(
            None
            if entry.get("unit_stream_gbps") is None
            else _fraction(entry, "unit_stream_gbps", path, upper=MAX_UNIT_STREAM_GBPS)
        ),
        expert_gemm_half_rows=(
            None
            if entry.get("expert_gemm_half_rows") is None
            else _fraction(entry, "expert_gemm_half_rows", path, upper=MAX_EXPERT_GEMM_HALF_ROWS)
        ),
        fitted_on=fitted_on,
        note=str(entry.get("note", "")),
    )


def efficiency_from_json(data: Mapping[str, Any]) -> Efficiency:
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise EngineInputError(field="efficiency.entries", message="must be a list")
    return Efficiency(
        entries=tuple(
            _entry_from_json(e, f"efficiency.entries[{i}]") for i, e in enumerate(entries)
        ),
        corpus_assembled=str(data.get("corpus_assembled", "")),
        routing_pool_fraction=_routing_pool_fraction(data),
        routing_pool_fitted_on=_row_ids(
            data.get("routing_pool_fitted_on", []), "efficiency.routing_pool_fitted_on"
        ),
        expert_gemm_half_rows=_expert_gemm_half_rows(data),
        expert_gemm_fitted_on=_row_ids(
            data.get("expert_gemm_fitted_on", []), "efficiency.expert_gemm_fitted_on"
        ),
        **_bounded_globals(data),
    )


# Global constants read alike: (name, the name of the rows it was fitted on, upper bound, prior).
BOUNDED_GLOBALS: tuple[tuple[str, str, float, float], ...] = (
    ("network_hop_s", "network_hop_fitted_on", MAX_NETWORK_HOP_S, NO_NETWORK_HOP_S),
    ("moe_layer_extra", "moe_layer_extra_fitted_on", MAX_MOE_LAYER_EXTRA, NO_MOE_LAYER_EXTRA),
)


def _bounded_globals(data: Mapping[str, Any]) -> dict[str, Any]:
    """Each of BOUNDED_GLOBALS within its bounds (absent: its prior) and its rows."""
    read: dict[str, Any] = {}
    for name, fitted_on, upper, prior in BOUNDED_GLOBALS:
        read[name] = _fraction(data, name, "efficiency", upper=upper, default=prior)
        read[fitted_on] = _row_ids(data.get(fitted_on, []), f"efficiency.{fitted_on}")
    return read


def _expert_gemm_half_rows(data: Mapping[str, Any]) -> float:
    """A number of rows in [0, MAX_EXPERT_GEMM_HALF_ROWS]; absent → no underfill."""
    return _fraction(
        data,
        "expert_gemm_half_rows",
        "efficiency",
        upper=MAX_EXPERT_GEMM_HALF_ROWS,
        default=NO_EXPERT_GEMM_UNDERFILL,
    )


def _routing_pool_fraction(data: Mapping[str, Any]) -> float:
    """In (0, 1]; absent → uniform routing."""
    value = _fraction(
        data, "routing_pool_fraction", "efficiency", upper=1.0, default=UNIFORM_ROUTING
    )
    if value == 0:
        raise EngineInputError(
            field="efficiency.routing_pool_fraction", message="must be a number in (0, 1]"
        )
    return value


@cache
def load_efficiency() -> Efficiency:
    """The shipped fitted constants (`data/efficiency.json`); the priors if none is shipped."""
    path = resources.files(ENGINE_PACKAGE).joinpath(_DATA)
    if not path.is_file():
        return PRIOR_EFFICIENCY
    return efficiency_from_json(json.loads(path.read_text("utf-8")))

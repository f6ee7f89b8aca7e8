"""The hardware (hardware.py) as serving sees it: the places weights can live, how fast each
reads them and how much arithmetic each does; plus the one set of constants per device class.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from simulator.engine.costs import Cost
from simulator.engine.devices import APPLE
from simulator.engine.errors import EngineInputError
from simulator.engine.hardware import (
    BF16_ACC32,
    GPU_RESERVE_GIB,
    LLAMA_CPP,
    CpuSpec,
    Hardware,
    UnifiedSpec,
    default_pinned_gib,
)
from simulator.engine.units import GB, GIB, TERA

GPU, CPU, UNIFIED = "gpu", "cpu", "unified"
LOCATIONS = (GPU, CPU, UNIFIED)

# What each device class reaches of its datasheet figures in llama.cpp-style inference. One
# set per class, chosen once over all of seeds 002 and 003 (docs/model.md, "Inference"):
#  - bandwidth_efficiency: sustained fraction of peak memory bandwidth in weight/KV reads
#    (STREAM-like; GPUs reach 70–90 %, a 12-channel EPYC ~80 %);
#  - flops_efficiency: fraction of peak FLOPS a prefill GEMM or attention reaches;
#  - layer_overhead_s: fixed time per layer per token (GPU: ~30 kernel launches of ~4 µs;
#    CPU: one thread barrier per op, ~30 ops of ~3 µs).


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceClass:
    name: str
    bandwidth_efficiency: float
    flops_efficiency: float
    layer_overhead_s: float
    # Fraction of peak FLOPS the attention kernels reach (QKᵀ, score·V over the cache); None:
    # the GEMMs' flops_efficiency, the prior until measurements at depth pin it.
    attention_efficiency: float | None = None
    # Bytes/s one SM (compute unit) of a GPU keeps streaming from memory in the runtime's
    # weight-reading kernels, in GB/s: Little's law caps a GPU at units × this rate
    # (`streamed_bandwidth_efficiency`). None: no cap (the prior, and every non-GPU class).
    unit_stream_gbps: float | None = None
    # What a layer of routed experts costs beyond a dense layer, in this class's per-layer
    # costs (decode.py, "layer_overhead"): 0, the prior, counts it as a dense layer.
    moe_layer_extra: float = 0.0
    # m½ of routed experts' prefill GEMMs in this runtime's kernels on this class: the rows
    # per expert at which they reach half the dense GEMM efficiency (prefill.py,
    # "expert_gemm_underfill"); 0, the prior, is no underfill.
    expert_gemm_half_rows: float = 0.0

    def overhead_s(self, layer_visits: float, moe_layer_visits: float) -> float:
        """The fixed per-layer seconds of `layer_visits` layers, `moe_layer_visits` of them
        routed-expert layers."""
        return (layer_visits + moe_layer_visits * self.moe_layer_extra) * self.layer_overhead_s

    @property
    def attention_flops_efficiency(self) -> float:
        if self.attention_efficiency is None:
            return self.flops_efficiency
        return self.attention_efficiency


DEVICE_CLASSES: dict[str, DeviceClass] = {
    c.name: c
    for c in (
        DeviceClass(
            name=GPU, bandwidth_efficiency=0.70, flops_efficiency=0.25, layer_overhead_s=120e-6
        ),
        # 0.40 of the FP32 FMA peak, chosen on seeds 002–003, whose weights are all block-
        # quantized: against the int8 dot-product peak those weights now run at
        # (INT8_DOT_PER_FMA = 4 × FP32), the same throughput is 0.10.
        DeviceClass(
            name=CPU, bandwidth_efficiency=0.70, flops_efficiency=0.10, layer_overhead_s=100e-6
        ),
        DeviceClass(
            name=UNIFIED, bandwidth_efficiency=0.70, flops_efficiency=0.25, layer_overhead_s=120e-6
        ),
    )
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Device:
    """One place weights live: its class, read bandwidth (bytes/s), peak FLOPS and bytes.
    `constants`: the runtime's efficiencies on this class (efficiency.py); None → the
    class defaults."""

    location: str
    bandwidth_bps: float
    peak_flops: float
    capacity_bytes: float
    constants: DeviceClass | None = None
    # Attention's QKᵀ and score·V run on activations, never on the weights' integer path:
    # their peak where it differs from the weight GEMMs' (a CPU on int8 dot products).
    attention_peak_flops: float | None = None
    # A GPU's SMs / compute units (all the GPUs reading at once under tensor parallelism);
    # None: not known.
    compute_units: int | None = None
    # The share of `bandwidth_bps` the memory sustains in a streaming benchmark (sustained.py):
    # a GPU runtime's bandwidth efficiency is relative to it. 1 on a CPU, whose runtimes'
    # efficiency is fitted against the channels' peak.
    bandwidth_share: float = 1.0

    @property
    def device_class(self) -> DeviceClass:
        return self.constants or DEVICE_CLASSES[self.location]


# What Metal lets a Mac's GPU wire by default (MTLDevice.recommendedMaxWorkingSetSize, which
# llama.cpp and MLX take as the GPU's memory; `iogpu.wired_limit_mb` raises it), as llama.cpp's
# ggml_metal_device_init printed it on current macOS, (unified memory GiB, working set GiB),
# "MB" in the logs being MiB; read 2026-12-06:
# - 24: 17179.89 MB, an M4 Pro MacBook Pro "M4 24G", llama.cpp b9222 (find_string id
#   61067584628);
# - 32: 26800.60 MB, an M4 with `total="32.0 GiB"`, ollama 0.17.0, 2026-02-25 (id 2311416387);
# - 36: 30150.67 MB, a MacBook Pro M4 Max 36 GB, April 2026 (id 51838792522);
# - 64: 55662.79 MB, an M3 Max with 64 GB on macOS 26.4.1 (id 54207541393);
# - 128: "recommendedMaxWorkingSetSize: 107.52 GiB # stock", an M5 Max 128 GB on macOS 26.x
#   (github.com/antirez/ds4 pull 893, comment of 2026-08-29);
# - 512: 498216.21 MB, a Mac Studio M3 Ultra, llama.cpp build 6810 (id 40195527572): more than
#   any M3 Ultra but the 512 GB one holds.
# Between them the share of memory is interpolated, outside them the nearest one's share
# holds. Builds of 2023 printed 75 % on 64 and 96 GB and two thirds on 16 and 32 GB (an M1 Max
# 64 GB: 49152.00 MB, llama.cpp issue 1870; an M2 Max 96 GB: 73728,00, issue 3213): the older
# macOS default, lower than today's.
METAL_WORKING_SET_GIB: tuple[tuple[float, float], ...] = (
    (24.0, 17179.89 / 1024),
    (32.0, 26800.60 / 1024),
    (36.0, 30150.67 / 1024),
    (64.0, 55662.79 / 1024),
    (128.0, 107.52),
    (512.0, 498216.21 / 1024),
)


def metal_working_set_gib(mem_gib: float) -> float:
    """The GPU's default working set on a Mac of `mem_gib` unified memory
    (`METAL_WORKING_SET_GIB`, its share of memory interpolated between the measured sizes)."""
    sizes = [size for size, _ in METAL_WORKING_SET_GIB]
    shares = [held / size for size, held in METAL_WORKING_SET_GIB]
    return mem_gib * float(np.interp(mem_gib, sizes, shares))


def gpu_device(
    hardware: Hardware,
    constants: DeviceClass | None = None,
    path: str = BF16_ACC32,
    tensor_parallel: int = 1,
) -> Device:
    """Layer split: each token visits the GPUs one after another (those of every machine,
    network.py), so one GPU's bandwidth and FLOPS set the pace while their memory adds up.
    Tensor parallel over T of them: each holds 1/T of every layer and they read and compute it
    at once, T GPUs' bandwidth and FLOPS (the all-reduces between them are
    `tensor_parallel_allreduce_s`). `path`: the runtime's tensor kernel path, whose peak the
    FLOPS are."""
    gpu = hardware.require_gpu()
    if gpu.mem_gbps is None:
        raise EngineInputError(field="hardware.gpu.mem_gbps", message="is required")
    usable = (gpu.vram_gib - GPU_RESERVE_GIB[LLAMA_CPP]) * hardware.gpu_count * hardware.machines
    return Device(
        location=GPU,
        bandwidth_bps=gpu.mem_gbps * GB * tensor_parallel,
        peak_flops=gpu.tensor_tflops(path) * TERA * tensor_parallel,
        capacity_bytes=max(usable, 0.0) * GIB,
        constants=constants,
        compute_units=None if gpu.compute_units is None else gpu.compute_units * tensor_parallel,
        bandwidth_share=gpu.bandwidth_share(),
    )


# An int8 dot-product instruction multiplies 4 int8 pairs into each 32-bit lane (x86
# vpdpbusd, AVX-512 VNNI / AVX-VNNI; vpmaddubsw + vpmaddwd on AVX2; Arm sdot) where an FP32 FMA
# multiplies 1, at the same issue rate on the same vector units (Intel® 64 and IA-32
# Architectures Optimization Reference Manual, "Intel DL Boost"; Arm A-profile "SDOT"): CPU
# kernels of block-quantized weights (ggml's Q*/IQ* and MXFP4 vec_dot with 8-bit activations,
# llamafile's tinyBLAS) run at 4 × the FP32 FMA peak, counting a multiply-add as 2.
INT8_DOT_PER_FMA = 4.0


def integer_dot_weights(weights: str) -> bool:
    """Whether a CPU multiplies weights of type `weights` on the int8 dot-product path:
    ggml's block-quantized types (Q4_0, Q4_K, IQ4_XS, MXFP4, …), not F16/BF16/F32/FP8."""
    name = weights.upper()
    return name.startswith(("Q", "IQ")) or name == "MXFP4"


# A CPU's per-layer cost is its thread barriers': between every two ops of a graph each of
# llama.cpp's threads adds one to a shared counter (ggml-cpu.c `ggml_barrier`:
# `atomic_fetch_add_explicit(&tp->n_barrier, 1, memory_order_seq_cst)`, the last thread
# releasing the others; find_string id 520935958), so the increments queue on one cache line
# and a barrier lasts in proportion to the threads. llama.cpp runs one thread per physical
# core by default, and the corpus's rows with fewer threads than cores are not modeled: a
# CPU's `layer_overhead_s` is the cost at REFERENCE_THREADS threads, scaled by its cores.
REFERENCE_THREADS = 32


def threads_overhead(constants: DeviceClass, cores: int) -> DeviceClass:
    """`constants` with the per-layer cost of `cores` threads (`REFERENCE_THREADS`)."""
    scaled = constants.layer_overhead_s * cores / REFERENCE_THREADS
    return dataclasses.replace(constants, layer_overhead_s=scaled)


def cpu_device(
    cpu: CpuSpec, ram_gib: float, constants: DeviceClass | None = None, weights: str = ""
) -> Device:
    """The CPU at the FP32 FMA peak, or for block-quantized `weights` at the int8 dot-product
    peak (INT8_DOT_PER_FMA ×); attention stays at the FP32 peak. It holds what a process may
    keep in the host's RAM, the rest being the operating system's: the share seed 000's
    reference pins for its layers (`default_pinned_gib`: 26 of 32 GiB, 56 of 64, 120 of
    128, 8 GiB less otherwise). Weights beyond it would be paged in from storage (llama.cpp's
    mmap), which the engine does not model: such a placement is refused."""
    factor = INT8_DOT_PER_FMA if integer_dot_weights(weights) else 1.0
    if constants is not None:
        constants = threads_overhead(constants, cpu.cores)
    return Device(
        location=CPU,
        bandwidth_bps=cpu.mem_gbps * GB,
        peak_flops=cpu.peak_flops * factor,
        capacity_bytes=default_pinned_gib(ram_gib) * GIB,
        constants=constants,
        attention_peak_flops=cpu.peak_flops,
    )


def unified_gpu_gib(unified: UnifiedSpec) -> float:
    """What the GPU of a unified-memory system may hold: on a Mac, Metal's default working-set
    cap (`metal_working_set_gib`); on Linux systems (DGX Spark's GB10, Strix Halo with the GTT
    limit raised as its guides do) what the host's RAM leaves a process, the share a CPU
    placement holds (`default_pinned_gib`: 120 of 128 GiB). lhl/strix-halo-testing runs
    Qwen3-235B-A22B UD-Q3_K_XL, a 104.1 GB file (97 GiB), on a 128 GB Strix Halo's GPU,
    more than 75 % of its memory."""
    if unified.maker == APPLE:
        return metal_working_set_gib(unified.mem_gib)
    return default_pinned_gib(unified.mem_gib)


def unified_device(
    unified: UnifiedSpec, constants: DeviceClass | None = None, *, machines: int = 1
) -> Device:
    """`machines` identical systems splitting the layers (network.py): their memory adds up,
    a token visits them one after another at one system's pace."""
    return Device(
        location=UNIFIED,
        bandwidth_bps=unified.mem_gbps * GB,
        peak_flops=unified.tflops * TERA,
        capacity_bytes=unified_gpu_gib(unified) * GIB * machines,
        constants=constants,
        bandwidth_share=unified.bandwidth_share(),
    )


def fitted_bandwidth_efficiency(device: Device) -> float:
    """The runtime's fitted `bandwidth_efficiency` as a share of the peak: of what the memory
    sustains in a streaming benchmark (`bandwidth_share`), before any per-SM cap."""
    return device.device_class.bandwidth_efficiency * device.bandwidth_share


def streamed_bandwidth_efficiency(device: Device) -> float:
    """The share of peak memory bandwidth the runtime's weight and cache reads sustain: its
    fitted `bandwidth_efficiency` of what the memory sustains in a streaming benchmark
    (`bandwidth_share`: the ceiling of any kernel that only streams, docs/model.md,
    "Sustained memory bandwidth"), capped by Little's law. A kernel streams at most the bytes
    it keeps in flight over the memory latency; its blocks keep a bounded number of loads
    outstanding per SM (compute unit), so a GPU sustains at most units × s, s the runtime's
    fitted `unit_stream_gbps` (Little 1961; the GPU form, occupancy × bytes per load / latency,
    in Volkov, "Better performance at lower occupancy", GTC 2010). A GPU with much bandwidth
    per SM (HBM: an A100's 18.9 GB/s per SM, against an RTX 4090's 7.9) reaches less of its
    peak in the same kernels (docs/model.md, "Bandwidth per SM")."""
    cls = device.device_class
    efficiency = fitted_bandwidth_efficiency(device)
    if cls.unit_stream_gbps is None or device.compute_units is None:
        return efficiency
    cap = device.compute_units * cls.unit_stream_gbps * GB / device.bandwidth_bps
    return min(efficiency, cap)


def memory_and_compute_s(cost: Cost, device: Device) -> tuple[float, float]:
    """(seconds reading the cost's bytes, seconds computing its FLOPs) on `device` at its
    class's efficiencies (decode and prefill add or compare them, each as its docstring says)."""
    cls = device.device_class
    memory = cost.memory_bytes / (device.bandwidth_bps * streamed_bandwidth_efficiency(device))
    compute = (cost.flops + cost.underfill_flops * cls.expert_gemm_half_rows) / (
        device.peak_flops * cls.flops_efficiency
    )
    activations_peak = device.attention_peak_flops or device.peak_flops
    if cost.attention_flops:
        compute += cost.attention_flops / (activations_peak * cls.attention_flops_efficiency)
    if cost.cache_flops:
        compute += cost.cache_flops / (activations_peak * cls.flops_efficiency)
    return memory, compute


def link_seconds(link_bytes: float, link_gbps: float) -> float:
    """Seconds for `link_bytes` over the CPU–GPU link (none when nothing crosses it)."""
    return link_bytes / (link_gbps * GB) if link_bytes else 0.0


ALLREDUCES_PER_LAYER = 2  # Megatron-LM (Shoeybi et al. 2019 §3): after attention and after the MLP
ACTIVATION_BYTES_TP = 2  # BF16/FP16 hidden states


def tensor_parallel_allreduce_s(
    *, layers: int, hidden_size: int, tokens: int, tensor_parallel: int, link_gbps: float
) -> float:
    """Seconds of the all-reduces of `tokens` hidden states across T GPUs: two per layer; a
    ring all-reduce moves 2(T − 1)/T of the message through each GPU's link. Their fixed
    latency is part of the runtime's fitted per-layer overhead."""
    if tensor_parallel <= 1:
        return 0.0
    message = tokens * hidden_size * ACTIVATION_BYTES_TP
    per_gpu = 2 * (tensor_parallel - 1) / tensor_parallel * message
    return ALLREDUCES_PER_LAYER * layers * per_gpu / (link_gbps * GB)

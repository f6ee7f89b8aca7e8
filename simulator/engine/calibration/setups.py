"""From a corpus row to the engine request that predicts it, or the reason it cannot.

Each row is read by rules over what it states (hardware names, engine string, model name,
quantization, llama-bench test name); nothing here is per row except the reasons for rows the
engine cannot describe, keyed by what makes them unmodelable. Hardware figures come from
the device table (`devices.py`, datasheets cited there); model shapes from `data/models/`.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, replace

from simulator.engine.calibration.corpus import MeasurementRow
from simulator.engine.calibration.efficiency import (
    IK_LLAMA_CPP,
    KTRANSFORMERS,
    LLAMA_CPP,
    LLAMA_CPP_METAL,
    METAL_MARLIN,
    TORCHTUNE,
)
from simulator.engine.devices import Cpu, Device, Gpu, System, devices
from simulator.engine.formats.training import quant_format
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.hardware import CpuSpec, GpuSpec, Hardware, UnifiedSpec, gpu_spec
from simulator.engine.model.lora import LoraConfig
from simulator.engine.model.registry import load_model
from simulator.engine.serve.workload import DEFAULT_UBATCH, InferWorkload
from simulator.engine.train.memory import GIB
from simulator.engine.train.refined import resident_peak_gib
from simulator.engine.train.workload import MODE_REFINED, TrainWorkload
from simulator.engine.workload import InferenceRequest, SimulationRequest, TrainRequest

# llama-bench's tgN reports the mean over N generated tokens, so the mean context is N/2
# past the depth (as seed 002's rows are read, tests/simulator/engine/test_inference_seeds.py).
DEFAULT_DECODE_CONTEXT = 512  # decode rows that state no context: a short chat prompt
SPEED_UNIT = "tok/s"
# Model names as rows spell them → shipped model slug; the longest matching name wins.
MODEL_ALIASES: dict[str, str] = {
    "codellama-7b": "codellama-7b",
    "llama 7b": "llama-7b",
    "llama 2 70b": "llama-2-70b",
    "llama 3 8b": "llama-3.1-8b",  # Llama 3 and 3.1 8B share every shape (config.json)
    "llama 3.1 8b": "llama-3.1-8b",
    "llama 3 70b": "llama-3.1-70b",  # likewise for 70B
    "llama 3.1 70b": "llama-3.1-70b",
    "llama 3.1 405b": "llama-3.1-405b",
    "llama 3.2 3b": "llama-3.2-3b",
    "gpt-oss-20b": "gpt-oss-20b",
    "gpt-oss-120b": "gpt-oss-120b",
    "qwen3-coder-30b-a3b": "qwen3-coder-30b-a3b",
    "qwen2.5-coder-7b": "qwen2.5-coder-7b",
    "glm-4.7-flash": "glm-4.7-flash",
    "deepseek-v3": "deepseek-v3",
    "deepseek-v2-lite": "deepseek-v2-lite",
    "kimi-k2": "kimi-k2",
}
# Runtime families by a marker in the row's engine string; first match wins.
RUNTIME_MARKERS: tuple[tuple[str, str], ...] = (
    ("ik_llama.cpp", IK_LLAMA_CPP),
    ("metal marlin", METAL_MARLIN),
    ("ktransformers", KTRANSFORMERS),
    ("llama.cpp metal", LLAMA_CPP_METAL),
    ("torchtune", TORCHTUNE),
    ("llama.cpp", LLAMA_CPP),
)
# MoE GGUFs named after their expert type keep the other tensors at Q8_0 (ggml-org's gpt-oss
# GGUFs: MXFP4 experts, Q8_0 attention and embeddings).
EXPERT_ONLY_TYPES = ("MXFP4",)
# torchtune's recipes for the rows' models (recipes/configs/llama3_1/*): LoRA rank.
TORCHTUNE_LORA_RANK = {"LoRA": 8, "QLoRA": 16}


class NotModeled(Exception):  # noqa: N818 (a verdict, not an error)
    """The row cannot be predicted honestly; the message says why."""


@dataclass(frozen=True, slots=True, kw_only=True)
class InferSetup:
    request: InferenceRequest
    phase: str  # "prefill" or "decode"


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainSetup:
    request: TrainRequest
    runtime: str


Setup = InferSetup | TrainSetup


# Rows the engine cannot describe, by the feature that stops it (checked before any parsing).
def _unmodeled_reason(row: MeasurementRow) -> str | None:
    text = f"{row.engine} {json.dumps(dict(row.hardware))} {json.dumps(dict(row.workload))}"
    lowered = text.lower()
    rules: tuple[tuple[bool, str], ...] = (
        (
            row.unit != SPEED_UNIT,
            f"the engine predicts speeds; {row.metric!r} in {row.unit} is a capacity limit",
        ),
        (
            row.category == "inference_nvme_streaming",
            "experts streamed from an SSD through a RAM expert cache: the inference engine has "
            "no storage tier (its placements are GPU, CPU RAM and unified memory)",
        ),
        (
            "-nkvo" in lowered,
            "KV cache in host RAM with the weights on the GPU (-nkvo) is not an engine placement",
        ),
        (
            "vllm" in lowered,
            "tensor parallelism and continuous batching of mixed prefill and decode (vLLM) are "
            "not modeled (the engine splits layers and runs one batch), and this is the "
            "corpus's only vLLM row: a vllm constant fitted on it would pin it, not predict it",
        ),
        (
            "gpus" in row.hardware,
            "mixed GPU models in one machine: the engine's layer split assumes identical GPUs",
        ),
        (
            "kt-kernel" in lowered,
            "kt-kernel switches between CPU (AMX INT4) and layerwise GPU prefill at a token "
            "threshold the row does not state; AMX INT4 throughput has no datasheet figure",
        ),
        (
            "freetoken" in lowered,
            "GLM-5.3-Flash has no published config.json to take its shape from",
        ),
        (
            "qwen3.5" in row.model.lower(),
            "Qwen3.5-35B-A3B's hybrid linear-attention layers have no config.json shape the "
            "engine reads, and the row does not state the CPU",
        ),
        (
            row.category == "training_moe_offload",
            "LoRA training with routed experts computed on the CPU (KTransformers AMX) is not "
            "in the training engine, which keeps or streams whole layers on the GPU",
        ),
        (
            "not stated" in str(row.hardware.get("gpu", "")),
            "the row's GPU is not stated next to the figure",
        ),
        (
            "full finetune" in row.quant.lower(),
            "full fine-tuning (weight gradients and optimizer states of every weight, CPU "
            "offload) is not in the training engine, which trains LoRA adapters on a frozen base",
        ),
        (
            row.engine.lower().startswith("llama.cpp,") and "ktransformers" in row.source_url,
            "the comparison's llama.cpp run (Feb 2025) predates tensor overrides (-ot), and "
            "which layers it kept on the GPU is not stated",
        ),
    )
    return next((reason for applies, reason in rules if applies), None)


def _match(kind: type[Device], text: str) -> Device:
    """The device whose longest alias occurs in `text` (case-insensitive)."""
    best: tuple[int, Device] | None = None
    for device in devices(kind):
        for alias in device.aliases:
            if alias.lower() in text.lower() and (best is None or len(alias) > best[0]):
                best = (len(alias), device)
    if best is None:
        raise NotModeled(f"no datasheet entry in the device table for {text!r}")
    return best[1]


def model_slug(row: MeasurementRow) -> str:
    name = row.model.lower()
    hits = [alias for alias in MODEL_ALIASES if alias in name]
    if not hits:
        raise NotModeled(f"no shipped model config for {row.model!r}")
    return MODEL_ALIASES[max(hits, key=len)]


def runtime_of(row: MeasurementRow) -> str:
    engine = row.engine.lower()
    for marker, runtime in RUNTIME_MARKERS:
        if marker in engine:
            return runtime
    raise NotModeled(f"no efficiency constants for the runtime {row.engine!r}")


def _quant(row: MeasurementRow, moe: bool) -> object:
    name = row.quant.split()[0].strip()
    if moe and name.upper() in EXPERT_ONLY_TYPES:
        return {"default": "Q8_0", "experts": name}
    return name


def _int_after(pattern: str, text: str) -> int | None:
    found = re.search(pattern, text, flags=re.IGNORECASE)
    return int(found.group(1)) if found else None


def _phase_tokens(row: MeasurementRow) -> tuple[str, int]:
    """("prefill", prompt tokens) or ("decode", mean context) from the row's workload."""
    w = row.workload
    test = str(w.get("test", "")).lower()
    depth = int(w.get("context_depth", 0) or 0)
    if isinstance(w.get("context"), int):  # stated outright (seed rows)
        return "decode", int(w["context"])
    if (n := _int_after(r"^pp(\d+)", test)) is not None:
        return "prefill", n
    if (n := _int_after(r"^tg(\d+)", test)) is not None:
        return "decode", depth + n // 2
    phase = str(w.get("phase", ""))
    if phase == "prefill":
        tokens = w.get("prompt_tokens") or _int_after(r"(\d+)-token prompt", str(w.get("notes")))
        if not isinstance(tokens, int):
            raise NotModeled("prefill row without a prompt length")
        return "prefill", tokens
    if phase == "decode" and int(w.get("batch", 1) or 1) == 1:
        return "decode", depth + DEFAULT_DECODE_CONTEXT
    if phase.startswith("decode") and isinstance(w.get("batch"), int):  # batched decode
        prompt, gen = int(w.get("prompt_tokens", 0)), int(w.get("gen_tokens", 0))
        return "decode", prompt + gen // 2
    raise NotModeled(f"workload phase {phase!r} is not prefill or decode of one sequence")


def _gpus(row: MeasurementRow) -> tuple[GpuSpec, int]:
    """The row's GPU model from the device table, and how many."""
    device = _match(Gpu, str(row.hardware["gpu"]))
    return gpu_spec(device), int(row.hardware.get("gpu_count", 1) or 1)


def _cpu(row: MeasurementRow) -> tuple[CpuSpec, float]:
    """The CPU (both sockets when the row says 2 are used) and RAM in GiB."""
    device = _match(Cpu, str(row.hardware.get("cpu", "")))
    sockets = 2 if "2 sockets" in str(row.hardware.get("notes", "")) else 1
    ram_gib = float(_int_after(r"(\d+)\s*TB", str(row.hardware.get("ram", ""))) or 1) * 1024
    cpu = CpuSpec(
        name=f"{sockets}x {device.name}",
        cores=device.cores * sockets,
        mem_gbps=device.mem_gbps * sockets,
        flops_per_core_cycle=float(device.flops_per_core_cycle),
        ghz=float(device.all_core_ghz),
    )
    return cpu, ram_gib


def _unified(row: MeasurementRow) -> UnifiedSpec:
    text = str(row.hardware.get("soc") or row.hardware.get("system"))
    device = _match(System, text)
    mem_gb = _int_after(r"(\d+)\s*GB", text) or 128
    return UnifiedSpec(
        name=device.name,
        mem_gib=float(mem_gb),
        mem_gbps=float(device.mem_bandwidth_gbps),
        tflops=float(device.gpu_tflops),
    )


def infer_setup(row: MeasurementRow) -> InferSetup:
    runtime = runtime_of(row)
    model = load_model(model_slug(row))
    phase, tokens = _phase_tokens(row)
    batch = int(row.workload.get("batch", 1) or 1)
    if row.hardware.get("soc") or row.hardware.get("system"):
        hardware, placement = Hardware(unified=_unified(row), ram_gib=0.0), "unified"
    elif runtime == KTRANSFORMERS:
        gpu, count = _gpus(row)
        cpu, ram_gib = _cpu(row)
        hardware = Hardware(
            gpu=gpu, gpu_count=count, cpu=cpu, ram_gib=ram_gib, link_gbps=gpu.pcie_gbps
        )
        placement = "hybrid"
    else:
        gpu, count = _gpus(row)
        hardware = Hardware(gpu=gpu, gpu_count=count, ram_gib=0.0, link_gbps=gpu.pcie_gbps)
        placement = "gpu"
    workload = InferWorkload(
        model=model,
        quant=weight_scheme(_quant(row, model.is_moe)),
        placement=placement,
        context=tokens if phase == "decode" else max(tokens, 1),
        prompt_tokens=tokens,
        batch=batch if phase == "decode" else 1,
        ubatch=_int_after(r"\bub (\d+)", row.engine) or max(DEFAULT_UBATCH, tokens)
        if runtime == KTRANSFORMERS
        else _int_after(r"\bub (\d+)", row.engine) or DEFAULT_UBATCH,
        runtime=runtime,
    )
    return InferSetup(request=SimulationRequest(workload=workload, hardware=hardware), phase=phase)


def stated_peak_gib(row: MeasurementRow) -> float | None:
    """The row's peak GPU memory in GiB ("30.3 GiB", "44.8 GB per GPU"), None if unstated."""
    found = re.search(r"([\d.]+)\s*(GiB|GB)", row.peak_memory)
    if not found:
        return None
    value = float(found.group(1))
    return value if found.group(2) == "GiB" else value * 1e9 / GIB


def checkpointing_of(row: MeasurementRow, workload: TrainWorkload, hardware: Hardware) -> bool:
    """Whether the row's run recomputed activations: the setting whose engine peak memory (all
    layers resident, the row's batch) lies nearer the peak the row states. Checkpointing is
    the setting that moves peak memory most; torchtune's recipes enable it by default, which
    is the answer when the row states no peak or only one setting fits."""
    stated = stated_peak_gib(row)
    peaks = {
        on: resident_peak_gib(replace(workload, activation_checkpointing=on), hardware)
        for on in (True, False)
    }
    fitting = {on: peak for on, peak in peaks.items() if peak is not None}
    if stated is None or len(fitting) < 2:
        return True
    return min(fitting, key=lambda on: (abs(math.log(fitting[on] / stated)), not on))


def train_setup(row: MeasurementRow) -> TrainSetup:
    """torchtune LoRA/QLoRA rows through the training engine in refined mode (LoRA's frozen
    base): LoRA on a BF16 base is the engine's BF16 format, QLoRA its NF4; the row's batch is
    the micro-batch; activation checkpointing as the row's stated peak memory implies."""
    runtime = runtime_of(row)
    method = "QLoRA" if "qlora" in row.quant.lower() else "LoRA"
    gpu, count = _gpus(row)
    w = row.workload
    workload = TrainWorkload(
        model=load_model(model_slug(row)),
        quant=quant_format("NF4" if method == "QLoRA" else "BF16"),
        lora=LoraConfig(rank=TORCHTUNE_LORA_RANK[method]),
        seq_len=int(w["seq_len"]),
        max_micro_batch=int(w["batch_size"]),
        mode=MODE_REFINED,
    )
    hardware = Hardware(
        gpu=gpu,
        gpu_count=count,
        ram_gib=512.0,
        pinned_gib=480.0,
    )
    workload = replace(workload, activation_checkpointing=checkpointing_of(row, workload, hardware))
    request = SimulationRequest(workload=workload, hardware=hardware)
    return TrainSetup(request=request, runtime=runtime)


def row_setup(row: MeasurementRow) -> Setup:
    """The engine request for `row`; `NotModeled` with the reason when there is none."""
    reason = _unmodeled_reason(row)
    if reason is not None:
        raise NotModeled(reason)
    try:
        if row.workload.get("phase") == "train":
            return train_setup(row)
        return infer_setup(row)
    except (KeyError, ValueError) as error:
        raise NotModeled(f"the row's setup cannot be read: {error}") from error

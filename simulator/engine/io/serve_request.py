"""Parse an inference body (`"workload": {"kind": "infer", ...}`) and dispatch any body by kind.

The shape is training's: `workload` and `hardware`; hardware gains `gpu.mem_gbps`, `cpu`,
`unified` and `link_gbps`. Errors are `EngineInputError`s naming the dotted field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from simulator.engine.calibration.efficiency import RUNTIMES, TORCHTUNE
from simulator.engine.devices import Cpu, System
from simulator.engine.errors import EngineInputError
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.io.train_request import (
    HARDWARE_FIELDS,
    MAX_GPU_COUNT,
    REQUEST_FIELDS,
    SimulationRequest,
    _choice,
    _integer,
    _number,
    _optional_integer,
    _section,
    device_figures,
    model_config_json,
    parse_gpu,
    parse_request,
    require_known_fields,
    workload_model,
)
from simulator.engine.serve.hardware import CpuSpec, InferGpu, InferHardware, UnifiedSpec
from simulator.engine.serve.inference import (
    DEFAULT_CONTEXT,
    DEFAULT_PROMPT_TOKENS,
    DEFAULT_UBATCH,
    InferenceRequest,
    InferWorkload,
)
from simulator.engine.serve.kv_cache import DEFAULT_KV_CACHE_TYPE, KV_CACHE_BYTES_PER_ELEMENT
from simulator.engine.serve.placement import PLACEMENTS

INFER = "infer"
MAX_CONTEXT = 10_000_000
MAX_BATCH = 4096
MAX_LAYER = 10_000
MAX_CORES = 1024


INFER_WORKLOAD_FIELDS = frozenset({
    "kind", "model", "model_config", "quant", "placement", "context", "prompt_tokens", "batch",
    "kv_cache_type", "ubatch", "offload_from_layer", "runtime",
})  # fmt: skip
CPU_FIELDS = frozenset({"name", "cores", "mem_gbps", "flops_per_core_cycle", "ghz"})
UNIFIED_FIELDS = frozenset({"name", "mem_gb", "mem_gbps", "tflops"})


def parse_infer_workload(workload: Mapping[str, object]) -> InferWorkload:
    path = "workload"
    require_known_fields(workload, INFER_WORKLOAD_FIELDS, path)
    if workload.get("quant") is None:
        raise EngineInputError(field="workload.quant", message="is required")
    return InferWorkload(
        model=workload_model(workload),
        quant=weight_scheme(workload["quant"]),
        placement=_choice(workload, "placement", path, PLACEMENTS, "gpu"),
        context=_integer(workload, "context", path, DEFAULT_CONTEXT, upper=MAX_CONTEXT),
        prompt_tokens=_integer(
            workload, "prompt_tokens", path, DEFAULT_PROMPT_TOKENS, upper=MAX_CONTEXT
        ),
        batch=_integer(workload, "batch", path, 1, upper=MAX_BATCH),
        kv_cache_type=_choice(
            workload,
            "kv_cache_type",
            path,
            tuple(KV_CACHE_BYTES_PER_ELEMENT),
            DEFAULT_KV_CACHE_TYPE,
        ),
        ubatch=_integer(workload, "ubatch", path, DEFAULT_UBATCH, upper=MAX_CONTEXT),
        offload_from_layer=_optional_integer(workload, "offload_from_layer", path, upper=MAX_LAYER),
        runtime=_runtime(workload),
    )


def _runtime(workload: Mapping[str, object]) -> str | None:
    """The runtime family whose constants apply; None → the usual one per device class."""
    if workload.get("runtime") is None:
        return None
    inference_runtimes = tuple(r for r in RUNTIMES if r != TORCHTUNE)
    return _choice(workload, "runtime", "workload", inference_runtimes, inference_runtimes[0])


def parse_infer_gpu(value: object, count: int) -> InferGpu:
    spec = parse_gpu(value)
    if spec.mem_gbps is None:
        raise EngineInputError(field="hardware.gpu.mem_gbps", message="is required")
    return InferGpu(
        name=spec.name,
        vram_gib=spec.vram_gib,
        mem_gbps=spec.mem_gbps,
        tflops=spec.bf16_tflops,
        count=count,
        pcie_gbps=spec.pcie_gbps,
    )


def _cpu_table(device: Cpu) -> dict[str, object]:
    return {
        "name": device.name,
        "cores": device.cores,
        "mem_gbps": device.mem_gbps,
        "flops_per_core_cycle": device.flops_per_core_cycle,
        "ghz": device.all_core_ghz,
    }


def _system_table(device: System) -> dict[str, object]:
    return {
        "name": device.name,
        "mem_gb": device.memory_gb,
        "mem_gbps": device.mem_bandwidth_gbps,
        "tflops": device.gpu_tflops,
    }


def parse_cpu(value: object) -> CpuSpec:
    """A CPU by name from the device table (every memory channel at its rated speed), or an
    object of its figures."""
    path = "hardware.cpu"
    figures = device_figures(
        value, Cpu, path=path, fields=CPU_FIELDS, table=_cpu_table,
        required=("cores", "mem_gbps", "flops_per_core_cycle", "ghz"),
    )  # fmt: skip
    return CpuSpec(
        name=str(figures.get("name") or "CPU"),
        cores=_integer(figures, "cores", path, None, upper=MAX_CORES),
        mem_gbps=_number(figures, "mem_gbps", path),
        flops_per_core_cycle=_number(figures, "flops_per_core_cycle", path),
        ghz=_number(figures, "ghz", path, upper=10.0),
    )


def parse_unified(value: object) -> UnifiedSpec:
    """A whole system (unified memory). A chip-only record has no memory size: `mem_gb`."""
    path = "hardware.unified"
    figures = device_figures(
        value, System, path=path, fields=UNIFIED_FIELDS, table=_system_table,
        required=("mem_gb", "mem_gbps", "tflops"),
    )  # fmt: skip
    return UnifiedSpec(
        name=str(figures.get("name") or "Unified memory"),
        mem_gib=_number(figures, "mem_gb", path),
        mem_gbps=_number(figures, "mem_gbps", path),
        tflops=_number(figures, "tflops", path),
    )


def parse_infer_hardware(hardware: Mapping[str, object]) -> InferHardware:
    path = "hardware"
    require_known_fields(hardware, HARDWARE_FIELDS, path)
    count = _integer(hardware, "gpu_count", path, 1, upper=MAX_GPU_COUNT)
    gpu = None if hardware.get("gpu") is None else parse_infer_gpu(hardware["gpu"], count)
    default_link = gpu.pcie_gbps if gpu is not None else None
    link = None
    if gpu is not None or hardware.get("link_gbps") is not None:
        link = _number(hardware, "link_gbps", path, default_link)
    return InferHardware(
        gpu=gpu,
        cpu=None if hardware.get("cpu") is None else parse_cpu(hardware["cpu"]),
        unified=None if hardware.get("unified") is None else parse_unified(hardware["unified"]),
        ram_gib=_number(hardware, "ram_gb", path, 0.0, allow_zero=True),
        link_gbps=0.0 if link is None else link,
    )


def parse_infer_request(body: Mapping[str, object]) -> InferenceRequest:
    require_known_fields(body, REQUEST_FIELDS, "")
    workload = _section(body, "workload")
    return InferenceRequest(
        workload=parse_infer_workload(workload),
        hardware=parse_infer_hardware(_section(body, "hardware")),
        quant_spec=json.dumps(workload.get("quant"), sort_keys=True),
        model_config_json=model_config_json(workload),
    )


def parse_any_request(body: object) -> SimulationRequest | InferenceRequest:
    """A training request, or an inference one when `workload.kind` is "infer"."""
    if isinstance(body, Mapping):
        workload = body.get("workload")
        if isinstance(workload, Mapping) and workload.get("kind") == INFER:
            return parse_infer_request(body)
    return parse_request(body)

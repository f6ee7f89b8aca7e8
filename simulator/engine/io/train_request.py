"""Parse and validate the JSON body of a simulation request (the body POST /api/simulate takes).

Every error is an `EngineInputError` whose `field` is the dotted path of the bad value.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from simulator.engine.devices import Device, Gpu, find_device, require_device
from simulator.engine.errors import EngineInputError
from simulator.engine.formats.training import quant_format
from simulator.engine.model.config import ModelShape, parse_model_config
from simulator.engine.model.lora import ALL_TARGETS, DEFAULT_LORA_RANK, LoraConfig
from simulator.engine.model.registry import load_model
from simulator.engine.train.hardware import GpuSpec, Hardware, default_pinned_gib, gpu_spec
from simulator.engine.train.memory import MAX_MICRO_BATCH
from simulator.engine.train.workload import (
    DEFAULT_SEQ_LEN,
    DEFAULT_UTILIZATION,
    MODE_REFERENCE,
    MODE_REFINED,
    TrainWorkload,
)

MAX_SEQ_LEN = 131072
MAX_LORA_RANK = 4096
MAX_GPU_COUNT = 64
MAX_MICRO_BATCHES = 1024
MAX_MICRO_BATCH_CAP = 65536  # sequences per micro-batch; far above any VRAM today
MAX_TOKENS = 10**15
KINDS = ("train",)
MODES = (MODE_REFERENCE, MODE_REFINED)


@dataclass(frozen=True, slots=True, kw_only=True)
class SimulationRequest:
    workload: TrainWorkload
    hardware: Hardware
    model_config_json: str | None = None  # an inline config.json, kept to echo it back


# The fields each part of a request may have; any other is refused, never silently ignored.
REQUEST_FIELDS = frozenset({"workload", "hardware"})
TRAIN_WORKLOAD_FIELDS = frozenset({
    "kind", "model", "model_config", "quant", "seq_len", "lora_rank", "lora_targets", "tokens",
    "mode", "utilization", "micro_batches", "max_micro_batch", "activation_checkpointing",
})  # fmt: skip
# One hardware description for both kinds of workload: each uses what it needs of it.
HARDWARE_FIELDS = frozenset(
    {"gpu", "gpu_count", "nvme_gbps", "ram_gb", "pinned_gb", "cpu", "unified", "link_gbps"}
)
GPU_FIELDS = frozenset({"name", "vram_gb", "bf16_tflops", "pcie_gbps", "fp4", "mem_gbps"})


def require_known_fields(section: Mapping[str, object], known: frozenset[str], path: str) -> None:
    """A field this part of the request does not have is an error naming it (a misspelled
    `sequence_length` must not run at the default `seq_len`)."""
    unknown = sorted(str(key) for key in section if key not in known)
    if unknown:
        field = f"{path}.{unknown[0]}" if path else unknown[0]
        close = difflib.get_close_matches(unknown[0], sorted(known), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        names = ", ".join(repr(name) for name in unknown)
        message = f"unknown field{'s' if len(unknown) > 1 else ''} {names}{hint}"
        raise EngineInputError(
            field=field, message=f"{message} (known: {', '.join(sorted(known))})"
        )


def _section(body: Mapping[str, object], key: str, path: str = "") -> Mapping[str, object]:
    value = body.get(key)
    if not isinstance(value, Mapping):
        raise EngineInputError(field=f"{path}{key}", message="must be an object")
    return value


def _number(
    section: Mapping[str, object],
    key: str,
    path: str,
    default: float | None = None,
    *,
    upper: float = math.inf,
    allow_zero: bool = False,
) -> float:
    value = section.get(key, default)
    field = f"{path}.{key}"
    if value is None:
        raise EngineInputError(field=field, message="is required")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EngineInputError(field=field, message=f"must be a number, got {value!r}")
    number = float(value)
    low_ok = number >= 0 if allow_zero else number > 0
    if not math.isfinite(number) or not low_ok or number > upper:
        bound = "≥ 0" if allow_zero else "> 0"
        limit = f" and ≤ {upper:g}" if math.isfinite(upper) else ""
        raise EngineInputError(field=field, message=f"must be a finite number {bound}{limit}")
    return number


def _integer(
    section: Mapping[str, object], key: str, path: str, default: int | None, *, upper: int
) -> int:
    value = section.get(key, default)
    field = f"{path}.{key}"
    if value is None:
        raise EngineInputError(field=field, message="is required")
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= upper:
        raise EngineInputError(field=field, message=f"must be a positive integer ≤ {upper}")
    return value


def _optional_integer(
    section: Mapping[str, object], key: str, path: str, *, upper: int
) -> int | None:
    return None if section.get(key) is None else _integer(section, key, path, None, upper=upper)


def _choice(
    section: Mapping[str, object], key: str, path: str, choices: tuple[str, ...], default: str
) -> str:
    value = section.get(key, default)
    if value not in choices:
        raise EngineInputError(field=f"{path}.{key}", message=f"must be one of {list(choices)}")
    return str(value)


def workload_model(workload: Mapping[str, object]) -> ModelShape:
    """The workload's model: its inline `model_config` (config.json) or a shipped slug."""
    inline = workload.get("model_config")
    if isinstance(inline, Mapping):
        slug = workload.get("model") or "custom"
        return parse_model_config(inline, slug=str(slug), path="workload.model_config")
    slug = workload.get("model")
    if not isinstance(slug, str) or not slug:
        raise EngineInputError(field="workload.model", message="must be a model slug")
    return load_model(slug)


def _lora(workload: Mapping[str, object]) -> LoraConfig:
    rank = _integer(workload, "lora_rank", "workload", DEFAULT_LORA_RANK, upper=MAX_LORA_RANK)
    targets = workload.get("lora_targets", list(ALL_TARGETS))
    if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
        raise EngineInputError(field="workload.lora_targets", message="must be a list of names")
    return LoraConfig(rank=rank, targets=tuple(targets))


def _checkpointing(workload: Mapping[str, object], mode: str) -> bool:
    """`activation_checkpointing` (default true); reference mode is seed 000's equations, which
    always checkpoint."""
    value = workload.get("activation_checkpointing", True)
    field = "workload.activation_checkpointing"
    if not isinstance(value, bool):
        raise EngineInputError(field=field, message="must be true or false")
    if not value and mode == MODE_REFERENCE:
        raise EngineInputError(
            field=field, message="reference mode always checkpoints; use mode 'refined'"
        )
    return value


def parse_workload(workload: Mapping[str, object]) -> TrainWorkload:
    path = "workload"
    require_known_fields(workload, TRAIN_WORKLOAD_FIELDS, path)
    _choice(workload, "kind", path, KINDS, "train")
    quant = workload.get("quant")
    if not isinstance(quant, str):
        raise EngineInputError(field="workload.quant", message="must be a format name")
    mode = _choice(workload, "mode", path, MODES, MODE_REFERENCE)
    return TrainWorkload(
        model=workload_model(workload),
        quant=quant_format(quant),
        lora=_lora(workload),
        seq_len=_integer(workload, "seq_len", path, DEFAULT_SEQ_LEN, upper=MAX_SEQ_LEN),
        utilization=_number(workload, "utilization", path, DEFAULT_UTILIZATION, upper=1.0),
        tokens=_optional_integer(workload, "tokens", path, upper=MAX_TOKENS),
        micro_batches=_optional_integer(workload, "micro_batches", path, upper=MAX_MICRO_BATCHES),
        max_micro_batch=_integer(
            workload, "max_micro_batch", path, MAX_MICRO_BATCH, upper=MAX_MICRO_BATCH_CAP
        ),
        mode=mode,
        activation_checkpointing=_checkpointing(workload, mode),
    )


def device_figures(
    value: object,
    kind: type[Device],
    *,
    path: str,
    fields: frozenset[str],
    table: Callable[[Device], Mapping[str, object]],
    required: tuple[str, ...],
) -> Mapping[str, object]:
    """The figures of a device given by name (slug, name or alias of the device table) or as
    an object. An object naming a known device takes the table's figures for those it omits;
    one naming an unknown device without every `required` figure is refused with the closest
    known names, as a bare unknown name is."""
    if isinstance(value, str):
        return table(require_device(kind, value, field=path))
    if not isinstance(value, Mapping):
        raise EngineInputError(field=path, message="must be a name or an object")
    require_known_fields(value, fields, path)
    name = value.get("name")
    known = find_device(kind, name) if isinstance(name, str) else None
    if known is not None:
        return {**table(known), **{key: v for key, v in value.items() if v is not None}}
    if isinstance(name, str) and any(value.get(key) is None for key in required):
        require_device(kind, name, field=f"{path}.name")
    return value


def _gpu_table(device: Gpu) -> dict[str, object]:
    spec = gpu_spec(device)
    return {"name": spec.name, "vram_gb": spec.vram_gib, "bf16_tflops": spec.bf16_tflops,
            "pcie_gbps": spec.pcie_gbps, "fp4": spec.fp4, "mem_gbps": spec.mem_gbps}  # fmt: skip


def parse_gpu(value: object) -> GpuSpec:
    """A GPU by name from the device table, or an object of its figures."""
    path = "hardware.gpu"
    figures = device_figures(
        value, Gpu, path=path, fields=GPU_FIELDS, table=_gpu_table,
        required=("vram_gb", "bf16_tflops", "pcie_gbps"),
    )  # fmt: skip
    fp4 = figures.get("fp4", False)
    if not isinstance(fp4, bool):
        raise EngineInputError(field=f"{path}.fp4", message="must be true or false")
    mem_gbps = figures.get("mem_gbps")
    return GpuSpec(
        name=str(figures.get("name") or "GPU"),
        vram_gib=_number(figures, "vram_gb", path),
        bf16_tflops=_number(figures, "bf16_tflops", path),
        pcie_gbps=_number(figures, "pcie_gbps", path),
        fp4=fp4,
        mem_gbps=None if mem_gbps is None else _number(figures, "mem_gbps", path),
    )


def model_config_json(workload: Mapping[str, object]) -> str | None:
    """A workload's inline config.json as canonical JSON, kept to echo it back."""
    inline = workload.get("model_config")
    return json.dumps(inline, sort_keys=True) if isinstance(inline, Mapping) else None


def parse_hardware(hardware: Mapping[str, object]) -> Hardware:
    path = "hardware"
    require_known_fields(hardware, HARDWARE_FIELDS, path)
    ram = _number(hardware, "ram_gb", path, 32.0, allow_zero=True)
    pinned = _number(hardware, "pinned_gb", path, default_pinned_gib(ram), allow_zero=True)
    if pinned > ram:
        raise EngineInputError(field="hardware.pinned_gb", message="must not exceed ram_gb")
    return Hardware(
        gpu=parse_gpu(hardware.get("gpu")),
        gpu_count=_integer(hardware, "gpu_count", path, 1, upper=MAX_GPU_COUNT),
        nvme_gbps=_number(hardware, "nvme_gbps", path, 7.0),
        ram_gib=ram,
        pinned_gib=pinned,
    )


def parse_request(body: object) -> SimulationRequest:
    """The typed request for `body`, the decoded JSON object."""
    if not isinstance(body, Mapping):
        raise EngineInputError(field="request", message="must be a JSON object")
    require_known_fields(body, REQUEST_FIELDS, "")
    workload = _section(body, "workload")
    return SimulationRequest(
        workload=parse_workload(workload),
        hardware=parse_hardware(_section(body, "hardware")),
        model_config_json=model_config_json(workload),
    )

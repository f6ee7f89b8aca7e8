"""The one device table (`data/devices.json`): GPUs, CPUs and whole systems with datasheet
figures and sources. The catalog's parts are these records; requests name them by slug, name
or alias. Units: `units.py`.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, TypeVar

from simulator.engine.errors import EngineInputError
from simulator.engine.units import ddr_gbps, pcie_gbps
from simulator.engine.version import ENGINE_PACKAGE

DEVICES_PATH = "data/devices.json"
APPLE = "Apple"  # a unified system's maker when it is a Mac (macOS, Metal)
CLOSEST_NAMES = 5
CLOSE_MATCH_CUTOFF = 0.5


@dataclass(frozen=True, slots=True, kw_only=True)
class Gpu:
    slug: str
    name: str
    aliases: tuple[str, ...]
    manufacturer: str
    vram_gb: float
    bf16_tflops: float
    fp4_tensor_cores: bool
    mem_bandwidth_gbps: float
    pcie_gen: int
    pcie_lanes: int
    tdp_w: int | None
    slot_width: int | None
    length_mm: int | None
    source: str
    notes: str = ""
    # Dense FP16 tensor throughput with FP16 accumulate (10^12 FLOP/s): twice bf16_tflops on
    # GeForce cards, equal on pro and datacenter cards; None where no datasheet prints it.
    fp16_tflops: float | None = None
    # The vector units' FP16 peak (10^12 FLOP/s) where it differs from the matrix figures
    # above: RDNA 4, whose WMMA rate is twice it. The kernel path of runtimes whose prompt
    # GEMMs run on the vector units (efficiency.TENSOR_PATH); None: as the matrix figure.
    vector_fp16_tflops: float | None = None
    # Dense FP8 tensor throughput (10^12 FLOP/s, FP32 accumulate where the datasheet says):
    # Ada, Hopper and Blackwell; None on GPUs without FP8 tensor cores or no datasheet figure.
    fp8_tflops: float | None = None
    # GPU-to-GPU NVLink bandwidth of one GPU, per direction (GB/s), on boards that wire it
    # (SXM/HGX); None: the GPUs of a machine talk over PCIe.
    nvlink_gbps: float | None = None
    # What a large BF16 (and FP8) matmul sustains, measured (10^12 FLOP/s), and where it was
    # measured; None where no measurement was found (sustained.py gives the prior).
    bf16_sustained_tflops: float | None = None
    fp8_sustained_tflops: float | None = None
    sustained_source: str = ""
    # No fan of its own (the datasheet's "thermal solution: passive"): the card is cooled by a
    # server chassis's forced front-to-back airflow, which no desktop tower gives. None: no
    # source found says (the source field names the one that does).
    passive_cooling: bool | None = None
    # SMs (NVIDIA), compute units (AMD) or Xe cores (Intel), from the database named in
    # `units_source`; None where no record was found.
    compute_units: int | None = None
    units_source: str = ""
    # What a streaming benchmark (BabelStream, nvbandwidth, rocm_bandwidth_test, clpeak)
    # measured the card's memory to sustain, GB/s, and where; None where none was found
    # (sustained.py gives the prior share of the peak).
    mem_sustained_gbps: float | None = None
    bandwidth_source: str = ""

    @property
    def pcie_gbps(self) -> float:
        return pcie_gbps(gen=self.pcie_gen, lanes=self.pcie_lanes)


@dataclass(frozen=True, slots=True, kw_only=True)
class Cpu:
    slug: str
    name: str
    aliases: tuple[str, ...]
    manufacturer: str
    socket: str
    cores: int
    memory_channels: int
    memory_gen: str
    memory_speed_mts: int
    pcie_lanes: int
    pcie_gen: int
    tdp_w: int
    chipsets: tuple[str, ...]
    max_cpus: int
    flops_per_core_cycle: float
    all_core_ghz: float
    source: str
    notes: str = ""

    @property
    def mem_gbps(self) -> float:
        """Every channel populated at the rated speed."""
        return ddr_gbps(channels=self.memory_channels, speed_mts=self.memory_speed_mts)


@dataclass(frozen=True, slots=True, kw_only=True)
class System:
    """A machine sold whole (unified memory). Chip-only records (the corpus's) have no
    `memory_gb`: the request or the measurement states it."""

    slug: str
    name: str
    aliases: tuple[str, ...]
    manufacturer: str
    chip: str
    cpu_cores: int | None
    gpu_cores: int | None
    memory_gb: float | None
    mem_bandwidth_gbps: float
    gpu_tflops: float
    storage_gb: int | None
    source: str
    notes: str = ""
    # The GPU side's measured streaming bandwidth, GB/s, and where (as Gpu's); None: none found.
    mem_sustained_gbps: float | None = None
    bandwidth_source: str = ""


Device = TypeVar("Device", Gpu, Cpu, System)
SECTIONS: dict[type, str] = {Gpu: "gpus", Cpu: "cpus", System: "systems"}
LABELS: dict[type, str] = {Gpu: "GPU", Cpu: "CPU", System: "system"}


def _record(kind: type[Device], row: Mapping[str, Any]) -> Device:
    values = {key: value for key, value in row.items() if key in kind.__dataclass_fields__}
    for key in ("aliases", "chipsets"):
        if key in values:
            values[key] = tuple(values[key])
    return kind(**values)


@cache
def device_table() -> dict[type, tuple[Any, ...]]:
    text = resources.files(ENGINE_PACKAGE).joinpath(DEVICES_PATH).read_text("utf-8")
    rows = json.loads(text)
    return {kind: tuple(_record(kind, row) for row in rows[key]) for kind, key in SECTIONS.items()}


def devices(kind: type[Device]) -> tuple[Device, ...]:
    table: tuple[Device, ...] = device_table()[kind]
    return table


def _keys(device: Gpu | Cpu | System) -> tuple[str, ...]:
    return (device.slug, device.name, *device.aliases)


def _index(kind: type) -> dict[str, Any]:
    return _section_index(SECTIONS[kind])


@cache
def _section_index(section: str) -> dict[str, Any]:
    table = {SECTIONS[kind]: rows for kind, rows in device_table().items()}
    return {key.lower(): device for device in table[section] for key in _keys(device)}


def find_device(kind: type[Device], name: str) -> Device | None:
    """The device called `name` (slug, name or alias, case-insensitive), or None."""
    found: Device | None = _index(kind).get(name.strip().lower())
    return found


def closest_names(kind: type[Device], name: str) -> list[str]:
    """Names of the devices whose slug, name or alias is closest to `name`."""
    index = _index(kind)
    matches = difflib.get_close_matches(
        name.strip().lower(), list(index), n=3 * CLOSEST_NAMES, cutoff=CLOSE_MATCH_CUTOFF
    )
    names = list(dict.fromkeys(index[key].name for key in matches))
    return names[:CLOSEST_NAMES]


def require_device(kind: type[Device], name: str, *, field: str) -> Device:
    """The device called `name`; an `EngineInputError` on `field` naming the closest ones."""
    device = find_device(kind, name)
    if device is not None:
        return device
    close = closest_names(kind, name)
    known = close or [device.name for device in devices(kind)]
    hint = "closest" if close else "known"
    message = f"unknown {LABELS[kind]} {name!r}; {hint}: {', '.join(known)}"
    raise EngineInputError(field=field, message=message)

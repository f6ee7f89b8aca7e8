"""Reads of the catalog pages: each kind's parts table and one part's spec table, every
figure in words with its unit (a whole number without decimals, a missing figure "not
stated"), and a part's price history. Nothing here writes."""

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Field
from django.shortcuts import get_object_or_404
from django.utils import timezone

from catalog.models import PART_MODELS, BoardFormFactor, Part, PartKind, PcieGen
from catalog.models import System as SystemPart
from catalog.selectors import (
    exchange_rate_table,
    part_current_price,
    part_current_price_map,
    part_detail_list,
    part_price_history,
)
from frontend import charts
from simulator.engine import Gpu, System, find_device

NOT_STATED = "not stated"
NBSP = "\u00a0"

# Headings of the catalog's tabs: the kind's label in the plural.
KIND_PLURALS: dict[str, str] = {
    PartKind.GPU: "GPUs", PartKind.CPU: "CPUs", PartKind.MOTHERBOARD: "motherboards",
    PartKind.NVME_DRIVE: "NVMe drives", PartKind.NVME_CARD: "NVMe add-in cards",
    PartKind.RAM_KIT: "RAM kits", PartKind.PSU: "power supplies", PartKind.CASE: "cases",
    PartKind.SYSTEM: "whole systems (unified memory)",
}  # fmt: skip


def _pcie_gens(gens: list[int]) -> str:
    """[5, 5, 4] → "2 × PCIe 5.0, 1 × PCIe 4.0" (fastest first; each group unbroken)."""
    counts = Counter(gens)
    groups = [f"{counts[gen]} × {PcieGen(gen).label}" for gen in sorted(counts, reverse=True)]
    return ", ".join(group.replace(" ", NBSP) for group in groups) or "none"


def _lane_split(split: dict[str, list[int]]) -> str:
    """{"1": [16], "2": [16, 16]} → "up to 2 cards at x16"; {"1": [16], "2": [8, 8]} →
    "1 card: x16; 2 cards: x8/x8"."""
    cards = sorted(split, key=int)
    widths = {lanes for n in cards for lanes in split[n]}
    if len(widths) == 1:
        most = cards[-1]
        return f"up to {most} card{'' if most == '1' else 's'} at x{widths.pop()}"
    return "; ".join(
        f"{n} card{'' if n == '1' else 's'}: " + "/".join(f"x{lanes}" for lanes in split[n])
        for n in cards
    )


def _form_factors(factors: list[str]) -> str:
    return ", ".join(BoardFormFactor(f).label for f in factors)


def _cooling(passive: bool) -> str:
    return "passive: needs a rack chassis's airflow" if passive else "its own fan"


def _chipsets(chipsets: list[str]) -> str:
    return ", ".join(chipsets) or "every board of its socket"


@dataclass(frozen=True, slots=True, kw_only=True)
class Spec:
    """How one part field reads: its label, and the unit after its number (`unit_one` for
    exactly 1: "1 slot") or a function that puts a stored list or object in words."""

    label: str
    unit: str = ""
    unit_one: str = ""
    words: Callable[[Any], str] | None = None


# Every field of every part kind's own table (a test checks that none is missing). Units as
# the models' field names and help texts state them (simulator/engine/units.py).
SPECS: dict[str, Spec] = {
    # GPU
    "vram_gb": Spec(label="VRAM", unit="GB"),
    "bf16_tflops": Spec(label="BF16 tensor, dense", unit="TFLOPS"),
    "fp16_tflops": Spec(label="FP16 tensor, FP16 accumulate, dense", unit="TFLOPS"),
    "fp4_tensor_cores": Spec(label="FP4 tensor cores"),
    "mem_bandwidth_gbps": Spec(label="memory bandwidth", unit="GB/s"),
    "pcie_gen": Spec(label="PCIe generation"),
    "pcie_lanes": Spec(label="PCIe lanes", unit="lanes", unit_one="lane"),
    "tdp_w": Spec(label="power (TDP)", unit="W"),
    "slot_width": Spec(label="width", unit="slots", unit_one="slot"),
    "length_mm": Spec(label="length", unit="mm"),
    "passive_cooling": Spec(label="cooling", words=_cooling),
    # CPU
    "socket": Spec(label="socket"),
    "cores": Spec(label="cores", unit="cores", unit_one="core"),
    "memory_channels": Spec(label="memory channels", unit="channels", unit_one="channel"),
    "memory_gen": Spec(label="memory generation"),
    "memory_speed_mts": Spec(label="memory speed", unit="MT/s"),
    "chipsets": Spec(label="chipsets", words=_chipsets),
    "max_cpus": Spec(label="CPUs per board", unit="CPUs", unit_one="CPU"),
    "flops_per_core_cycle": Spec(label="FP32 per core per cycle", unit="FLOPs"),
    "all_core_ghz": Spec(label="all-core clock (base)", unit="GHz"),
    # motherboard
    "cpu_sockets": Spec(label="CPU sockets", unit="sockets", unit_one="socket"),
    "chipset": Spec(label="chipset"),
    "form_factor": Spec(label="form factor"),
    "lane_split": Spec(label="PCIe lanes per card", words=_lane_split),
    "m2_slot_gens": Spec(label="M.2 slots", words=_pcie_gens),
    "ram_slots": Spec(label="RAM slots", unit="slots", unit_one="slot"),
    "max_ram_gb": Spec(label="most RAM", unit="GB"),
    "module_type": Spec(label="memory modules"),
    # NVMe drive and card
    "capacity_gb": Spec(label="capacity", unit="GB"),
    "seq_read_gbps": Spec(label="sequential read", unit="GB/s"),
    "m2_slots": Spec(label="M.2 slots", unit="slots", unit_one="slot"),
    "host_lanes": Spec(label="host lanes", unit="lanes", unit_one="lane"),
    # RAM kit
    "speed_mts": Spec(label="speed", unit="MT/s"),
    "modules": Spec(label="modules", unit="modules", unit_one="module"),
    # power supply and case
    "watts": Spec(label="continuous output", unit="W"),
    "psu_form_factor": Spec(label="PSU form factor"),
    "efficiency": Spec(label="80 PLUS rating"),
    "board_form_factors": Spec(label="boards", words=_form_factors),
    "expansion_slots": Spec(label="expansion slots", unit="slots", unit_one="slot"),
    "max_gpu_length_mm": Spec(label="longest GPU", unit="mm"),
    "max_gpu_slot_width": Spec(label="widest GPU", unit="slots", unit_one="slot"),
    "size": Spec(label="size class"),
    # whole system
    "chip": Spec(label="chip"),
    "cpu_cores": Spec(label="CPU cores", unit="cores", unit_one="core"),
    "gpu_cores": Spec(label="GPU cores", unit="cores", unit_one="core"),
    "memory_gb": Spec(label="unified memory", unit="GB"),
    "gpu_tflops": Spec(label="GPU FP16 peak", unit="TFLOPS"),
    "storage_gb": Spec(label="SSD", unit="GB"),
    "max_power_w": Spec(label="maximum power", unit="W"),
}

# Columns of each kind's catalog table: the fields a buyer compares first.
CATALOG_COLUMNS: dict[str, tuple[str, ...]] = {
    PartKind.GPU: ("vram_gb", "bf16_tflops", "mem_bandwidth_gbps", "fp4_tensor_cores",
                   "pcie_gen", "tdp_w", "slot_width", "length_mm"),
    PartKind.CPU: ("socket", "cores", "pcie_lanes", "memory_channels", "memory_speed_mts",
                   "tdp_w"),
    PartKind.MOTHERBOARD: ("socket", "chipset", "form_factor", "pcie_gen", "lane_split",
                           "m2_slot_gens", "max_ram_gb"),
    PartKind.NVME_DRIVE: ("capacity_gb", "pcie_gen", "seq_read_gbps"),
    PartKind.NVME_CARD: ("pcie_gen", "m2_slots", "host_lanes"),
    PartKind.RAM_KIT: ("capacity_gb", "memory_gen", "module_type", "speed_mts", "modules"),
    PartKind.PSU: ("watts", "psu_form_factor", "efficiency"),
    PartKind.CASE: ("size", "board_form_factors", "expansion_slots", "max_gpu_length_mm"),
    PartKind.SYSTEM: ("chip", "memory_gb", "mem_bandwidth_gbps", "gpu_tflops", "cpu_cores",
                      "gpu_cores", "storage_gb"),
}  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class SpecValue:
    label: str
    text: str
    stated: bool
    numeric: bool


def _number(value: float) -> str:
    """12 → "12", 82.6 → "82.6", 1008.0 → "1,008": a whole number without decimals."""
    if isinstance(value, int) or value.is_integer():
        return f"{int(value):,}"
    return f"{value:,}"


def spec_value(part: Part, field: str) -> SpecValue:
    """One figure of a part in words, with its unit."""
    spec, value = SPECS[field], getattr(part, field)
    display = getattr(part, f"get_{field}_display", None)  # a field with choices
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    if value is None or value == "":
        text = NOT_STATED
    elif spec.words is not None:
        text = spec.words(value)
    elif display is not None:
        text = display()
        numeric = False
    elif isinstance(value, bool):
        text = "yes" if value else "no"
    elif numeric:
        unit = spec.unit_one if value == 1 and spec.unit_one else spec.unit
        text = f"{_number(value)} {unit}".strip()
    else:
        text = str(value)
    return SpecValue(label=spec.label, text=text, stated=text != NOT_STATED, numeric=numeric)


def part_spec_fields(model: type[Part]) -> list[str]:
    """The fields of the kind's own table, in the model's order (the `Part` row's name,
    source and notes, and the link to it, are not specifications)."""
    fields: Iterable[Field[Any, Any]] = model._meta.local_concrete_fields
    return [f.name for f in fields if not f.is_relation and f.name not in ENGINE_FIGURE_FIELDS]


# A system's fields that carry a source of their own: shown with it among the engine's
# figures (`part_engine_figures`), not in the specifications table under the part's source.
ENGINE_FIGURE_FIELDS = frozenset({"network_gbit_per_s", "network_source"})


@dataclass(frozen=True, slots=True, kw_only=True)
class EngineFigure:
    """A figure the engine takes from its device table for this part (not a catalog column),
    with where it comes from."""

    label: str
    text: str
    source: str
    stated: bool


def part_engine_figures(*, part: Part) -> list[EngineFigure]:
    """The figures of a GPU or whole system that only the engine's device table holds: a GPU's
    SMs (compute units), which cap the bandwidth a runtime's kernels sustain, and its measured
    sustained BF16 matmul rate, which training computes at; for both, what a streaming
    benchmark measured the memory to sustain, of which a runtime's bandwidth efficiency is a
    share (docs/model.md)."""
    if part.kind == PartKind.SYSTEM:
        system = find_device(System, part.name)
        bandwidth = [] if system is None else [_bandwidth_figure(system)]
        return [*bandwidth, _network_figure(part.detail)]
    if part.kind != PartKind.GPU:
        return []
    record = find_device(Gpu, part.name)
    if record is None:
        return []
    units = EngineFigure(
        label="SMs / compute units",
        text=NOT_STATED if record.compute_units is None else _number(record.compute_units),
        source=record.units_source
        or "no record found: decode reads are not capped per SM (docs/model.md, "
        '"Bandwidth per SM")',
        stated=record.compute_units is not None,
    )
    sustained = EngineFigure(
        label="sustained BF16 matmul",
        text=NOT_STATED
        if record.bf16_sustained_tflops is None
        else f"{_number(record.bf16_sustained_tflops)} TFLOPS",
        source=record.sustained_source
        or "not measured: training takes the median measured share of a peak (docs/model.md, "
        '"Sustained matmul rate")',
        stated=record.bf16_sustained_tflops is not None,
    )
    return [units, sustained, _bandwidth_figure(record)]


def _network_figure(system: Part) -> EngineFigure:
    """A whole system's built-in network port: two of it over one cable are a candidate."""
    assert isinstance(system, SystemPart)
    gbit = system.network_gbit_per_s
    return EngineFigure(
        label="network port (two of it split a model over it)",
        text=NOT_STATED if gbit is None else f"{_number(gbit)} Gbit/s",
        source=system.network_source
        or 'not published: not offered as a pair (docs/catalog.md, "Two of a system over its '
        'own network port")',
        stated=gbit is not None,
    )


def _bandwidth_figure(record: Gpu | System) -> EngineFigure:
    measured = record.mem_sustained_gbps
    return EngineFigure(
        label="sustained memory bandwidth",
        text=NOT_STATED
        if measured is None
        else f"{_number(measured)} GB/s ({measured / record.mem_bandwidth_gbps:.0%} of peak)",
        source=record.bandwidth_source
        or "not measured: the engine takes the median measured share of the peak of its kind "
        '(docs/model.md, "Sustained memory bandwidth")',
        stated=measured is not None,
    )


def part_spec_list(*, part: Part) -> list[SpecValue]:
    return [spec_value(part, field) for field in part_spec_fields(type(part))]


def catalog_kind_table(*, kind: str) -> dict[str, Any]:
    """Parts of one kind with their spec columns and current price observation."""
    fields = CATALOG_COLUMNS[kind]
    parts = list(part_detail_list(model=PART_MODELS[kind]))
    prices = part_current_price_map(part_ids=[part.pk for part in parts])
    rows = [
        {"part": part, "specs": [spec_value(part, field) for field in fields],
         "price": prices.get(part.pk)}
        for part in parts
    ]  # fmt: skip
    return {"columns": [SPECS[field].label for field in fields], "rows": rows}


def part_get(*, slug: str) -> Part:
    return get_object_or_404(Part, slug=slug).detail


def part_price_view(*, part: Part) -> dict[str, Any]:
    """The part's current price, its whole price history (newest first) and the chart's
    series."""
    history = list(part_price_history(part=part))
    return {"current": part_current_price(part=part), "history": history,
            "chart": charts.price_chart(history, rates=exchange_rate_table(),
                                        today=timezone.localdate())}  # fmt: skip


def part_slug_map(*, part_ids: Iterable[int]) -> dict[int, str]:
    """Part id → slug, for linking the parts a stored result names by id."""
    return dict(Part.objects.filter(pk__in=list(part_ids)).values_list("pk", "slug"))

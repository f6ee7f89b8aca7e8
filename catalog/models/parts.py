"""Parts. Every part row is a `Part` (name, kind, source) plus one detail table per kind
(multi-table inheritance), so prices and builds point at one `Part` table and each kind
keeps its own typed columns. Units are in the field names."""

from __future__ import annotations

from typing import Any, ClassVar

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from catalog.models.choices import (
    BoardFormFactor,
    CaseSize,
    MemoryGen,
    ModuleType,
    PartKind,
    PcieGen,
    PsuFormFactor,
    Socket,
)

PCIE_LANE_WIDTHS = (1, 2, 4, 8, 16)
MAX_GPU_SLOT_WIDTH = 4


class Part(models.Model):
    kind = models.CharField(max_length=16, choices=PartKind.choices, editable=False)
    name = models.CharField(max_length=120, unique=True)
    slug = models.SlugField(max_length=120, unique=True)
    manufacturer = models.CharField(max_length=60)
    source = models.TextField(
        help_text="where the specification numbers come from (datasheet URL, seed, review)"
    )
    notes = models.TextField(blank=True)

    # Each detail model names its kind; `Part` itself is never created alone.
    part_kind: ClassVar[str] = ""

    class Meta:
        ordering = ("kind", "name")
        constraints = [
            models.CheckConstraint(condition=~Q(source=""), name="part_source_required"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.kind and self.part_kind:
            self.kind = self.part_kind
        super().save(*args, **kwargs)

    @property
    def detail(self) -> Part:
        """The kind-specific row (a `Gpu` for a GPU part, ...)."""
        if type(self) is not Part:
            return self
        return getattr(self, self.kind.replace("_", ""))  # type: ignore[no-any-return]


def _positive(field: str, model: str) -> models.CheckConstraint:
    return models.CheckConstraint(condition=Q(**{f"{field}__gt": 0}), name=f"{model}_{field}_gt_0")


def _lanes_valid(model: str) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=Q(pcie_lanes__in=PCIE_LANE_WIDTHS), name=f"{model}_pcie_lanes_valid"
    )


class Gpu(Part):
    part_kind = PartKind.GPU

    vram_gb = models.PositiveSmallIntegerField(help_text="memory on the card, GB")
    bf16_tflops = models.FloatField(help_text="dense BF16 tensor TFLOPS (no sparsity)")
    fp16_tflops = models.FloatField(
        null=True,
        blank=True,
        help_text="dense FP16 tensor TFLOPS with FP16 accumulate, where the datasheet gives it "
        "(GeForce cards run it at twice their FP32-accumulate rate; llama.cpp's CUDA matmuls "
        "use it); empty: the BF16 figure",
    )
    fp4_tensor_cores = models.BooleanField(
        default=False, help_text="hardware FP4 tensor cores (Blackwell): NVFP4 is possible"
    )
    mem_bandwidth_gbps = models.FloatField(help_text="memory bandwidth, GB/s")
    pcie_gen = models.PositiveSmallIntegerField(choices=PcieGen.choices)
    pcie_lanes = models.PositiveSmallIntegerField(default=16)
    tdp_w = models.PositiveSmallIntegerField(help_text="board power, W")
    slot_width = models.PositiveSmallIntegerField(help_text="expansion slots the card occupies")
    length_mm = models.PositiveSmallIntegerField()
    passive_cooling = models.BooleanField(
        null=True,
        blank=True,
        default=None,
        help_text="no fan of its own (datasheet: thermal solution passive): needs a rack "
        "chassis's forced airflow; empty: not stated",
    )

    class Meta:
        verbose_name = "GPU"
        constraints = [
            _positive("vram_gb", "gpu"),
            _positive("bf16_tflops", "gpu"),
            models.CheckConstraint(
                condition=Q(fp16_tflops__isnull=True) | Q(fp16_tflops__gt=0),
                name="gpu_fp16_tflops_positive",
            ),
            _positive("mem_bandwidth_gbps", "gpu"),
            _positive("tdp_w", "gpu"),
            _positive("length_mm", "gpu"),
            _lanes_valid("gpu"),
            models.CheckConstraint(
                condition=Q(slot_width__gte=1, slot_width__lte=MAX_GPU_SLOT_WIDTH),
                name="gpu_slot_width_1_to_4",
            ),
        ]


class Cpu(Part):
    part_kind = PartKind.CPU

    socket = models.CharField(max_length=16, choices=Socket.choices)
    cores = models.PositiveSmallIntegerField()
    memory_channels = models.PositiveSmallIntegerField()
    memory_gen = models.CharField(max_length=8, choices=MemoryGen.choices)
    memory_speed_mts = models.PositiveIntegerField(help_text="supported memory speed, MT/s")
    pcie_lanes = models.PositiveSmallIntegerField(help_text="usable CPU PCIe lanes")
    pcie_gen = models.PositiveSmallIntegerField(choices=PcieGen.choices)
    tdp_w = models.PositiveSmallIntegerField(help_text="AMD TDP / Intel processor base power, W")
    chipsets = models.JSONField(
        default=list,
        blank=True,
        help_text="board chipsets it runs on when the socket alone does not say (sTR5); "
        "empty: every board of its socket",
    )
    max_cpus = models.PositiveSmallIntegerField(
        default=1, help_text="CPUs of this model one board may hold (2 for 2P EPYC)"
    )
    flops_per_core_cycle = models.PositiveSmallIntegerField(
        help_text="FP32 FLOPs per core per cycle, an FMA counting two "
        "(Zen 5: 64; Zen 3/4 and Arrow Lake: 32)"
    )
    all_core_ghz = models.FloatField(
        help_text="sustained all-core clock, GHz: the datasheet base clock"
    )

    class Meta:
        verbose_name = "CPU"
        constraints = [
            _positive("cores", "cpu"),
            _positive("flops_per_core_cycle", "cpu"),
            _positive("all_core_ghz", "cpu"),
            _positive("memory_channels", "cpu"),
            _positive("memory_speed_mts", "cpu"),
            _positive("pcie_lanes", "cpu"),
            _positive("tdp_w", "cpu"),
            _positive("max_cpus", "cpu"),
        ]

    @property
    def memory_bandwidth_gbps(self) -> float:
        """Peak DRAM bandwidth: channels x MT/s x 8 bytes (64-bit channel)."""
        return self.memory_channels * self.memory_speed_mts * 8 / 1000


class Motherboard(Part):
    part_kind = PartKind.MOTHERBOARD

    socket = models.CharField(max_length=16, choices=Socket.choices)
    cpu_sockets = models.PositiveSmallIntegerField(default=1)
    chipset = models.CharField(max_length=40)
    form_factor = models.CharField(max_length=16, choices=BoardFormFactor.choices)
    pcie_gen = models.PositiveSmallIntegerField(
        choices=PcieGen.choices, help_text="generation of the CPU-attached x16 slots"
    )
    lane_split = models.JSONField(
        help_text='lanes each x16 slot gets per number of cards installed, e.g. {"1": [16], '
        '"2": [8, 8]}; the largest key is the most GPUs (or add-in cards) it takes'
    )
    m2_slot_gens = models.JSONField(help_text="PCIe generation of each M.2 slot, e.g. [5, 4, 4]")
    ram_slots = models.PositiveSmallIntegerField()
    max_ram_gb = models.PositiveIntegerField()
    memory_gen = models.CharField(max_length=8, choices=MemoryGen.choices)
    module_type = models.CharField(max_length=8, choices=ModuleType.choices)

    class Meta:
        verbose_name = "motherboard"
        constraints = [
            _positive("cpu_sockets", "motherboard"),
            _positive("ram_slots", "motherboard"),
            _positive("max_ram_gb", "motherboard"),
        ]

    @property
    def max_cards(self) -> int:
        """How many GPUs (and NVMe add-in cards) the x16 slots take at once."""
        return max((int(key) for key in self.lane_split), default=0)

    def lanes_for(self, cards: int) -> list[int] | None:
        """Lanes each installed card gets, in slot order; None if it takes fewer cards."""
        lanes = self.lane_split.get(str(cards))
        return None if lanes is None else [int(n) for n in lanes]

    def clean(self) -> None:
        super().clean()
        errors = _lane_split_errors(self.lane_split) + _m2_errors(self.m2_slot_gens)
        if errors:
            raise ValidationError(errors)


def _lane_split_errors(split: object) -> list[str]:
    if not isinstance(split, dict) or not split:
        return ["lane_split must be a non-empty object of card count -> lanes per slot"]
    errors = []
    for key, lanes in split.items():
        if not str(key).isdigit() or int(key) < 1:
            errors.append(f"lane_split key {key!r} is not a card count")
        elif not isinstance(lanes, list) or len(lanes) != int(key):
            errors.append(f"lane_split[{key!r}] must list {key} lane widths")
        elif any(lane not in PCIE_LANE_WIDTHS for lane in lanes):
            errors.append(f"lane_split[{key!r}] has a width outside {PCIE_LANE_WIDTHS}")
    return errors


def _m2_errors(gens: object) -> list[str]:
    valid = set(PcieGen.values)
    if not isinstance(gens, list) or any(gen not in valid for gen in gens):
        return [f"m2_slot_gens must be a list of PCIe generations {sorted(valid)}"]
    return []


class NvmeDrive(Part):
    part_kind = PartKind.NVME_DRIVE

    capacity_gb = models.PositiveIntegerField()
    pcie_gen = models.PositiveSmallIntegerField(choices=PcieGen.choices)
    seq_read_gbps = models.FloatField(help_text="datasheet sequential read, GB/s")

    class Meta:
        verbose_name = "NVMe drive"
        constraints = [
            _positive("capacity_gb", "nvmedrive"),
            _positive("seq_read_gbps", "nvmedrive"),
        ]


class NvmeCard(Part):
    """A passive x16 carrier for several M.2 drives (needs x4x4x4x4 bifurcation)."""

    part_kind = PartKind.NVME_CARD

    pcie_gen = models.PositiveSmallIntegerField(choices=PcieGen.choices)
    m2_slots = models.PositiveSmallIntegerField()
    host_lanes = models.PositiveSmallIntegerField(default=16)
    slot_width = models.PositiveSmallIntegerField(default=1)

    class Meta:
        verbose_name = "NVMe add-in card"
        constraints = [_positive("m2_slots", "nvmecard"), _positive("host_lanes", "nvmecard")]


class RamKit(Part):
    part_kind = PartKind.RAM_KIT

    capacity_gb = models.PositiveIntegerField(help_text="whole kit, GB")
    memory_gen = models.CharField(max_length=8, choices=MemoryGen.choices)
    module_type = models.CharField(max_length=8, choices=ModuleType.choices)
    speed_mts = models.PositiveIntegerField(help_text="rated speed, MT/s")
    modules = models.PositiveSmallIntegerField()

    class Meta:
        verbose_name = "RAM kit"
        constraints = [
            _positive("capacity_gb", "ramkit"),
            _positive("speed_mts", "ramkit"),
            _positive("modules", "ramkit"),
        ]

    @property
    def module_gb(self) -> float:
        return self.capacity_gb / self.modules


class Psu(Part):
    part_kind = PartKind.PSU

    watts = models.PositiveIntegerField(help_text="continuous output, W")
    psu_form_factor = models.CharField(max_length=16, choices=PsuFormFactor.choices)
    efficiency = models.CharField(max_length=30, blank=True, help_text="80 PLUS rating")

    class Meta:
        verbose_name = "PSU"
        constraints = [_positive("watts", "psu")]


class Case(Part):
    part_kind = PartKind.CASE

    board_form_factors = models.JSONField(help_text="board form factors it holds, e.g. ['ATX']")
    psu_form_factor = models.CharField(max_length=16, choices=PsuFormFactor.choices)
    expansion_slots = models.PositiveSmallIntegerField(
        help_text="GPU slots: rear expansion-slot positions; a GPU uses slot_width of them"
    )
    max_gpu_length_mm = models.PositiveSmallIntegerField()
    max_gpu_slot_width = models.PositiveSmallIntegerField(
        default=MAX_GPU_SLOT_WIDTH,
        help_text="widest card one GPU bay takes (server chassis: fixed double-width bays)",
    )
    size = models.CharField(
        max_length=12,
        choices=CaseSize.choices,
        blank=True,
        help_text="the maker's size class (mid tower, full tower, rack); blank: not published",
    )

    class Meta:
        verbose_name = "case"
        constraints = [
            _positive("expansion_slots", "case"),
            _positive("max_gpu_length_mm", "case"),
        ]

    def clean(self) -> None:
        super().clean()
        valid = set(BoardFormFactor.values)
        factors = self.board_form_factors
        if not isinstance(factors, list) or not factors or not set(factors) <= valid:
            raise ValidationError(f"board_form_factors must be a list drawn from {sorted(valid)}")


class System(Part):
    """A whole machine sold as one (Apple silicon, DGX Spark, Strix Halo): CPU, GPU and unified
    memory in one package, so it is a build by itself."""

    part_kind = PartKind.SYSTEM

    chip = models.CharField(max_length=40, help_text="e.g. M4 Max 16-core CPU, 40-core GPU")
    cpu_cores = models.PositiveSmallIntegerField()
    gpu_cores = models.PositiveSmallIntegerField()
    memory_gb = models.PositiveIntegerField(help_text="unified memory, GB")
    mem_bandwidth_gbps = models.FloatField(help_text="unified memory bandwidth, GB/s")
    gpu_tflops = models.FloatField(
        help_text="GPU FP16 TFLOPS the simulation uses: Apple's FP32 rate (FP16 runs at it), "
        "GB10's dense BF16 tensor rate, the Radeon 8060S's vector FP16 rate"
    )
    storage_gb = models.PositiveIntegerField(help_text="internal SSD, GB")
    max_power_w = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="the maker's maximum power consumption, W; blank: not published",
    )
    network_gbit_per_s = models.FloatField(
        null=True,
        blank=True,
        help_text="the built-in wired network port's speed, Gbit/s (10 GbE is 10), which "
        "machines of a cluster split a model over; blank: not published",
    )
    network_source = models.TextField(
        blank=True, help_text="where the network speed is published, and when it was read"
    )

    class Meta:
        verbose_name = "system"
        constraints = [
            _positive("cpu_cores", "system"),
            _positive("gpu_cores", "system"),
            _positive("memory_gb", "system"),
            _positive("mem_bandwidth_gbps", "system"),
            _positive("gpu_tflops", "system"),
            _positive("network_gbit_per_s", "system"),  # NULL passes: not published
        ]


PART_MODELS: dict[str, type[Part]] = {
    model.part_kind: model
    for model in (Gpu, Cpu, Motherboard, NvmeDrive, NvmeCard, RamKit, Psu, Case, System)
}

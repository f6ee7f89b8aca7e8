"""A build held in memory: one model per part kind with its quantity. Both the saved
builds (catalog.selectors.build_spec) and the generator's candidates are checked and
measured through it, so the rules never touch the database."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

from catalog.hardware import M2_LANES_PER_DRIVE, nvme_drive_gbps, pinned_gb
from catalog.models import (
    Case,
    Cpu,
    Gpu,
    Motherboard,
    NvmeCard,
    NvmeDrive,
    Part,
    PartKind,
    Psu,
    RamKit,
    System,
)
from simulator.engine import DEFAULT_GPU_MAKER, DEFAULT_SYSTEM_MAKER, pcie_gbps

# DDR4/DDR5 channels are 64 bits wide (DDR5: two 32-bit subchannels): 8 bytes per transfer.
DDR_BYTES_PER_TRANSFER = 8

REQUIRED_KINDS = (
    PartKind.GPU,
    PartKind.CPU,
    PartKind.MOTHERBOARD,
    PartKind.RAM_KIT,
    PartKind.NVME_DRIVE,
    PartKind.PSU,
    PartKind.CASE,
)


class GpuHardware(TypedDict):
    name: str
    vram_gb: int
    bf16_tflops: float
    pcie_gbps: float
    fp4: bool
    mem_gbps: float
    fp16_tflops: NotRequired[float]
    maker: NotRequired[str]  # the engine's default: NVIDIA (its runtime: serve/runtimes.py)


class CpuHardware(TypedDict):
    name: str
    cores: int
    mem_gbps: float
    flops_per_core_cycle: int
    ghz: float


class HardwareDict(TypedDict):
    """The engine's inline hardware form: training reads gpu, gpu_count, nvme_gbps, ram_gb
    and pinned_gb; inference also gpu.mem_gbps, cpu and link_gbps."""

    gpu: GpuHardware
    gpu_count: int
    nvme_gbps: float
    ram_gb: int
    pinned_gb: int
    cpu: NotRequired[CpuHardware]
    link_gbps: float


class UnifiedHardware(TypedDict):
    name: str
    mem_gb: int
    mem_gbps: float
    tflops: float
    maker: NotRequired[str]  # the engine's default: Apple


class SystemHardwareDict(TypedDict):
    """A whole system's inference hardware: unified memory only (no training form); a
    cluster of several over their built-in network port (llama.cpp RPC)."""

    unified: UnifiedHardware
    ram_gb: int
    machines: NotRequired[int]
    network_gbit_per_s: NotRequired[float]


@dataclass(frozen=True, slots=True)
class GpuLink:
    """The PCIe link one installed GPU really gets."""

    gen: int
    lanes: int

    @property
    def gbps(self) -> float:
        return pcie_gbps(gen=self.gen, lanes=self.lanes)


@dataclass(frozen=True, kw_only=True)
class BuildSpec:
    gpu: Gpu | None = None
    gpu_count: int = 0
    cpu: Cpu | None = None
    cpu_count: int = 0
    motherboard: Motherboard | None = None
    ram_kit: RamKit | None = None
    ram_kit_count: int = 0
    nvme_drive: NvmeDrive | None = None
    nvme_count: int = 0
    nvme_card: NvmeCard | None = None
    nvme_card_count: int = 0
    psu: Psu | None = None
    psu_count: int = 0
    case: Case | None = None
    system: System | None = None
    system_count: int = 0
    # Kinds a saved build holds more than one model of (the rules report them).
    mixed_kinds: tuple[str, ...] = field(default=())

    # --- quantities ------------------------------------------------------------------
    def lines(self) -> list[tuple[Part, int]]:
        pairs: list[tuple[Part | None, int]] = [
            (self.gpu, self.gpu_count),
            (self.cpu, self.cpu_count),
            (self.motherboard, 1),
            (self.ram_kit, self.ram_kit_count),
            (self.nvme_drive, self.nvme_count),
            (self.nvme_card, self.nvme_card_count),
            (self.psu, self.psu_count),
            (self.case, 1),
            (self.system, self.system_count),
        ]
        return [(part, count) for part, count in pairs if part is not None and count > 0]

    @property
    def card_count(self) -> int:
        """Cards in the CPU-attached x16 slots: GPUs first, then NVMe add-in cards."""
        return self.gpu_count + (self.nvme_card_count if self.nvme_card else 0)

    @property
    def ram_gb(self) -> int:
        return self.ram_kit.capacity_gb * self.ram_kit_count if self.ram_kit else 0

    @property
    def ram_modules(self) -> int:
        return self.ram_kit.modules * self.ram_kit_count if self.ram_kit else 0

    @property
    def tdp_sum_w(self) -> int:
        gpus = self.gpu.tdp_w * self.gpu_count if self.gpu else 0
        cpus = self.cpu.tdp_w * self.cpu_count if self.cpu else 0
        return gpus + cpus

    @property
    def psu_watts(self) -> int:
        return self.psu.watts * self.psu_count if self.psu else 0

    # --- derived links -----------------------------------------------------------------
    def slot_lanes(self) -> list[int] | None:
        """Lanes of each occupied x16 slot, GPUs first; None if the board lacks slots."""
        if self.motherboard is None:
            return None
        return self.motherboard.lanes_for(self.card_count)

    def gpu_links(self) -> list[GpuLink]:
        lanes = self.slot_lanes()
        if self.gpu is None or self.motherboard is None or lanes is None:
            return []
        gen = min(self.gpu.pcie_gen, self.motherboard.pcie_gen)
        return [GpuLink(gen, min(self.gpu.pcie_lanes, n)) for n in lanes[: self.gpu_count]]

    def card_lanes(self) -> list[int]:
        lanes = self.slot_lanes()
        return [] if lanes is None else lanes[self.gpu_count :]

    def drive_slot_gens(self) -> list[int | None]:
        """The generation of the slot each drive lands in (best slots first); None: no slot.

        Drives go on the add-in cards first, then into the board's M.2 slots."""
        slots: list[int] = []
        if self.nvme_card and self.motherboard:
            card_gen = min(self.nvme_card.pcie_gen, self.motherboard.pcie_gen)
            for lanes in self.card_lanes():
                slots += [card_gen] * min(self.nvme_card.m2_slots, lanes // M2_LANES_PER_DRIVE)
        if self.motherboard:
            slots += sorted((int(gen) for gen in self.motherboard.m2_slot_gens), reverse=True)
        placed: list[int | None] = list(slots[: self.nvme_count])
        return placed + [None] * (self.nvme_count - len(placed))

    @property
    def nvme_gbps(self) -> float:
        """Striped (RAID0) read of every placed drive: weight streaming reads sequentially."""
        if self.nvme_drive is None:
            return 0.0
        drive = self.nvme_drive
        return sum(
            nvme_drive_gbps(seq_read_gbps=drive.seq_read_gbps, link_gen=min(drive.pcie_gen, gen))
            for gen in self.drive_slot_gens()
            if gen is not None
        )

    @property
    def cpu_mem_gbps(self) -> float:
        """Peak DRAM bandwidth as installed: populated channels (at most one per module) x
        the slower of the CPU's and the kit's MT/s x 8 bytes (a 64-bit channel)."""
        if self.cpu is None or self.ram_kit is None:
            return 0.0
        channels = min(self.cpu.memory_channels * self.cpu_count, self.ram_modules)
        speed_mts = min(self.cpu.memory_speed_mts, self.ram_kit.speed_mts)
        return channels * speed_mts * DDR_BYTES_PER_TRANSFER / 1000

    def cpu_hardware(self) -> CpuHardware | None:
        if self.cpu is None:
            return None
        return {
            "name": self.cpu.name,
            "cores": self.cpu.cores * self.cpu_count,
            "mem_gbps": round(self.cpu_mem_gbps, 3),
            "flops_per_core_cycle": self.cpu.flops_per_core_cycle,
            "ghz": self.cpu.all_core_ghz,
        }

    def any_hardware(self) -> HardwareDict | SystemHardwareDict:
        """`hardware()` for a PC build; the unified-memory form for a whole system."""
        if self.system is not None:
            return self.system_hardware(self.system, machines=self.system_count)
        return self.hardware()

    def hardware(self) -> HardwareDict:
        """The engine's inline hardware form of a PC build (training and inference; see
        catalog.selectors.build_hardware)."""
        if self.gpu is None:
            raise ValueError("a build without a GPU has no simulation hardware")
        links = self.gpu_links()
        # A pipeline runs at its slowest link.
        slowest_gbps = min(link.gbps for link in links) if links else 0.0
        gpu: GpuHardware = {
            "name": self.gpu.name,
            "vram_gb": self.gpu.vram_gb,
            "bf16_tflops": self.gpu.bf16_tflops,
            "pcie_gbps": slowest_gbps,
            "fp4": self.gpu.fp4_tensor_cores,
            "mem_gbps": self.gpu.mem_bandwidth_gbps,
        }
        if self.gpu.fp16_tflops is not None:
            gpu["fp16_tflops"] = self.gpu.fp16_tflops
        if self.gpu.manufacturer != DEFAULT_GPU_MAKER:  # only then, so NVIDIA builds keep their key
            gpu["maker"] = self.gpu.manufacturer
        hardware: HardwareDict = {
            "gpu": gpu,
            "gpu_count": self.gpu_count,
            "nvme_gbps": round(self.nvme_gbps, 3),
            "ram_gb": self.ram_gb,
            "pinned_gb": pinned_gb(ram_gb=self.ram_gb),
            "link_gbps": slowest_gbps,
        }
        cpu = self.cpu_hardware()
        if cpu is not None:
            hardware["cpu"] = cpu
        return hardware

    @staticmethod
    def system_hardware(system: System, *, machines: int = 1) -> SystemHardwareDict:
        """The unified-memory form of `machines` of the system: several split the model's
        layers over their built-in network port (compatibility.py refuses a cluster of a
        system whose port speed is not published)."""
        unified: UnifiedHardware = {
            "name": system.name,
            "mem_gb": system.memory_gb,
            "mem_gbps": system.mem_bandwidth_gbps,
            "tflops": system.gpu_tflops,
        }
        if system.manufacturer != DEFAULT_SYSTEM_MAKER:
            unified["maker"] = system.manufacturer
        hardware: SystemHardwareDict = {"unified": unified, "ram_gb": system.memory_gb}
        if machines > 1:
            if system.network_gbit_per_s is None:
                raise ValueError(f"the {system.name} has no published network port speed")
            hardware["machines"] = machines
            hardware["network_gbit_per_s"] = system.network_gbit_per_s
        return hardware


_SPEC_FIELDS = {
    PartKind.GPU: ("gpu", "gpu_count"),
    PartKind.CPU: ("cpu", "cpu_count"),
    PartKind.MOTHERBOARD: ("motherboard", None),
    PartKind.RAM_KIT: ("ram_kit", "ram_kit_count"),
    PartKind.NVME_DRIVE: ("nvme_drive", "nvme_count"),
    PartKind.NVME_CARD: ("nvme_card", "nvme_card_count"),
    PartKind.PSU: ("psu", "psu_count"),
    PartKind.CASE: ("case", None),
    PartKind.SYSTEM: ("system", "system_count"),
}


def spec_from_lines(lines: Iterable[tuple[Part, int]]) -> BuildSpec:
    """A spec from (kind-specific part, quantity) pairs; a second model of a kind is
    recorded in `mixed_kinds` rather than dropped silently."""
    values: dict[str, object] = {}
    mixed: list[str] = []
    for part, quantity in lines:
        part_field, count_field = _SPEC_FIELDS[PartKind(part.kind)]
        if part_field in values:
            mixed.append(part.kind)
            continue
        values[part_field] = part
        if count_field:
            values[count_field] = quantity
    return BuildSpec(**values, mixed_kinds=tuple(mixed))  # type: ignore[arg-type]

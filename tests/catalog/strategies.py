"""Hypothesis strategies of unsaved catalog parts. Each field is drawn from a small range
around the factory's value (tests.catalog.factories, a working AM5 build), that value most
often, so that parts clash often but not always: sockets, memory, lanes, M.2 slots, watts,
sizes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from factory.django import DjangoModelFactory
from hypothesis import strategies as st

from tests.catalog.factories import (
    CaseFactory,
    CpuFactory,
    GpuFactory,
    MotherboardFactory,
    NvmeCardFactory,
    NvmeDriveFactory,
    PsuFactory,
    RamKitFactory,
)


def part(factory: type[DjangoModelFactory[Any]], **choices: Sequence[object]) -> Any:
    """An unsaved part of the factory with each field in `choices` drawn from its values."""
    fields = {name: st.sampled_from(values) for name, values in choices.items()}
    return st.builds(factory.build, **fields)


GPUS = part(GpuFactory, slot_width=(1, 2, 3), length_mm=(250, 250, 330),
            tdp_w=(150, 450, 600), pcie_gen=(4, 5), pcie_lanes=(8, 16, 16),
            passive_cooling=(None, False, True))  # fmt: skip
CPUS = part(CpuFactory, socket=("AM5", "SP5"), chipsets=([], [], ["X870E"]), max_cpus=(1, 2),
            tdp_w=(65, 360))  # fmt: skip
BOARDS = part(
    MotherboardFactory, socket=("AM5", "AM5", "AM5", "SP5"), cpu_sockets=(1, 1, 2),
    chipset=("X870E", "B650"), form_factor=("ATX", "ATX", "EATX"), pcie_gen=(4, 5),
    # The third leaves a gap: no split is listed for two cards.
    lane_split=({"1": [16]}, {"1": [16], "2": [16, 16]}, {"1": [16], "3": [16, 8, 8]},
                {"1": [16], "2": [16, 16], "4": [16, 16, 8, 8], "8": [8] * 8}),
    m2_slot_gens=([4], [5, 4], [5, 4, 4, 4]), ram_slots=(2, 4, 8), max_ram_gb=(128, 512),
    module_type=("UDIMM", "UDIMM", "UDIMM", "RDIMM"),
)  # fmt: skip
RAM_KITS = part(RamKitFactory, capacity_gb=(32, 64, 128),
                module_type=("UDIMM", "UDIMM", "RDIMM"), modules=(2, 4))  # fmt: skip
NVME_DRIVES = part(NvmeDriveFactory, pcie_gen=(4, 5), seq_read_gbps=(5.0, 14.0, 14.0))
NVME_CARDS = part(NvmeCardFactory, pcie_gen=(4, 5), m2_slots=(2, 4), slot_width=(1, 2))
PSUS = part(PsuFactory, watts=(850, 1600, 2400), psu_form_factor=("ATX", "ATX", "server"))
CASES = part(CaseFactory, board_form_factors=(["ATX"], ["ATX", "EATX"]),
             psu_form_factor=("ATX", "ATX", "server"), expansion_slots=(4, 8, 12, 12),
             max_gpu_length_mm=(300, 400), max_gpu_slot_width=(2, 4),
             size=("mid_tower", "full_tower", "rack", ""))  # fmt: skip

# Each kind of a PC build: its factory (the working build's part) and its strategy.
KINDS: tuple[tuple[type[DjangoModelFactory[Any]], Any], ...] = (
    (GpuFactory, GPUS),
    (CpuFactory, CPUS),
    (MotherboardFactory, BOARDS),
    (RamKitFactory, RAM_KITS),
    (NvmeDriveFactory, NVME_DRIVES),
    (NvmeCardFactory, NVME_CARDS),
    (PsuFactory, PSUS),
    (CaseFactory, CASES),
)

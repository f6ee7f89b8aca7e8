"""factory-boy factories for every catalog model. Defaults describe a working AM5 build
around an RTX 4090-like GPU; `.build()` gives unsaved rows for the pure rule tests."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any, TypeVar

from django.contrib.auth.models import Permission, User
from factory.declarations import LazyAttribute, LazyFunction, Sequence, SubFactory
from factory.django import DjangoModelFactory

from catalog.models import (
    Build,
    BuildOrigin,
    BuildPart,
    Case,
    Cpu,
    Gpu,
    Motherboard,
    NvmeCard,
    NvmeDrive,
    Part,
    PriceObservation,
    Psu,
    RamKit,
    System,
)


class UserFactory(DjangoModelFactory[User]):
    username = Sequence(lambda n: f"user{n}")
    is_staff = False

    class Meta:
        model = User


def pricing_staff(**fields: Any) -> User:
    """A staff account that may add prices, as the admin and the API require."""
    user = UserFactory.create(is_staff=True, **fields)
    user.user_permissions.add(Permission.objects.get(codename="add_priceobservation"))
    return user


PartT = TypeVar("PartT", bound=Part)


class PartFactory(DjangoModelFactory[PartT]):
    name = Sequence(lambda n: f"part {n}")
    slug = LazyAttribute(lambda part: part.name.lower().replace(" ", "-"))
    manufacturer = "Test"
    source = "test factory"


class GpuFactory(PartFactory[Gpu]):
    kind = "gpu"
    manufacturer = "NVIDIA"  # the maker whose llama.cpp backend the engine assumes
    name = Sequence(lambda n: f"GPU {n}")
    vram_gb = 24
    bf16_tflops = 165.0
    fp4_tensor_cores = False
    mem_bandwidth_gbps = 1008.0
    pcie_gen = 4
    pcie_lanes = 16
    tdp_w = 450
    slot_width = 3
    length_mm = 304

    class Meta:
        model = Gpu


class CpuFactory(PartFactory[Cpu]):
    kind = "cpu"
    socket = "AM5"
    cores = 8
    memory_channels = 2
    memory_gen = "DDR5"
    memory_speed_mts = 5600
    pcie_lanes = 24
    pcie_gen = 5
    tdp_w = 65
    chipsets: list[str] = []
    max_cpus = 1
    flops_per_core_cycle = 64
    all_core_ghz = 3.8

    class Meta:
        model = Cpu


class MotherboardFactory(PartFactory[Motherboard]):
    kind = "motherboard"
    socket = "AM5"
    cpu_sockets = 1
    chipset = "X870E"
    form_factor = "ATX"
    pcie_gen = 5
    lane_split = LazyFunction(lambda: {"1": [16], "2": [8, 8]})
    m2_slot_gens = LazyFunction(lambda: [5, 4, 4, 4])
    ram_slots = 4
    max_ram_gb = 256
    memory_gen = "DDR5"
    module_type = "UDIMM"

    class Meta:
        model = Motherboard


class NvmeDriveFactory(PartFactory[NvmeDrive]):
    kind = "nvme_drive"
    capacity_gb = 2000
    pcie_gen = 4
    seq_read_gbps = 7.45

    class Meta:
        model = NvmeDrive


class NvmeCardFactory(PartFactory[NvmeCard]):
    kind = "nvme_card"
    pcie_gen = 5
    m2_slots = 4
    host_lanes = 16
    slot_width = 1

    class Meta:
        model = NvmeCard


class RamKitFactory(PartFactory[RamKit]):
    kind = "ram_kit"
    capacity_gb = 32
    memory_gen = "DDR5"
    module_type = "UDIMM"
    speed_mts = 6000
    modules = 2

    class Meta:
        model = RamKit


class PsuFactory(PartFactory[Psu]):
    kind = "psu"
    watts = 1000
    psu_form_factor = "ATX"
    efficiency = "80 PLUS Gold"

    class Meta:
        model = Psu


class CaseFactory(PartFactory[Case]):
    kind = "case"
    board_form_factors = LazyFunction(lambda: ["mATX", "ATX"])
    psu_form_factor = "ATX"
    expansion_slots = 7
    max_gpu_length_mm = 400
    max_gpu_slot_width = 4

    class Meta:
        model = Case


class SystemFactory(PartFactory[System]):
    kind = "system"
    manufacturer = "Apple"
    name = Sequence(lambda n: f"Mac {n}")
    chip = "M4 Max 16-core CPU, 40-core GPU"
    cpu_cores = 16
    gpu_cores = 40
    memory_gb = 128
    mem_bandwidth_gbps = 546.0
    gpu_tflops = 16.2
    storage_gb = 512

    class Meta:
        model = System


class PriceObservationFactory(DjangoModelFactory[PriceObservation]):
    part = SubFactory(GpuFactory)
    amount = Decimal("100.00")
    currency = "USD"
    condition = "new"
    vendor = "test shop"
    observed_on = datetime.date(2026, 2, 1)

    class Meta:
        model = PriceObservation


class BuildFactory(DjangoModelFactory[Build]):
    name = Sequence(lambda n: f"build {n}")
    slug = Sequence(lambda n: f"build-{n}")
    origin = BuildOrigin.USER

    class Meta:
        model = Build


class BuildPartFactory(DjangoModelFactory[BuildPart]):
    build_ = SubFactory(BuildFactory)  # renamed: `build` is factory-boy's own classmethod
    part = SubFactory(GpuFactory)
    quantity = 1

    class Meta:
        model = BuildPart
        rename = {"build_": "build"}

"""Query filters for the public read endpoints (django-filter)."""

from __future__ import annotations

import django_filters

from catalog.models import (
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


class PartFilter(django_filters.FilterSet):  # type: ignore[misc]
    name = django_filters.CharFilter(lookup_expr="icontains")
    manufacturer = django_filters.CharFilter(lookup_expr="iexact")

    class Meta:
        model = Part
        fields = ("kind", "name", "manufacturer")


class GpuFilter(django_filters.FilterSet):  # type: ignore[misc]
    name = django_filters.CharFilter(lookup_expr="icontains")

    class Meta:
        model = Gpu
        fields = {
            "name": ["exact"],
            "vram_gb": ["exact", "gte", "lte"],
            "bf16_tflops": ["gte", "lte"],
            "mem_bandwidth_gbps": ["gte", "lte"],
            "pcie_gen": ["exact"],
            "fp4_tensor_cores": ["exact"],
            "tdp_w": ["lte"],
            "manufacturer": ["exact"],
        }


class CpuFilter(django_filters.FilterSet):  # type: ignore[misc]
    class Meta:
        model = Cpu
        fields = {
            "socket": ["exact"],
            "cores": ["gte", "lte"],
            "memory_channels": ["gte"],
            "flops_per_core_cycle": ["exact", "gte"],
        }


class MotherboardFilter(django_filters.FilterSet):  # type: ignore[misc]
    class Meta:
        model = Motherboard
        fields = {
            "socket": ["exact"],
            "chipset": ["exact"],
            "form_factor": ["exact"],
            "pcie_gen": ["exact"],
            "max_ram_gb": ["gte"],
        }


class NvmeDriveFilter(django_filters.FilterSet):  # type: ignore[misc]
    class Meta:
        model = NvmeDrive
        fields = {"pcie_gen": ["exact"], "capacity_gb": ["gte"], "seq_read_gbps": ["gte"]}


class NvmeCardFilter(django_filters.FilterSet):  # type: ignore[misc]
    class Meta:
        model = NvmeCard
        fields = {"pcie_gen": ["exact"], "m2_slots": ["gte"]}


class RamKitFilter(django_filters.FilterSet):  # type: ignore[misc]
    class Meta:
        model = RamKit
        fields = {
            "capacity_gb": ["exact", "gte", "lte"],
            "memory_gen": ["exact"],
            "module_type": ["exact"],
        }


class PsuFilter(django_filters.FilterSet):  # type: ignore[misc]
    class Meta:
        model = Psu
        fields = {"watts": ["gte", "lte"], "psu_form_factor": ["exact"]}


class CaseFilter(django_filters.FilterSet):  # type: ignore[misc]
    class Meta:
        model = Case
        fields = {"max_gpu_length_mm": ["gte"], "expansion_slots": ["gte"]}


class SystemFilter(django_filters.FilterSet):  # type: ignore[misc]
    class Meta:
        model = System
        fields = {"memory_gb": ["gte", "lte"], "mem_bandwidth_gbps": ["gte"]}


class PriceObservationFilter(django_filters.FilterSet):  # type: ignore[misc]
    part = django_filters.CharFilter(field_name="part__slug")
    kind = django_filters.CharFilter(field_name="part__kind")
    observed_after = django_filters.DateFilter(field_name="observed_on", lookup_expr="gte")
    observed_before = django_filters.DateFilter(field_name="observed_on", lookup_expr="lte")

    class Meta:
        model = PriceObservation
        fields = ("part", "kind", "currency", "condition", "withdrawn")

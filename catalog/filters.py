"""Query filters for the public read endpoints (django-filter)."""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from django.db import models
from django.http import QueryDict

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
from planner_site.api_serializers import INTEGER_TEXT


class StrictIntegerField(forms.IntegerField):
    """Django's field reads "1.0" as 1; the schema says integer, so digits only."""

    def to_python(self, value: Any) -> int | None:
        if value not in self.empty_values and not INTEGER_TEXT.fullmatch(str(value)):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


class IntegerFilter(django_filters.NumberFilter):  # type: ignore[misc]
    """Integer columns filter by integers (the schema says integer): "1.5" is a 400."""

    field_class = StrictIntegerField


class StrictBooleanField(forms.NullBooleanField):
    """Django's field reads any unknown word as "not given"; the schema says boolean."""

    widget = forms.TextInput

    def to_python(self, value: object) -> bool | None:  # type: ignore[override]
        result = super().to_python(value)
        if result is None and value not in (None, ""):
            raise forms.ValidationError("must be true or false")
        return result


class StrictBooleanFilter(django_filters.BooleanFilter):  # type: ignore[misc]
    field_class = StrictBooleanField


INTEGER_COLUMNS = (
    models.IntegerField,
    models.SmallIntegerField,
    models.BigIntegerField,
    models.PositiveIntegerField,
    models.PositiveSmallIntegerField,
    models.PositiveBigIntegerField,
)


class CatalogFilterSet(django_filters.FilterSet):  # type: ignore[misc]
    FILTER_DEFAULTS = {
        **django_filters.FilterSet.FILTER_DEFAULTS,
        **{column: {"filter_class": IntegerFilter} for column in INTEGER_COLUMNS},
        models.BooleanField: {"filter_class": StrictBooleanFilter},
    }

    def is_valid(self) -> bool:
        """A parameter given twice is refused: Django would keep the last value silently."""
        valid = bool(super().is_valid())
        if not isinstance(self.data, QueryDict):
            return valid
        for name in self.filters:
            if len(self.data.getlist(name)) > 1:
                self.form.add_error(name, "give this parameter once")
                valid = False
        return valid


class PartFilter(CatalogFilterSet):
    name = django_filters.CharFilter(lookup_expr="icontains")
    manufacturer = django_filters.CharFilter(lookup_expr="iexact")

    class Meta:
        model = Part
        fields = ("kind", "name", "manufacturer")


class GpuFilter(CatalogFilterSet):
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


class CpuFilter(CatalogFilterSet):
    class Meta:
        model = Cpu
        fields = {
            "socket": ["exact"],
            "cores": ["gte", "lte"],
            "memory_channels": ["gte"],
            "flops_per_core_cycle": ["exact", "gte"],
        }


class MotherboardFilter(CatalogFilterSet):
    class Meta:
        model = Motherboard
        fields = {
            "socket": ["exact"],
            "chipset": ["exact"],
            "form_factor": ["exact"],
            "pcie_gen": ["exact"],
            "max_ram_gb": ["gte"],
        }


class NvmeDriveFilter(CatalogFilterSet):
    class Meta:
        model = NvmeDrive
        fields = {"pcie_gen": ["exact"], "capacity_gb": ["gte"], "seq_read_gbps": ["gte"]}


class NvmeCardFilter(CatalogFilterSet):
    class Meta:
        model = NvmeCard
        fields = {"pcie_gen": ["exact"], "m2_slots": ["gte"]}


class RamKitFilter(CatalogFilterSet):
    class Meta:
        model = RamKit
        fields = {
            "capacity_gb": ["exact", "gte", "lte"],
            "memory_gen": ["exact"],
            "module_type": ["exact"],
        }


class PsuFilter(CatalogFilterSet):
    class Meta:
        model = Psu
        fields = {"watts": ["gte", "lte"], "psu_form_factor": ["exact"]}


class CaseFilter(CatalogFilterSet):
    class Meta:
        model = Case
        fields = {"max_gpu_length_mm": ["gte"], "expansion_slots": ["gte"]}


class SystemFilter(CatalogFilterSet):
    class Meta:
        model = System
        fields = {"memory_gb": ["gte", "lte"], "mem_bandwidth_gbps": ["gte"]}


class PriceObservationFilter(CatalogFilterSet):
    part = django_filters.CharFilter(field_name="part__slug")
    kind = django_filters.CharFilter(field_name="part__kind")
    observed_after = django_filters.DateFilter(field_name="observed_on", lookup_expr="gte")
    observed_before = django_filters.DateFilter(field_name="observed_on", lookup_expr="lte")

    class Meta:
        model = PriceObservation
        fields = ("part", "kind", "currency", "condition", "withdrawn")

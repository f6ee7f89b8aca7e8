"""Admin: every part kind with its price history inline, the price-list CSV import with
a dry-run preview (django-import-export), and the read-only price-change log."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.forms import ModelForm
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from import_export.admin import ImportMixin
from import_export.formats import base_formats

from catalog.models import (
    Build,
    BuildPart,
    Case,
    Cpu,
    ExchangeRate,
    Gpu,
    Motherboard,
    NvmeCard,
    NvmeDrive,
    Part,
    PriceChange,
    PriceChangeVia,
    PriceObservation,
    Psu,
    RamKit,
    System,
)
from catalog.resources import PriceObservationResource
from catalog.selectors import part_current_price, price_change_latest_id
from catalog.services import StalePriceEdit, price_observation_save, price_observation_withdraw

# django-stubs makes the admin classes generic for mypy only; at run time they are not
# subscriptable (the project does not monkeypatch them), so subscript under TYPE_CHECKING.
if TYPE_CHECKING:
    ModelAdmin = admin.ModelAdmin[Any]
    TabularInline = admin.TabularInline[Any, Any]
    PriceModelForm = ModelForm[PriceObservation]
else:
    ModelAdmin = admin.ModelAdmin
    TabularInline = admin.TabularInline
    PriceModelForm = ModelForm


class PriceObservationInline(TabularInline):
    """Price history, read-only here: new prices go through the price admin or import,
    so that every change is logged."""

    model = PriceObservation
    fk_name = "part"
    extra = 0
    can_delete = False
    ordering = ("-observed_on", "-id")
    fields = ("observed_on", "amount", "currency", "condition", "region", "vendor", "withdrawn")
    readonly_fields = fields
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class PartAdmin(ModelAdmin):
    inlines = (PriceObservationInline,)
    search_fields = ("name", "slug", "manufacturer")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("current_price",)

    @admin.display(description="current price (USD)")
    def current_price(self, obj: Any) -> str:
        current = part_current_price(part=obj) if obj.pk else None
        if current is None:
            return "-"
        observation = current.observation
        published = f", published as {observation.amount} {observation.currency}"
        return (
            f"{current.amount_usd} ({observation.observed_on}"
            f"{published if current.converted else ''})"
        )


@admin.register(Part)
class AllPartsAdmin(ModelAdmin):
    """Every part in one list (and the search behind the price form's part field)."""

    list_display = ("name", "kind", "manufacturer")
    list_filter = ("kind", "manufacturer")
    search_fields = ("name", "slug", "manufacturer")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a part is added as its kind (GPU, CPU, ...)


@admin.register(Gpu)
class GpuAdmin(PartAdmin):
    list_display = ("name", "vram_gb", "bf16_tflops", "mem_bandwidth_gbps", "pcie_gen", "tdp_w")
    list_filter = ("manufacturer", "pcie_gen", "fp4_tensor_cores", "vram_gb")


@admin.register(Cpu)
class CpuAdmin(PartAdmin):
    list_display = (
        "name", "socket", "cores", "memory_channels", "flops_per_core_cycle", "all_core_ghz",
        "tdp_w",
    )  # fmt: skip
    list_filter = ("manufacturer", "socket")


@admin.register(Motherboard)
class MotherboardAdmin(PartAdmin):
    list_display = ("name", "socket", "chipset", "form_factor", "pcie_gen", "max_ram_gb")
    list_filter = ("socket", "chipset", "form_factor", "module_type")


@admin.register(NvmeDrive)
class NvmeDriveAdmin(PartAdmin):
    list_display = ("name", "capacity_gb", "pcie_gen", "seq_read_gbps")
    list_filter = ("manufacturer", "pcie_gen")


@admin.register(NvmeCard)
class NvmeCardAdmin(PartAdmin):
    list_display = ("name", "pcie_gen", "m2_slots", "host_lanes")
    list_filter = ("manufacturer", "pcie_gen")


@admin.register(RamKit)
class RamKitAdmin(PartAdmin):
    list_display = ("name", "capacity_gb", "module_type", "speed_mts", "modules")
    list_filter = ("memory_gen", "module_type", "capacity_gb")


@admin.register(Psu)
class PsuAdmin(PartAdmin):
    list_display = ("name", "watts", "psu_form_factor", "efficiency")
    list_filter = ("psu_form_factor",)


@admin.register(Case)
class CaseAdmin(PartAdmin):
    list_display = ("name", "expansion_slots", "max_gpu_length_mm", "psu_form_factor")
    list_filter = ("psu_form_factor",)


@admin.register(System)
class SystemAdmin(PartAdmin):
    list_display = ("name", "chip", "memory_gb", "mem_bandwidth_gbps", "gpu_tflops")


class PriceObservationAdminForm(PriceModelForm):
    # The newest PriceChange id when the form was opened: a save after someone else changed
    # this part's current price is refused (409) rather than silently replacing it.
    seen_price_change_id = forms.IntegerField(widget=forms.HiddenInput, min_value=0)

    class Meta:
        model = PriceObservation
        fields = "__all__"


@admin.register(ExchangeRate)
class ExchangeRateAdmin(ModelAdmin):
    """The dated rate table that converts euro and pound prices to US dollars."""

    list_display = ("rate_date", "currency", "units_per_eur", "source")
    list_filter = ("currency",)
    date_hierarchy = "rate_date"


@admin.register(PriceObservation)
class PriceObservationAdmin(ImportMixin, ModelAdmin):  # type: ignore[misc]
    """Add prices one by one or import a price list (CSV or JSON) with a dry-run preview. Adding
    uses optimistic concurrency; importing needs the `catalog.import_priceobservation`
    permission (IMPORT_EXPORT_IMPORT_PERMISSION_CODE), not just staff status."""

    form = PriceObservationAdminForm
    resource_classes = [PriceObservationResource]
    # The formats `manage.py prices_import` reads too.
    import_formats = [base_formats.CSV, base_formats.JSON]
    list_display = (
        "part", "amount", "currency", "condition", "region", "vendor", "observed_on", "withdrawn",
    )  # fmt: skip
    list_filter = ("currency", "condition", "region", "withdrawn", "part__kind", "observed_on")
    search_fields = ("part__name", "part__slug", "vendor")
    autocomplete_fields = ("part",)
    date_hierarchy = "observed_on"
    readonly_fields = ("created_by", "withdrawn", "withdrawn_reason")
    actions = ("withdraw",)

    def get_import_data_kwargs(self, **kwargs: Any) -> dict[str, Any]:
        # A row that fails validation on confirm undoes the whole import.
        return {**super().get_import_data_kwargs(**kwargs), "rollback_on_validation_errors": True}

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Observations are facts: a wrong one is withdrawn, never edited.
        return obj is None and super().has_change_permission(request, obj)

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        initial = dict(super().get_changeform_initial_data(request))
        return {**initial, "seen_price_change_id": price_change_latest_id()}

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        try:
            return super().add_view(request, form_url, extra_context)
        except StalePriceEdit as stale:  # raised inside the admin's transaction: rolled back
            context = {
                **self.admin_site.each_context(request),
                "title": "Price changed meanwhile",
                "stale": stale,
                "opts": self.model._meta,
            }
            return TemplateResponse(
                request, "admin/catalog/stale_price_edit.html", context, status=409
            )

    def save_model(
        self,
        request: HttpRequest,
        obj: PriceObservation,
        form: ModelForm[PriceObservation],
        change: bool,
    ) -> None:
        price_observation_save(
            observation=obj,
            user=request.user,
            via=PriceChangeVia.ADMIN,
            seen_price_change_id=form.cleaned_data["seen_price_change_id"],
        )

    @admin.action(description="Withdraw selected observations (wrong prices)")
    def withdraw(self, request: HttpRequest, queryset: QuerySet[PriceObservation]) -> None:
        for observation in queryset.filter(withdrawn=False):
            price_observation_withdraw(
                observation=observation, reason="withdrawn in the admin", user=request.user,
                via=PriceChangeVia.ADMIN,
            )  # fmt: skip
        self.message_user(request, "Withdrawn; current prices recomputed.", messages.SUCCESS)


@admin.register(PriceChange)
class PriceChangeAdmin(ModelAdmin):
    list_display = ("changed_at", "part", "old_amount_usd", "new_amount_usd", "changed_by", "via")
    list_filter = ("via", "part__kind", "changed_at")
    search_fields = ("part__name", "changed_by__username")
    date_hierarchy = "changed_at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class BuildPartInline(TabularInline):
    model = BuildPart
    extra = 0
    autocomplete_fields = ("part",)


@admin.register(Build)
class BuildAdmin(ModelAdmin):
    list_display = ("name", "origin", "created_at")
    list_filter = ("origin",)
    search_fields = ("name", "slug")
    inlines = (BuildPartInline,)
    prepopulated_fields = {"slug": ("name",)}

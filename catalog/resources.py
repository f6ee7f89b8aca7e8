"""The price-list CSV format for the admin import (django-import-export).

Columns: part (the part's slug), amount, currency, condition, region (US, EU, UK or WW;
US when left out), vendor, source_url, observed_on (YYYY-MM-DD). Every row becomes a new
observation; nothing is updated in place, so the history is kept. Rows are saved through
catalog.services so that each change of a current price is logged with the importing user.
The admin and `manage.py prices_import` (catalog.price_lists) read CSV or JSON."""

from __future__ import annotations

from typing import Any

from import_export import fields, resources, widgets

from catalog.models import Part, PriceChangeVia, PriceObservation
from catalog.selectors import part_current_price
from catalog.services import price_observation_save

CSV_COLUMNS = (
    "part", "amount", "currency", "condition", "region", "vendor", "source_url", "observed_on",
)  # fmt: skip


class PartSlugWidget(widgets.ForeignKeyWidget):  # type: ignore[misc]
    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> Part | None:
        if not value:
            raise ValueError("part is empty: give the part's slug")
        try:
            part: Part | None = super().clean(value, row, **kwargs)
            return part
        except Part.DoesNotExist:
            raise ValueError(f"no part with slug {value!r}") from None


class PriceObservationResource(resources.ModelResource):  # type: ignore[misc]
    part = fields.Field(attribute="part", column_name="part", widget=PartSlugWidget(Part, "slug"))
    # Shown in the preview beside each row: the current price the row would replace.
    current_amount_usd = fields.Field(
        attribute="previous_amount_usd", column_name="current price before (USD)", readonly=True
    )

    class Meta:
        model = PriceObservation
        fields = (*CSV_COLUMNS, "current_amount_usd")
        import_id_fields: tuple[str, ...] = ()  # every row is a new observation
        clean_model_instances = True
        use_transactions = True
        skip_unchanged = False

    user: Any = None

    def before_import(self, dataset: Any, **kwargs: Any) -> None:
        # The admin passes the importing user to import_data; the change log records it.
        self.user = kwargs.get("user")

    def get_instance(self, instance_loader: Any, row: Any) -> None:
        return None

    def after_init_instance(
        self, instance: PriceObservation, new: bool, row: Any, **kwargs: Any
    ) -> None:
        part = Part.objects.filter(slug=row.get("part") or "").first()
        current = None if part is None else part_current_price(part=part)
        instance.previous_amount_usd = None if current is None else current.amount_usd  # type: ignore[attr-defined]

    def do_instance_save(self, instance: PriceObservation, is_create: bool) -> None:
        price_observation_save(observation=instance, user=self.user, via=PriceChangeVia.IMPORT)
        # The part's current price once this row is in (a dry run rolls it back after).
        current = part_current_price(part=instance.part)
        instance.current_after_usd = None if current is None else current.amount_usd  # type: ignore[attr-defined]

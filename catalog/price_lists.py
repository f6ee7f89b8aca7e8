"""Importing a price list (CSV or JSON with the columns of catalog.resources.CSV_COLUMNS)
from the command line: the same resource, checks and change log as the admin import. A dry
run validates every row and reports what the import would change, writing nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import tablib
from django.contrib.auth.models import User

from catalog.models import PriceObservation
from catalog.resources import PriceObservationResource

FORMATS = ("csv", "json")


@dataclass(frozen=True, slots=True)
class PriceListLine:
    """One row of a price list: the observation it adds, and its part's current price (USD)
    before and after it (equal when the row only adds history: older, or not in dollars)."""

    observation: PriceObservation
    current_before_usd: Decimal | None
    current_after_usd: Decimal | None


@dataclass(slots=True)
class PriceListImport:
    """What an import did (in a dry run: would do): each valid row in order, and each
    rejected row with its reason ("line N: field: message")."""

    dry_run: bool
    lines: list[PriceListLine] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def written(self) -> bool:
        return not self.dry_run and not self.errors


def _errors(result: Any) -> list[str]:
    invalid = [
        f"line {row.number}: {name}: {' '.join(str(m) for m in messages)}"
        for row in result.invalid_rows
        for name, messages in row.error_dict.items()
    ]
    failed = [
        f"line {number}: {error.error}"
        for number, errors in result.row_errors()
        for error in errors
    ]
    return invalid + failed


def _line(row: Any) -> PriceListLine:
    observation: PriceObservation = row.instance
    return PriceListLine(
        observation=observation,
        current_before_usd=getattr(observation, "previous_amount_usd", None),
        current_after_usd=getattr(observation, "current_after_usd", None),
    )


def price_list_import(
    *, text: str, fmt: str, dry_run: bool, user: User | None = None
) -> PriceListImport:
    """Import the price list in `text` (`fmt`: "csv" or "json") as new observations, all or
    nothing: a list with a rejected row writes nothing, and a dry run writes nothing at all.
    Each row is checked (and its effect on the current price found) in a transaction that is
    rolled back; only then, when every row passed, is the list imported."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    dataset = tablib.Dataset().load(text, format=fmt)
    check = PriceObservationResource().import_data(
        dataset, dry_run=True, user=user, retain_instance_in_row_result=True
    )
    outcome = PriceListImport(
        dry_run=dry_run, lines=[_line(row) for row in check.valid_rows()], errors=_errors(check)
    )
    if outcome.written:
        PriceObservationResource().import_data(dataset, dry_run=False, user=user)
    return outcome

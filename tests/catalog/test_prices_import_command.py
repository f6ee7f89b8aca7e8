"""manage.py prices_import: a price list (CSV or JSON) added as new observations through
the admin import's resource; --dry-run prints the diff and writes nothing; a list with a
rejected row writes nothing and says why."""

from __future__ import annotations

import json
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from catalog.models import PriceChange, PriceChangeVia, PriceObservation
from tests.catalog.factories import GpuFactory, PriceObservationFactory

HEADER = "part,amount,currency,condition,region,vendor,source_url,observed_on\n"
ROWS = (
    "rtx-4090,1650,USD,used,US,ebay,https://example.org/listing,2026-02-10\n"
    "rtx-5090,2500,EUR,refurbished,EU,a shop,,2026-02-11\n"
)
pytestmark = pytest.mark.django_db


@pytest.fixture
def gpus() -> None:
    PriceObservationFactory.create(part=GpuFactory.create(slug="rtx-4090"), amount=Decimal(1800))
    PriceObservationFactory.create(part=GpuFactory.create(slug="rtx-5090"), amount=Decimal(2900))


def _run(path: Path, *args: str) -> str:
    out = StringIO()
    call_command("prices_import", str(path), *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_a_dry_run_prints_the_diff_and_writes_nothing(gpus: None, tmp_path: Path) -> None:
    path = tmp_path / "prices.csv"
    path.write_text(HEADER + ROWS)

    out = _run(path, "--dry-run")

    assert "+ rtx-4090 1650 USD used US ebay 2026-02-10 (current 1800.00 USD -> 1650.00 USD)" in out
    assert "+ rtx-5090 2500 EUR refurbished EU a shop 2026-02-11 (history only" in out
    assert "would add 2 price observation(s)" in out
    assert PriceObservation.objects.count() == 2
    assert not PriceChange.objects.exists()


def test_an_import_adds_every_row_and_logs_the_changed_current_price(
    gpus: None, tmp_path: Path
) -> None:
    path = tmp_path / "prices.csv"
    path.write_text(HEADER + ROWS)

    out = _run(path)

    assert "added 2 price observation(s)" in out
    euro = PriceObservation.objects.get(part__slug="rtx-5090", currency="EUR")
    assert (euro.amount, euro.condition, euro.region) == (Decimal(2500), "refurbished", "EU")
    change = PriceChange.objects.get()
    assert (change.part.slug, change.new_amount_usd, change.via) == (
        "rtx-4090", Decimal(1650), PriceChangeVia.IMPORT,
    )  # fmt: skip


def test_a_json_price_list_reads_the_same_columns(gpus: None, tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps([
        {"part": "rtx-4090", "amount": "1600", "currency": "USD", "condition": "used",
         "vendor": "ebay", "source_url": "", "observed_on": "2026-02-12"},
    ]))  # fmt: skip

    out = _run(path)

    assert "+ rtx-4090 1600 USD used US ebay 2026-02-12 (current 1800.00 USD -> 1600.00 USD)" in out
    assert PriceObservation.objects.filter(amount=Decimal(1600), region="US").exists()


def test_a_rejected_row_writes_nothing_and_names_its_line(gpus: None, tmp_path: Path) -> None:
    path = tmp_path / "prices.csv"
    path.write_text(HEADER + ROWS + "no-such-part,100,USD,new,US,shop,,2026-02-10\n")

    with pytest.raises(CommandError, match="1 row\\(s\\) rejected: nothing was imported"):
        _run(path)

    assert PriceObservation.objects.count() == 2

"""The admin's price-list CSV import: a dry-run preview of every change and every
rejected row with its reason, then a confirm step; nothing is written before confirming
or when any row fails."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from catalog.models import PriceChange, PriceChangeVia, PriceObservation
from tests.catalog.factories import GpuFactory, PriceObservationFactory, UserFactory

IMPORT_URL = "/admin/catalog/priceobservation/import/"
CONFIRM_URL = "/admin/catalog/priceobservation/process_import/"
HEADER = "part,amount,currency,condition,vendor,source_url,observed_on\n"
CSV_FORMAT = "0"  # first entry of import-export's format list: csv
GOOD_ROWS = (
    "rtx-4090,1650,USD,used,ebay,https://example.org/listing,2026-02-10\n"
    "rtx-5090,2799.99,USD,new,microcenter,,2026-02-11\n"
)
BAD_ROWS = (
    "rtx-4090,1650,USD,used,ebay,,2026-02-10\n"
    "no-such-part,100,USD,new,shop,,2026-02-10\n"
    "rtx-5090,-5,USD,new,shop,,2026-02-10\n"
    "rtx-5090,100,USD,broken,shop,,2026-02-10\n"
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client: Client) -> Client:
    client.force_login(UserFactory.create(username="pricer", is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def gpus() -> None:
    PriceObservationFactory.create(part=GpuFactory.create(slug="rtx-4090"), amount=Decimal(1800))
    PriceObservationFactory.create(part=GpuFactory.create(slug="rtx-5090"), amount=Decimal(2900))


def preview(client: Client, rows: str) -> str:
    upload = SimpleUploadedFile("prices.csv", (HEADER + rows).encode())
    response = client.post(IMPORT_URL, {"format": CSV_FORMAT, "import_file": upload})
    assert response.status_code == 200
    return response.content.decode()


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def confirm_fields(html: str) -> dict[str, str]:
    """The hidden fields of the preview's confirm form."""
    fields = {}
    for tag in re.findall(r"<input[^>]*>", html):
        name = re.search(r'name="([^"]+)"', tag)
        if name and name.group(1) != "csrfmiddlewaretoken" and 'type="hidden"' in tag:
            value = re.search(r'value="([^"]*)"', tag)
            fields[name.group(1)] = value.group(1) if value else ""
    return {**fields, "confirm": "Confirm import"}


@pytest.mark.usefixtures("gpus")
def test_the_dry_run_writes_nothing(staff_client: Client) -> None:
    preview(staff_client, GOOD_ROWS)
    assert (PriceObservation.objects.count(), PriceChange.objects.count()) == (2, 0)


@pytest.mark.usefixtures("gpus")
def test_the_preview_shows_each_change_with_the_current_price_before(staff_client: Client) -> None:
    page = text(preview(staff_client, GOOD_ROWS))
    # A file without a region column imports with the default region, US.
    assert "rtx-4090 1650 USD used US ebay" in page
    assert "1800.00" in page  # the current price the new row replaces
    assert "2799.99" in page


@pytest.mark.usefixtures("gpus")
def test_confirming_imports_every_row_and_logs_each_change(staff_client: Client) -> None:
    page = preview(staff_client, GOOD_ROWS)
    response = staff_client.post(CONFIRM_URL, confirm_fields(page))
    assert response.status_code == 302
    changes = PriceChange.objects.order_by("new_amount_usd")
    rows = [(c.old_amount_usd, c.new_amount_usd, c.changed_by, c.via) for c in changes]
    pricer = User.objects.get(username="pricer")
    assert rows == [
        (Decimal(1800), Decimal(1650), pricer, PriceChangeVia.IMPORT),
        (Decimal(2900), Decimal("2799.99"), pricer, PriceChangeVia.IMPORT),
    ]
    assert PriceObservation.objects.count() == 4


@pytest.mark.usefixtures("gpus")
def test_the_preview_lists_every_rejected_row_with_its_reason(staff_client: Client) -> None:
    page = text(preview(staff_client, BAD_ROWS))
    assert "no part with slug 'no-such-part'" in page.replace("&#x27;", "'")
    assert "Ensure this value is greater than or equal to 0.01" in page
    assert "Value 'broken' is not a valid choice" in page.replace("&#x27;", "'")


@pytest.mark.usefixtures("gpus")
def test_a_file_with_a_bad_row_offers_no_confirm_and_writes_nothing(staff_client: Client) -> None:
    page = preview(staff_client, BAD_ROWS)
    assert 'name="import_file_name"' not in page
    assert (PriceObservation.objects.count(), PriceChange.objects.count()) == (2, 0)


@pytest.mark.usefixtures("gpus")
def test_a_non_staff_user_cannot_reach_the_import(client: Client) -> None:
    client.force_login(UserFactory.create(is_staff=False))
    response = client.get(IMPORT_URL)
    assert response.status_code == 302  # to the admin login

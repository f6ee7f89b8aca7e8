"""Optimistic concurrency on price edits: an edit made from a stale read is refused with
409 and changes nothing; the price-list import needs its own permission."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from rest_framework.test import APIClient

from catalog.models import Part, PriceChange, PriceChangeVia, PriceObservation
from catalog.services import price_observation_create
from tests.catalog.factories import (
    GpuFactory,
    PriceObservationFactory,
    UserFactory,
    pricing_staff,
)

pytestmark = pytest.mark.django_db
ADD_URL = "/admin/catalog/priceobservation/add/"
IMPORT_URL = "/admin/catalog/priceobservation/import/"


@pytest.fixture
def admin_client(client: Client) -> Client:
    client.force_login(UserFactory.create(is_staff=True, is_superuser=True))
    return client


def seen_id(page: str) -> int:
    """The hidden `seen_price_change_id` the add form was rendered with."""
    tag = re.search(r'<input[^>]*name="seen_price_change_id"[^>]*>', page)
    assert tag is not None, "the add form carries the price-change id it was opened at"
    value = re.search(r'value="(\d+)"', tag.group(0))
    assert value is not None
    return int(value.group(1))


def add_form(part_id: int, amount: str, seen: int) -> dict[str, object]:
    return {
        "part": part_id, "amount": amount, "currency": "USD", "condition": "new", "region": "US",
        "vendor": "shop", "source_url": "", "observed_on": "2026-11-20",
        "seen_price_change_id": seen,
    }  # fmt: skip


def someone_else_reprices(part: Part, amount: int) -> PriceChange:
    price_observation_create(
        part=part, amount=Decimal(amount), observed_on=date(2026, 11, 20), vendor="other shop",
        via=PriceChangeVia.SERVICE,
    )  # fmt: skip
    return PriceChange.objects.latest("pk")


def test_an_admin_edit_opened_before_another_change_is_refused_with_409(
    admin_client: Client,
) -> None:
    gpu = GpuFactory.create()
    PriceObservationFactory.create(part=gpu, amount=Decimal(1800), observed_on="2026-01-01")
    seen = seen_id(admin_client.get(ADD_URL).content.decode())
    latest = someone_else_reprices(gpu, 1700)  # after the form was opened
    before = (PriceObservation.objects.count(), PriceChange.objects.count())

    response = admin_client.post(ADD_URL, add_form(gpu.pk, "1650", seen))

    assert response.status_code == 409
    page = response.content.decode()
    assert "changed after you read it" in page
    assert f"change #{latest.pk}" in page
    assert (PriceObservation.objects.count(), PriceChange.objects.count()) == before
    assert PriceChange.objects.latest("pk").new_amount_usd == Decimal(1700)


def test_an_admin_edit_from_a_fresh_form_is_saved_and_logged(admin_client: Client) -> None:
    gpu = GpuFactory.create()
    PriceObservationFactory.create(part=gpu, amount=Decimal(1800), observed_on="2026-01-01")
    someone_else_reprices(gpu, 1700)
    seen = seen_id(admin_client.get(ADD_URL).content.decode())

    response = admin_client.post(ADD_URL, add_form(gpu.pk, "1650", seen))

    assert response.status_code == 302
    change = PriceChange.objects.latest("pk")
    assert (change.old_amount_usd, change.new_amount_usd) == (Decimal(1700), Decimal(1650))
    assert change.via == PriceChangeVia.ADMIN


def test_a_change_to_another_part_does_not_make_the_edit_stale(admin_client: Client) -> None:
    gpu, other = GpuFactory.create(), GpuFactory.create()
    seen = seen_id(admin_client.get(ADD_URL).content.decode())
    someone_else_reprices(other, 999)

    response = admin_client.post(ADD_URL, add_form(gpu.pk, "1650", seen))

    assert response.status_code == 302
    assert PriceObservation.objects.filter(part=gpu).count() == 1


def test_an_admin_post_without_the_seen_id_is_a_form_error_and_saves_nothing(
    admin_client: Client,
) -> None:
    gpu = GpuFactory.create()
    form = add_form(gpu.pk, "1650", 0)
    del form["seen_price_change_id"]

    response = admin_client.post(ADD_URL, form)

    assert response.status_code == 200
    assert "seen_price_change_id" in response.content.decode()
    assert PriceObservation.objects.count() == 0


def test_a_stale_api_post_is_409_with_the_current_price_and_changes_nothing() -> None:
    gpu = GpuFactory.create(slug="rtx-4090")
    PriceObservationFactory.create(part=gpu, amount=Decimal(1800), observed_on="2026-01-01")
    client = APIClient()
    client.force_authenticate(pricing_staff())
    seen = int(client.get("/api/prices")["X-Price-Change-Id"])
    latest = someone_else_reprices(gpu, 1700)
    body = {"part": "rtx-4090", "amount": "1650", "vendor": "shop", "observed_on": "2026-11-20",
            "seen_price_change_id": seen}  # fmt: skip

    stale = client.post("/api/prices", body, format="json")

    assert stale.status_code == 409
    assert stale.json()["price_change_id"] == latest.pk
    assert stale.json()["current_price_usd"] == "1700.00"
    assert PriceObservation.objects.filter(part=gpu).count() == 2
    fresh = client.post("/api/prices", {**body, "seen_price_change_id": latest.pk}, format="json")
    assert fresh.status_code == 201


@pytest.mark.parametrize(
    ("superuser", "granted", "expected"),
    [
        pytest.param(False, False, 403, id="staff-without-the-import-permission"),
        pytest.param(False, True, 200, id="staff-with-catalog.import_priceobservation"),
        pytest.param(True, False, 200, id="superuser"),
    ],
)
def test_the_price_list_import_needs_its_own_permission(
    client: Client, superuser: bool, granted: bool, expected: int
) -> None:
    user = UserFactory.create(is_staff=True, is_superuser=superuser)
    # Every other price permission: staff who may add and view prices still cannot import.
    user.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="catalog", codename__endswith="priceobservation"
        ).exclude(codename="import_priceobservation")
    )
    if granted:
        user.user_permissions.add(Permission.objects.get(codename="import_priceobservation"))
    client.force_login(user)

    assert client.get(IMPORT_URL).status_code == expected
    changelist = client.get("/admin/catalog/priceobservation/").content.decode()
    assert (IMPORT_URL in changelist) == (expected == 200)

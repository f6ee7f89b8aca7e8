"""POST /api/prices: staff scripts add observations with a token; anyone else gets 401
or 403 and nothing changes."""

from __future__ import annotations

from decimal import Decimal

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from catalog.models import PriceChange, PriceObservation
from tests.catalog.factories import (
    GpuFactory,
    PriceObservationFactory,
    UserFactory,
    pricing_staff,
)

URL = "/api/prices"
BODY = {"part": "rtx-4090", "amount": "1650.00", "condition": "used", "vendor": "ebay",
        "observed_on": "2026-02-10"}  # fmt: skip

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def gpu() -> None:
    PriceObservationFactory.create(part=GpuFactory.create(slug="rtx-4090"), amount=Decimal(1800))


def token_client(*, is_staff: bool) -> APIClient:
    """A token of a pricing staff account, or of an ordinary user."""
    client = APIClient()
    token = Token.objects.create(user=pricing_staff() if is_staff else UserFactory.create())
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def nothing_changed() -> bool:
    return PriceObservation.objects.count() == 1 and not PriceChange.objects.exists()


def test_an_anonymous_post_is_401_and_changes_nothing() -> None:
    response = APIClient().post(URL, BODY, format="json")
    assert response.status_code == 401
    assert nothing_changed()


def test_a_bad_token_is_401_and_changes_nothing() -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    assert client.post(URL, BODY, format="json").status_code == 401
    assert nothing_changed()


def test_a_non_staff_token_is_403_and_changes_nothing() -> None:
    response = token_client(is_staff=False).post(URL, BODY, format="json")
    assert response.status_code == 403
    assert nothing_changed()


def test_staff_without_the_add_price_permission_get_403_as_in_the_admin() -> None:
    client = APIClient()
    token = Token.objects.create(user=UserFactory.create(is_staff=True))
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = client.post(URL, BODY, format="json")
    assert response.status_code == 403
    assert nothing_changed()


def test_a_staff_token_adds_the_observation_and_logs_the_change() -> None:
    response = token_client(is_staff=True).post(URL, BODY, format="json")
    assert response.status_code == 201
    assert response.json()["amount"] == "1650.00"
    change = PriceChange.objects.get()
    assert (change.old_amount_usd, change.new_amount_usd, change.via) == (
        Decimal(1800), Decimal(1650), "api",
    )  # fmt: skip


def test_a_staff_post_for_an_unknown_part_is_400_naming_the_field() -> None:
    response = token_client(is_staff=True).post(URL, {**BODY, "part": "nope"}, format="json")
    assert response.status_code == 400
    assert "part" in response.json()["errors"]
    assert nothing_changed()


def test_a_staff_post_with_a_zero_amount_is_400() -> None:
    response = token_client(is_staff=True).post(URL, {**BODY, "amount": "0"}, format="json")
    assert response.status_code == 400
    assert "amount" in response.json()["errors"]
    assert nothing_changed()


@pytest.mark.parametrize(
    ("field", "text"), [("part", "rtx-4090\x00"), ("vendor", "e\x00bay"), ("vendor", "ebay\x1b")]
)
def test_control_characters_in_text_are_a_400_naming_the_field(field: str, text: str) -> None:
    response = token_client(is_staff=True).post(URL, {**BODY, field: text}, format="json")
    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert "control characters" in response.json()["errors"][field]
    assert nothing_changed()

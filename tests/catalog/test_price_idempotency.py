"""POST /api/prices with an Idempotency-Key: a client's retry gets the first answer and writes
nothing more; the key with another body is a 422; keys are per account."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from catalog.models import PriceChange, PriceObservation
from tests.catalog.factories import GpuFactory, PriceObservationFactory, pricing_staff

URL = "/api/prices"
BODY = {"part": "rtx-4090", "amount": "1650.00", "vendor": "ebay", "observed_on": "2026-11-20"}

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def gpu() -> None:
    PriceObservationFactory.create(part=GpuFactory.create(slug="rtx-4090"), amount=Decimal(1800))


def staff_client() -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=pricing_staff()).key}")
    return client


def test_a_retry_with_the_same_key_gets_the_first_answer_and_writes_nothing() -> None:
    client = staff_client()
    first = client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="try-1")
    retry = client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="try-1")

    assert (first.status_code, retry.status_code) == (201, 201)
    assert retry.json() == first.json()
    assert PriceObservation.objects.count() == 2  # the fixture's and one new
    assert PriceChange.objects.count() == 1


def test_the_same_key_with_another_body_is_a_422_and_writes_nothing() -> None:
    client = staff_client()
    client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="try-1")

    other = client.post(
        URL, {**BODY, "amount": "1500.00"}, format="json", HTTP_IDEMPOTENCY_KEY="try-1"
    )

    assert other.status_code == 422
    assert "another body" in other.json()["detail"]
    assert PriceObservation.objects.count() == 2


def test_keys_belong_to_their_account() -> None:
    one = staff_client().post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="k")
    two = staff_client().post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="k")

    assert (one.status_code, two.status_code) == (201, 201)
    assert one.json()["id"] != two.json()["id"]


def test_without_a_key_each_post_writes() -> None:
    client = staff_client()
    client.post(URL, BODY, format="json")
    client.post(URL, BODY, format="json")

    assert PriceObservation.objects.count() == 3


def test_an_overlong_key_is_a_400_naming_the_header() -> None:
    response = staff_client().post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="k" * 201)

    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["errors"]
    assert PriceObservation.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_retries_with_one_key_write_once() -> None:
    """Each thread has its own database connection, as gunicorn's threads do: the unique key
    lets one write commit; the others roll theirs back and answer what it stored."""
    clients = 6
    token = Token.objects.create(user=pricing_staff()).key
    start = threading.Barrier(clients)

    def post(_: int) -> tuple[int, int]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        start.wait()
        try:
            response = client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="same")
        finally:
            connection.close()
        return response.status_code, response.json()["id"]

    with ThreadPoolExecutor(max_workers=clients) as pool:
        answers = list(pool.map(post, range(clients)))

    assert {status for status, _ in answers} == {201}
    assert len({observation for _, observation in answers}) == 1
    assert PriceObservation.objects.count() == 2

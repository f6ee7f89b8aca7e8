"""A staff price change while Redis (the broker) is really down: the write completes (201, the
observation and its change log) instead of answering 500 after its commit. Nothing waits on
the lost message: rankings read prices when they are read."""

import time
from decimal import Decimal

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from catalog.models import Part, PriceChange, PriceObservation
from tests.catalog.factories import pricing_staff
from tests.reliability.conftest import RedisServer

SEND_GIVES_UP_WITHIN_S = 30.0


@pytest.mark.services
@pytest.mark.usefixtures("catalog_committed")
def test_a_price_posted_while_the_broker_is_down_is_stored_whole(own_redis: RedisServer) -> None:
    part = Part.objects.get(slug="rtx-4090")
    before = PriceObservation.objects.filter(part=part).count()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=pricing_staff()).key}")
    body = {"part": part.slug, "amount": "1234.00", "vendor": "shop", "observed_on": "2026-11-23"}

    own_redis.kill()
    started = time.monotonic()
    response = client.post("/api/prices", body, format="json")
    took_s = time.monotonic() - started

    assert response.status_code == 201, response.content
    assert PriceObservation.objects.filter(part=part).count() == before + 1
    change = PriceChange.objects.filter(part=part).latest("pk")
    assert change.new_amount_usd == Decimal("1234.00")
    assert took_s < SEND_GIVES_UP_WITHIN_S

"""Writes while Redis (the broker) is really down complete whole or not at all. A staff price
change completes (201, the observation and its change log) instead of answering 500 after
its commit; the rankings refresh it owes stays in the outbox (the change row) and the
periodic sweep sends it once the broker is back, once. A new ranking queues nothing and
answers 503 with Retry-After; asked again once the broker is back, it is queued and its
start message is sent."""

import time
from decimal import Decimal

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from catalog.models import Part, PriceChange, PriceObservation
from simulator.models import UNFINISHED_STATUSES, RunStatus, SimulationRun
from simulator.tasks import runs_sweep
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
    assert change.rankings_refresh_sent_at is None  # owed: the outbox keeps it
    assert took_s < SEND_GIVES_UP_WITHIN_S

    own_redis.start()
    swept = runs_sweep.apply().get()  # what beat runs every RUN_SWEEP_INTERVAL_S
    again = runs_sweep.apply().get()

    assert swept["price_changes_announced"] == 1
    assert again["price_changes_announced"] == 0  # sent once, not at every sweep
    change.refresh_from_db()
    assert change.rankings_refresh_sent_at is not None
    queued = own_redis.client().lrange("celery", 0, -1)
    assert len([m for m in queued if b"simulator.rankings_refresh_defaults" in m]) == 1


@pytest.mark.services
@pytest.mark.usefixtures("catalog_committed")
def test_a_price_posted_while_the_broker_is_up_sends_its_refresh_after_the_commit(
    own_redis: RedisServer,
) -> None:
    part = Part.objects.get(slug="rtx-4090")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=pricing_staff()).key}")
    body = {"part": part.slug, "amount": "1111.00", "vendor": "shop", "observed_on": "2026-11-23"}

    assert client.post("/api/prices", body, format="json").status_code == 201

    change = PriceChange.objects.filter(part=part).latest("pk")
    assert change.rankings_refresh_sent_at is not None
    queued = own_redis.client().lrange("celery", 0, -1)
    assert len([m for m in queued if b"simulator.rankings_refresh_defaults" in m]) == 1


RANKING = {
    "workload": {"model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": 2048},
    "ranking": {"gpu_count_max": 1, "storage_tiers": ["gen4_x1"]},
}


@pytest.mark.services
@pytest.mark.usefixtures("catalog_committed")
def test_a_ranking_asked_for_while_the_broker_is_down_queues_nothing_and_says_when_to_retry(
    own_redis: RedisServer,
) -> None:
    client = APIClient()
    own_redis.kill()

    refused = client.post("/api/simulate", RANKING, format="json")

    assert refused.status_code == 503
    assert int(refused["Retry-After"]) > 0
    assert "nothing was queued" in refused.json()["detail"]
    assert not SimulationRun.objects.filter(status__in=UNFINISHED_STATUSES).exists()

    own_redis.start()
    accepted = client.post("/api/simulate", RANKING, format="json")

    assert accepted.status_code == 202
    queued = SimulationRun.objects.get(pk=accepted.json()["id"])
    assert queued.status == RunStatus.QUEUED
    assert own_redis.client().llen("celery") == 1  # its start message is in the queue

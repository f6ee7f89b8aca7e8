"""Requests while Redis as the cache (CACHE_URL) is really down: a write either completes
whole or answers 503 with Retry-After and writes nothing; nothing answers 500, and the site
recovers by itself once Redis is back.

Each test has a broker of its own (own_redis): the rankings it queues and the refresh a price
post sends reach no worker of the session, so nothing reads the tables while the test's
teardown truncates them (a deadlock in PostgreSQL otherwise)."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from catalog.models import Part, PriceObservation
from planner_site.middleware import CACHE_DOWN_MESSAGE, RETRY_AFTER_S
from simulator.models import SimulationRun
from tests.catalog.factories import pricing_staff
from tests.reliability.conftest import RedisServer, free_port

RTX_4090 = {"name": "RTX 4090", "vram_gb": 24, "bf16_tflops": 165, "pcie_gbps": 22}
SINGLE = {
    "workload": {"model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": 1024},
    "hardware": {"gpu": RTX_4090, "ram_gb": 64},
}
RANKING = {
    "workload": {"model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": 2048},
    "ranking": {"gpu_count_max": 1, "storage_tiers": ["gen4_x1"]},
}


@pytest.fixture
def cache_redis(tmp_path: Path, settings: Any) -> Iterator[RedisServer]:
    """Django's cache on a redis-server of the test's own, as CACHE_URL sets it up."""
    server = RedisServer(port=free_port(), folder=tmp_path / "cache")
    server.folder.mkdir()
    server.start()
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": server.url,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    try:
        yield server
    finally:
        if server.proc is not None:
            server.kill()


def _assert_refused(response: Any) -> None:
    assert response.status_code == 503, response.content
    assert response["Retry-After"] == str(RETRY_AFTER_S)
    assert response.json() == {"detail": CACHE_DOWN_MESSAGE}


@pytest.mark.services
@pytest.mark.usefixtures("own_redis", "catalog_committed")
def test_simulations_while_the_cache_is_down_are_503s_that_write_nothing(
    cache_redis: RedisServer,
) -> None:
    signed_in = APIClient()
    signed_in.force_authenticate(get_user_model().objects.create_user("analyst"))
    cache_redis.kill()

    _assert_refused(APIClient().post("/api/simulate", SINGLE, format="json"))  # the throttle
    _assert_refused(signed_in.post("/api/simulate", RANKING, format="json"))  # its plan count
    assert not SimulationRun.objects.exists()

    cache_redis.start()
    assert APIClient().post("/api/simulate", SINGLE, format="json").status_code == 200
    assert signed_in.post("/api/simulate", RANKING, format="json").status_code in (200, 202)


@pytest.mark.services
@pytest.mark.usefixtures("own_redis", "catalog_committed")
def test_a_price_posted_while_the_cache_is_down_is_stored_whole(
    cache_redis: RedisServer,
) -> None:
    part = Part.objects.get(slug="rtx-4090")
    before = PriceObservation.objects.filter(part=part).count()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=pricing_staff()).key}")
    body = {"part": part.slug, "amount": "1234.00", "vendor": "shop", "observed_on": "2026-11-23"}
    cache_redis.kill()

    response = client.post("/api/prices", body, format="json")

    assert response.status_code == 201, response.content
    assert PriceObservation.objects.filter(part=part).count() == before + 1


@pytest.mark.services
@pytest.mark.usefixtures("own_redis", "catalog_committed")
def test_pages_and_reads_while_the_cache_is_down_answer_503_not_500(
    cache_redis: RedisServer,
) -> None:
    cache_redis.kill()

    page = APIClient().get("/simulate/")
    rankings = APIClient().get("/api/rankings")

    assert page.status_code == 503
    assert page["Retry-After"] == str(RETRY_AFTER_S)
    assert "Temporarily unavailable" in page.content.decode()
    _assert_refused(rankings)

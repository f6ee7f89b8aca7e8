"""GET /api/rankings of a finished ranking is answered again without re-reading the ranking
(megabytes of JSON): from the web process for half a second, from the shared cache (per
price epoch) after that; a price change is a new cache key, never served stale."""

from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from catalog.models import Part
from catalog.services import price_observation_create
from simulator import apis
from tests.simulator.test_rankings_e2e import _follow

URL = "/api/rankings?budget=8000"

pytestmark = pytest.mark.services


@pytest.fixture
def finished_default_ranking(catalog_committed: None, celery_worker_process: str) -> None:
    client = APIClient()
    queued = client.get(URL)
    assert queued.status_code == 202
    _follow(client, queued.json()["url"])


def _run_reads(queries: Any) -> list[str]:
    return [q["sql"] for q in queries if 'FROM "simulator_simulationrun"' in q["sql"]]


def test_a_read_repeated_at_once_touches_no_database(
    finished_default_ranking: None,
) -> None:
    client = APIClient()
    first = client.get(URL)

    with CaptureQueriesContext(connection) as queries:
        again = client.get(URL)

    assert first.status_code == again.status_code == 200
    assert again.content == first.content
    assert len(queries) == 0


def test_another_web_process_answers_without_reading_the_rankings_result(
    finished_default_ranking: None,
) -> None:
    client = APIClient()
    first = client.get(URL)
    apis._recent_answers.clear()  # what a second web process starts with

    with CaptureQueriesContext(connection) as queries:
        again = client.get(URL)

    assert again.content == first.content
    assert _run_reads(queries)  # the run is still looked up: new parts make a new one
    assert all('"result"' not in sql for sql in _run_reads(queries))


def test_a_price_change_is_answered_at_the_new_price_by_every_web_process(
    finished_default_ranking: None,
) -> None:
    client = APIClient()
    before = client.get(URL).json()
    row = before["rows"][0]
    gpu = next(part for part in row["parts"] if part["kind"] == "gpu")
    price_observation_create(
        part=Part.objects.get(pk=gpu["part_id"]),
        amount=Decimal(str(gpu["unit_usd"])) - 1,
        observed_on=date.today(),
        vendor="test listing",
    )
    apis._recent_answers.clear()  # a web process that has not answered since

    after = client.get(URL).json()

    repriced = next(r for r in after["rows"] if r["signature"] == row["signature"])
    assert repriced["price_usd"] == row["price_usd"] - gpu["quantity"]
    assert after["run_url"] == before["run_url"]

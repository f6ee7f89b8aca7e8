"""GET /api/rankings of a finished ranking is answered again without re-reading the ranking
(megabytes of JSON): from the web process for a second, from the shared cache after that."""

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

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


def test_a_read_repeated_within_a_second_touches_no_database(
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
    assert _run_reads(queries)  # the run is still looked up: new prices make a new one
    assert all('"result"' not in sql for sql in _run_reads(queries))

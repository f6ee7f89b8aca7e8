"""POST /api/simulate with an Idempotency-Key: a client's retry is answered with the run its
first request got and writes nothing; the key with another body is a 422; a refused request
keeps no key, so the client may retry it with the same one. On the real PostgreSQL."""

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework.test import APIClient

from simulator.models import SimulatePostKey, SimulationRun

RTX_4090 = {"name": "RTX 4090", "vram_gb": 24, "bf16_tflops": 165, "pcie_gbps": 22}
SINGLE = {
    "workload": {"model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": 1024},
    "hardware": {"gpu": RTX_4090, "ram_gb": 64},
}
RANKING = {
    "workload": {"model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": 2048},
    "ranking": {"gpu_count_max": 1, "storage_tiers": ["gen4_x1"]},
}


def _post(body: object, key: str, client: APIClient | None = None) -> Any:
    return (client or APIClient()).post(
        "/api/simulate", body, format="json", HTTP_IDEMPOTENCY_KEY=key
    )


@pytest.mark.django_db
def test_a_retried_single_simulation_gets_the_first_run_and_writes_nothing() -> None:
    first = _post(SINGLE, "key-1")
    retry = _post(SINGLE, "key-1")

    assert first.status_code == retry.status_code == 200
    assert retry.json()["id"] == first.json()["id"]
    assert retry.json()["result"] == first.json()["result"]
    assert SimulationRun.objects.count() == 1
    assert SimulatePostKey.objects.count() == 1


def test_a_retried_ranking_gets_the_same_queued_run(catalog: None) -> None:
    first = _post(RANKING, "rank-1")
    retry = _post(RANKING, "rank-1")

    assert first.status_code == retry.status_code == 202
    assert retry.json()["id"] == first.json()["id"]
    assert retry["Location"] == first["Location"]
    assert SimulationRun.objects.filter(kind="ranking").count() == 1


@pytest.mark.django_db
def test_the_key_with_another_body_is_a_422_and_writes_nothing() -> None:
    assert _post(SINGLE, "key-2").status_code == 200
    other = {**SINGLE, "workload": {**SINGLE["workload"], "seq_len": 2048}}

    reused = _post(other, "key-2")

    assert reused.status_code == 422
    assert "'key-2' was used before with another body" in reused.json()["detail"]
    assert SimulationRun.objects.count() == 1


@pytest.mark.django_db
def test_a_refused_request_keeps_no_key_and_may_be_retried_with_it() -> None:
    bad = {**SINGLE, "workload": {**SINGLE["workload"], "seq_len": -1}}

    assert _post(bad, "key-3").status_code == 400
    assert not SimulatePostKey.objects.exists()
    assert _post(SINGLE, "key-3").status_code == 200


@pytest.mark.django_db
def test_keys_are_per_client() -> None:
    analyst = APIClient()
    analyst.force_authenticate(get_user_model().objects.create_user("analyst"))
    other = {**SINGLE, "workload": {**SINGLE["workload"], "seq_len": 2048}}

    assert _post(SINGLE, "shared", analyst).status_code == 200
    assert _post(other, "shared").status_code == 200  # an anonymous client's own key

    assert set(SimulatePostKey.objects.values_list("client", flat=True)) == {
        f"user:{get_user_model().objects.get().pk}",
        "anon:127.0.0.1",
    }


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["", "x" * 201, "tab\there"])
def test_a_malformed_key_is_a_400_naming_the_header(key: str) -> None:
    response = _post(SINGLE, key)

    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["errors"]
    assert not SimulationRun.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_concurrent_retries_with_one_key_store_one_run_and_one_key(settings: Any) -> None:
    settings.SIMULATE_CONCURRENCY = 4  # let them race inside the service, not in the queue

    def post(_: int) -> tuple[int, str]:
        try:
            response = _post(SINGLE, "race")
            return response.status_code, response.json()["id"]
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(post, range(8)))

    assert {status for status, _ in answers} == {200}
    assert len({run_id for _, run_id in answers}) == 1
    assert SimulationRun.objects.count() == 1
    assert SimulatePostKey.objects.count() == 1

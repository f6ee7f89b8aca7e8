"""Inference rankings end to end: API → Redis broker → real worker process → PostgreSQL →
API, JSON-safe rows through Celery's serializer."""

import pytest
from rest_framework.test import APIClient

from tests.simulator.test_rankings_e2e import _follow

FLASH = {"kind": "infer", "model": "glm-4.7-flash", "quant": "IQ5_K", "context": 32768}
ROW_FIELDS = {
    "decode_tokens_per_s", "prefill_tokens_per_s", "usd_per_decode_tokens_per_s",
    "max_context", "placement", "bottleneck", "price_usd", "parts", "name", "pareto", "rank",
}  # fmt: skip


@pytest.mark.services
def test_an_inference_ranking_runs_on_a_worker_and_ranks_by_dollars_per_decode_speed(
    catalog_committed: None, celery_worker_process: str
) -> None:
    client = APIClient()
    # The Mac mini's newest price is a published $2,400: ranked by default.
    body = {"workload": FLASH, "ranking": {"budget_usd": 5000}}

    response = client.post("/api/simulate", body, format="json")

    assert response.status_code == 202
    final = _follow(client, response["Location"])[-1]
    assert final["status"] == "done", final["error"]
    rows = final["result"]["rows"]
    assert rows
    assert set(rows[0]) >= ROW_FIELDS
    assert all(row["price_usd"] <= 5000 for row in rows)
    usd_per_speed = [row["usd_per_decode_tokens_per_s"] for row in rows]
    assert usd_per_speed == sorted(usd_per_speed)
    assert any(row["pareto"] for row in rows)
    placements = {row["name"]: row["placement"] for row in rows}
    assert placements["Mac mini M4 Pro 64GB"] == "unified"
    assert "gpu" in placements.values()


@pytest.mark.services
def test_get_rankings_of_kind_infer_answers_the_default_inference_ranking(
    catalog_committed: None, celery_worker_process: str
) -> None:
    client = APIClient()
    url = "/api/rankings?kind=infer&model=glm-4.7-flash&quant=Q4_K_M&context=32768"

    queued = client.get(url)
    assert queued.status_code == 202
    _follow(client, queued.json()["url"])
    done = client.get(f"{url}&budget=3000&limit=3")

    assert done.status_code == 200
    body = done.json()
    assert body["workload"]["kind"] == "infer"
    assert body["sort"] == "usd_per_decode_tokens_per_s"
    assert len(body["rows"]) == 3
    assert all(row["price_usd"] <= 3000 for row in body["rows"])
    assert [row["rank"] for row in body["rows"]] == [1, 2, 3]

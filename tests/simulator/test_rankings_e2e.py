"""Rankings end to end: API → Redis broker → real worker process → PostgreSQL → API."""

import time
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from celery import current_app
from rest_framework.test import APIClient

from catalog.models import Part
from catalog.services import price_observation_create
from simulator.models import SimulatedBuild, SimulationRun
from simulator.services import ranking_views, rankings
from tests.simulator.freshness import read_once_stale

RUN_TIMEOUT_S = 120.0
POLL_S = 0.1
GLM = {"kind": "train", "model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": 1024}
SERVING = {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M", "context": 8192}


def _follow(client: APIClient, url: str) -> list[dict[str, Any]]:
    """Poll a run's URL until it is finished; every state seen, in order."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while time.monotonic() < deadline:
        body = client.get(url).json()
        if not seen or (body["status"], body["progress_pct"]) != (
            seen[-1]["status"],
            seen[-1]["progress_pct"],
        ):
            seen.append(body)
        if body["status"] in ("done", "failed"):
            return seen
        time.sleep(POLL_S)
    raise AssertionError(f"run did not finish; states seen: {[s['status'] for s in seen]}")


@pytest.mark.services
def test_a_queued_ranking_goes_queued_running_done_with_increasing_progress(
    catalog_committed: None, celery_worker_process: str
) -> None:
    client = APIClient()
    # Serving searches each build's placements one build at a time: seconds of work in
    # chunks of 150 (training runs a whole catalog on the vectorised path in under a second).
    # Not a default workload's context, so no stored ranking answers it at once.
    body = {"workload": SERVING, "ranking": {"budget_usd": 6000}}

    response = client.post("/api/simulate", body, format="json")

    assert response.status_code == 202
    assert response.json()["status"] == "queued"
    states = _follow(client, response["Location"])
    statuses = [s["status"] for s in states]
    progress = [s["progress_pct"] for s in states]
    assert statuses[-1] == "done", states[-1]["error"]
    assert statuses == sorted(statuses, key=["queued", "running", "done"].index)
    assert progress == sorted(progress)
    assert any(0 < p < 100 for p in progress), progress
    assert progress[-1] == 100
    final = states[-1]
    assert final["chunks_total"] > 1
    assert final["chunks_done"] == final["chunks_total"]
    rows = final["result"]["rows"]
    assert rows
    assert all(row["price_usd"] <= 6000 for row in rows)
    usd_per_speed = [row["usd_per_decode_tokens_per_s"] for row in rows]
    assert usd_per_speed == sorted(usd_per_speed)
    assert any(row["pareto"] for row in rows)


@pytest.mark.services
def test_identical_ranking_requests_reuse_the_stored_run(
    catalog_committed: None, celery_worker_process: str
) -> None:
    client = APIClient()
    body = {"workload": GLM, "ranking": {"gpu_count_max": 1}}

    first = client.post("/api/simulate", body, format="json").json()
    _follow(client, first["url"])
    second = client.post("/api/simulate", body, format="json")

    assert second.json()["id"] == first["id"]
    assert second.json()["status"] == "done"
    assert SimulationRun.objects.filter(kind="ranking").count() == 1


def _wait_for(predicate: Any, what: str) -> None:
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(POLL_S)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.services
def test_a_price_change_re_ranks_the_default_ranking_once_kept_answers_expire_nothing_simulated(
    catalog_committed: None, celery_worker_process: str
) -> None:
    client = APIClient()
    queued = client.get("/api/rankings")
    assert queued.status_code == 202
    _follow(client, queued.json()["url"])
    before = client.get("/api/rankings").json()
    assert before["prices_observed_on"] is not None  # the newest shipped price's date
    top = before["rows"][0]
    gpu_line = next(part for part in top["parts"] if part["kind"] == "gpu")
    runs, simulated = SimulationRun.objects.count(), SimulatedBuild.objects.count()
    assert runs == 1

    # The top build's GPU becomes ten times dearer: it must lose its place.
    changed = time.monotonic()
    price_observation_create(
        part=Part.objects.get(pk=gpu_line["part_id"]),
        amount=Decimal(str(gpu_line["unit_usd"] * 10)),
        observed_on=date.today(),
        vendor="test listing",
    )
    after = read_once_stale(changed, lambda: client.get("/api/rankings"))

    assert after.status_code == 200
    assert after.json()["rows"][0]["signature"] != top["signature"]
    body = after.json()
    assert body["run_url"] == before["run_url"]
    assert body["prices_observed_on"] == date.today().isoformat()
    run = SimulationRun.objects.get(pk=body["run_url"].rstrip("/").rsplit("/", 1)[-1])
    assert run.result is not None
    repriced = next(
        row
        for row in ranking_views.ranking_priced(result=run.result).rows
        if row["signature"] == top["signature"]
    )
    assert repriced["price_usd"] == pytest.approx(top["price_usd"] + 9 * gpu_line["unit_usd"])
    assert repriced["tokens_per_s"] == top["tokens_per_s"]
    # The price change's task queues only the default rankings missing for these parts;
    # this one is kept, and nothing of its workload is simulated again.
    _wait_for(
        lambda: SimulationRun.objects.filter(input__workload__quant="NVFP4").exists(),
        "the price change's task",
    )
    assert SimulationRun.objects.filter(input__workload__quant="NF4d+NF2e").count() == runs
    workload_hash = rankings.ranking_workload_hash(workload=run.input["workload"])
    assert SimulatedBuild.objects.filter(workload_hash=workload_hash).count() == simulated


@pytest.mark.services
def test_a_run_that_breaks_on_the_worker_fails_with_a_readable_error(
    catalog_committed: None, celery_worker_process: str
) -> None:
    # A ranking row whose stored input lost its ranking options: planning cannot work.
    run = SimulationRun.objects.create(
        kind="ranking", input={"workload": GLM}, input_hash="f" * 64, engine_version="test"
    )

    current_app.send_task("simulator.ranking_start", args=[str(run.pk)])
    _wait_for(lambda: SimulationRun.objects.get(pk=run.pk).is_finished, "the run to finish")

    run.refresh_from_db()
    assert run.status == "failed"
    assert run.error == "KeyError: 'ranking'"
    assert run.finished_at is not None

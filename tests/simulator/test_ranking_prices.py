"""Rankings keep prices apart from physics: simulated figures are stored once per (engine
version, workload, hardware) and shared by every ranking; prices are joined when a ranking
is read. A price change shows at once with nothing simulated again; a new part or a new
engine version simulates only what is new."""

import time
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from catalog.models import Part, PriceChangeVia
from catalog.selectors import price_valid_list
from catalog.services import price_observation_create, price_observation_withdraw
from simulator.models import SimulatedBuild, SimulationRun
from simulator.services import ranking_views, rankings
from tests.catalog.factories import GpuFactory
from tests.simulator.conftest import ranking_finish_here
from tests.simulator.freshness import read_once_stale

# A small model on one-GPU builds with one storage tier: ~100 candidates, simulated in
# about a second.
SMALL = {"kind": "train", "model": "llama-3.1-8b", "quant": "NF4", "seq_len": 1024,
         "tokens": 50_000_000}  # fmt: skip
NARROW = {"gpu_count_max": 1, "storage_tiers": ["gen4_x1"]}
URL = "/api/rankings?model=llama-3.1-8b&quant=NF4"


def _ranking(**options: Any) -> SimulationRun:
    """The narrow ranking (with `options`), computed here."""
    body = {"workload": SMALL, "ranking": {**NARROW, **options}}
    return ranking_finish_here(rankings.ranking_create(body=body))


def _gpu_of(row: dict[str, Any]) -> dict[str, Any]:
    return next(part for part in row["parts"] if part["kind"] == "gpu")


def _row(body: dict[str, Any], signature: str) -> dict[str, Any]:
    return next(row for row in body["rows"] if row["signature"] == signature)


def _result(run: SimulationRun) -> dict[str, Any]:
    assert run.result is not None, run.error
    return dict(run.result)


def _plan(run: SimulationRun) -> dict[str, Any]:
    return dict(run.plan)


def _hardware_of(candidates: list[dict[str, Any]]) -> set[str]:
    return {candidate["hardware_signature"] for candidate in candidates}


@pytest.mark.django_db
def test_a_price_change_shows_in_get_rankings_once_kept_answers_expire_nothing_simulated_again(
    catalog: None, client: Client
) -> None:
    queued = client.get(URL)
    assert queued.status_code == 202
    ranking_finish_here(SimulationRun.objects.get(pk=queued.json()["id"]))
    before = client.get(URL).json()
    top_gpu = _gpu_of(before["rows"][0])
    # The best build with another GPU than the leader's: only rows above it keep their price.
    row = next(r for r in before["rows"] if _gpu_of(r)["part_id"] != top_gpu["part_id"])
    gpu = _gpu_of(row)
    runs, simulated = SimulationRun.objects.count(), SimulatedBuild.objects.count()

    # Its GPU becomes ten times cheaper: its price, $/(tok/s) and rank follow at once.
    new_unit = Decimal(str(gpu["unit_usd"])) / 10
    changed = time.monotonic()
    price_observation_create(
        part=Part.objects.get(pk=gpu["part_id"]),
        amount=new_unit,
        observed_on=date.today(),
        vendor="test listing",
    )
    after = read_once_stale(changed, lambda: client.get(URL).json())

    repriced = _row(after, row["signature"])
    # Only the GPU line changes: quantity × (new unit − old unit).
    change_usd = gpu["quantity"] * (float(new_unit) - gpu["unit_usd"])
    assert repriced["price_usd"] == pytest.approx(row["price_usd"] + change_usd, rel=1e-12)
    assert repriced["usd_per_tokens_per_s"] == repriced["price_usd"] / row["tokens_per_s"]
    assert repriced["tokens_per_s"] == row["tokens_per_s"]
    assert _gpu_of(after["rows"][0])["part_id"] == gpu["part_id"]  # its builds now lead
    usd_per_speed = [r["usd_per_tokens_per_s"] for r in after["rows"]]
    assert usd_per_speed == sorted(usd_per_speed)
    assert after["prices_observed_on"] == date.today().isoformat()
    assert after["run_url"] == before["run_url"]
    assert SimulationRun.objects.count() == runs
    assert SimulatedBuild.objects.count() == simulated


@pytest.mark.django_db
def test_a_new_gpu_simulates_only_the_candidates_it_makes(catalog: None) -> None:
    first = _ranking()
    simulated = SimulatedBuild.objects.count()
    assert simulated == len(_hardware_of(_plan(first)["candidates"]))

    gpu = GpuFactory.create(name="Test GPU 48G", vram_gb=48)
    price_observation_create(
        part=gpu, amount=Decimal(3000), observed_on=date.today(), vendor="test listing"
    )
    second = _ranking()

    assert second.pk != first.pk
    with_gpu = [
        c for c in _plan(second)["candidates"] if any(p["part_id"] == gpu.pk for p in c["parts"])
    ]
    assert with_gpu
    pending = [item for chunk in _plan(second)["pending_chunks"] for item in chunk]
    assert {item["hardware_signature"] for item in pending} == _hardware_of(with_gpu)
    assert SimulatedBuild.objects.count() - simulated == len(_hardware_of(with_gpu))
    assert len(_plan(second)["candidates"]) == len(_plan(first)["candidates"]) + len(with_gpu)
    assert {row["gpu_name"] for row in _result(second)["rows"]} >= {"Test GPU 48G"}


@pytest.mark.django_db
def test_a_part_without_a_current_price_leaves_its_builds_unranked_with_the_reason(
    catalog: None,
) -> None:
    run = _ranking()
    gpu = Part.objects.get(pk=_gpu_of(_result(run)["rows"][0])["part_id"])
    builds_with_gpu = {
        row["signature"]
        for row in _result(run)["rows"]
        if any(part["part_id"] == gpu.pk for part in row["parts"])
    }
    simulated = SimulatedBuild.objects.count()

    for observation in price_valid_list().filter(part=gpu):
        price_observation_withdraw(
            observation=observation, reason="listing pulled", user=None, via=PriceChangeVia.SERVICE
        )
    response = APIClient().post(
        "/api/simulate", {"workload": SMALL, "ranking": NARROW}, format="json"
    )

    body = response.json()
    assert body["id"] == str(run.pk)
    result = body["result"]
    # The shipped catalog also has parts priced only by the planner's estimate: their builds
    # are unpriced too, for that reason.
    with_gpu = [
        row for row in result["unpriced"] if any(p["part_id"] == gpu.pk for p in row["parts"])
    ]
    assert {row["signature"] for row in with_gpu} == builds_with_gpu
    assert all(row["price_usd"] is None for row in result["unpriced"])
    assert all(row["reason"].startswith(f"no current price for {gpu.name}") for row in with_gpu)
    assert not builds_with_gpu & {row["signature"] for row in result["rows"]}
    assert [row["rank"] for row in result["rows"]] == list(range(1, len(result["rows"]) + 1))
    assert f"{len(result['unpriced'])} more are not ranked" in result["explanation"]
    assert SimulatedBuild.objects.count() == simulated


@pytest.mark.django_db
def test_a_new_engine_version_simulates_every_candidate_again(
    catalog: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _ranking()
    simulated = SimulatedBuild.objects.count()

    monkeypatch.setattr(rankings, "ENGINE_VERSION", "next")
    second = _ranking()

    assert second.pk != first.pk
    assert second.engine_version == "next"
    assert SimulatedBuild.objects.filter(engine_version="next").count() == simulated
    assert SimulatedBuild.objects.count() == 2 * simulated
    assert len(_result(second)["rows"]) == len(_result(first)["rows"])


@pytest.mark.django_db
def test_rankings_that_differ_in_budget_or_order_share_what_was_simulated(
    catalog: None,
) -> None:
    first = _ranking(budget_usd=3000)
    simulated = SimulatedBuild.objects.count()

    second = _ranking(budget_usd=6000, sort="price")

    assert second.pk != first.pk
    assert second.status == "done"
    assert second.chunks_total == 0
    assert SimulatedBuild.objects.count() == simulated
    # The plan holds every candidate; the budget filters when the ranking is read.
    assert len(_plan(second)["candidates"]) == len(_plan(first)["candidates"])
    view = ranking_views.ranking_result_view(run=second)
    prices = [row["price_usd"] for row in view["rows"]]
    assert prices == sorted(prices)
    assert max(prices) <= 6000 < max(row["price_usd"] for row in _all_rows(second))


def _all_rows(run: SimulationRun) -> list[dict[str, Any]]:
    return ranking_views.ranking_priced(result=_result(run)).rows

"""Inference rankings, computed in process: the workload and options they take, the plan
with Apple systems, rows ranked by $ per (decode tokens/s) in each build's best placement."""

from typing import Any

import pytest
from rest_framework.test import APIClient

from simulator.engine.errors import EngineInputError
from simulator.models import SimulationRun
from simulator.ranking import sort_rows
from simulator.services.accuracy import ranking_rows_banded
from simulator.services.ranking_filters import RankingFilters
from simulator.services.ranking_views import ranking_priced
from simulator.services.rankings import (
    DEFAULT_WORKLOADS,
    ranking_body_normalize,
    ranking_infer_physics,
    ranking_plan,
)

FLASH = {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M", "context": 32768}


def _rows(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The ranking computed in process: each candidate's physics, priced now, within the
    budget, in the default order."""
    normalized = ranking_body_normalize(body)
    workload = normalized["workload"]
    rows = []
    for item in ranking_plan(options=normalized["ranking"]):
        try:
            rows.append(
                {**item, **ranking_infer_physics(hardware=item["hardware"], workload=workload)}
            )
        except EngineInputError:
            continue
    filters = RankingFilters.of_options(normalized["ranking"])
    priced = ranking_priced(result={"workload": workload, "rows": rows}, filters=filters).rows
    budget = normalized["ranking"]["budget_usd"]
    within = [row for row in priced if row["price_usd"] <= budget]
    return sort_rows(within, sort="usd_per_decode_tokens_per_s", kind="infer")


def test_an_inference_ranking_defaults_to_the_best_placement_and_the_cheapest_storage() -> None:
    normalized = ranking_body_normalize({"workload": FLASH})

    assert normalized["workload"]["placement"] == "auto"
    assert normalized["workload"]["context"] == 32768
    assert normalized["ranking"]["storage_tiers"] == ["gen4_x1"]
    assert normalized["ranking"]["sort"] == "usd_per_decode_tokens_per_s"
    assert normalized["ranking"]["systems"] is True


def test_an_inference_ranking_rejects_a_training_sort() -> None:
    with pytest.raises(EngineInputError) as error:
        ranking_body_normalize({"workload": FLASH, "ranking": {"sort": "hours"}})
    assert error.value.field == "ranking.sort"


def test_an_unknown_placement_names_the_field() -> None:
    with pytest.raises(EngineInputError) as error:
        ranking_body_normalize({"workload": {**FLASH, "placement": "disk"}})
    assert error.value.field == "workload.placement"


def test_the_training_defaults_keep_their_normalized_form() -> None:
    # No "systems" key and all storage tiers: stored training rankings keep their hashes.
    normalized = ranking_body_normalize({"workload": {"kind": "train", **DEFAULT_WORKLOADS[0]}})
    assert set(normalized["ranking"]) == {
        "budget_usd", "gpu_count_min", "gpu_count_max", "ram_gb_min", "storage_tiers", "sort",
    }  # fmt: skip
    assert len(normalized["ranking"]["storage_tiers"]) == 4


def test_a_default_inference_ranking_is_kept_precomputed() -> None:
    assert {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M", "context": 32768} in (
        DEFAULT_WORKLOADS
    )


@pytest.mark.django_db
def test_the_plan_holds_apple_systems_unless_turned_off(catalog: None) -> None:
    with_systems = ranking_body_normalize({"workload": FLASH})["ranking"]
    without = ranking_body_normalize({"workload": FLASH, "ranking": {"systems": False}})["ranking"]

    names = {item["name"] for item in ranking_plan(options=with_systems)}
    assert "Mac Studio M4 Max 128GB" in names
    assert "Mac Studio M4 Max 128GB" not in {i["name"] for i in ranking_plan(options=without)}


@pytest.mark.django_db
def test_rows_rank_by_dollars_per_decode_speed_in_each_builds_fastest_placement(
    catalog: None,
) -> None:
    rows = _rows({"workload": FLASH, "ranking": {"budget_usd": 6000}})

    assert rows
    usd_per_speed = [row["usd_per_decode_tokens_per_s"] for row in rows]
    assert usd_per_speed == sorted(usd_per_speed)
    for row in rows:
        speeds = [v for v in row["placements_tried"].values() if isinstance(v, float)]
        assert row["decode_tokens_per_s"] == max(speeds)
        assert row["max_context"] >= FLASH["context"]
        assert row["usd_per_decode_tokens_per_s"] == row["price_usd"] / row["decode_tokens_per_s"]
    assert {row["placement"] for row in rows} >= {"gpu", "unified"}
    assert any(row["pareto"] for row in rows)


@pytest.mark.django_db
def test_a_mac_serves_in_unified_memory(catalog: None) -> None:
    # The Mac mini's newest price is a published one ($2,400): ranked by default.
    options = {"budget_usd": 4000, "gpu_count_max": 1}
    rows = _rows({"workload": FLASH, "ranking": options})

    mac = next(row for row in rows if row["name"] == "Mac mini M4 Pro 64GB")
    assert (mac["placement"], mac["gpu_count"], mac["system_name"]) == (
        "unified", 0, "Mac mini M4 Pro 64GB",
    )  # fmt: skip
    assert set(mac["placements_tried"]) == {"unified"}


@pytest.mark.django_db
def test_a_dgx_spark_and_a_strix_halo_are_ranked_as_whole_systems_in_unified_memory(
    catalog: None,
) -> None:
    options = {"budget_usd": 6000, "gpu_count_max": 1}
    rows = {row["name"]: row for row in _rows({"workload": FLASH, "ranking": options})}

    for name in ("NVIDIA DGX Spark Founders Edition 128GB",
                 "Framework Desktop Ryzen AI Max+ 395 128GB"):  # fmt: skip
        assert rows[name]["placement"] == "unified"
        assert rows[name]["system_name"] == name
        assert rows[name]["decode_tokens_per_s"] > 0


@pytest.mark.django_db
def test_a_build_whose_gpus_cannot_hold_the_model_offloads_experts(catalog: None) -> None:
    # GLM-4.7 (355 B) at Q4_K_M is ~200 GB: one 24-32 GB GPU with 256 GB RAM must offload.
    workload = {**FLASH, "model": "glm-4.7", "context": 8192}
    # 256 GB platforms are priced only by the planner's estimates in the shipped catalog.
    options = {"gpu_count_max": 1, "ram_gb_min": 256, "budget_usd": 6000, "systems": False,
               "include_estimates": True}  # fmt: skip

    rows = _rows({"workload": workload, "ranking": options})

    assert rows
    hybrid = [row for row in rows if row["placement"] == "hybrid"]
    assert hybrid
    assert all(row["offload_from_layer"] is not None for row in hybrid)


@pytest.mark.django_db
def test_get_rankings_of_kind_infer_queues_the_inference_workload(catalog: None) -> None:
    response = APIClient().get(
        "/api/rankings?kind=infer&model=glm-4.7-flash&quant=IQ5_K&context=8192&budget=9000"
    )

    assert response.status_code == 202, response.json()
    run = SimulationRun.objects.get(pk=response.json()["id"])
    assert run.input["workload"]["kind"] == "infer"
    assert (run.input["workload"]["quant"], run.input["workload"]["context"]) == ("IQ5_K", 8192)
    assert run.input["workload"]["placement"] == "auto"


@pytest.mark.django_db
def test_get_rankings_rejects_a_training_quant_for_training(catalog: None) -> None:
    response = APIClient().get("/api/rankings?quant=Q4_K_M")

    assert response.status_code == 400
    assert "quant" in response.json()["errors"]


@pytest.mark.django_db
def test_get_rankings_rejects_a_training_sort_for_inference(catalog: None) -> None:
    response = APIClient().get("/api/rankings?kind=infer&sort=hours")

    assert response.status_code == 400
    assert "sort" in response.json()["errors"]


@pytest.mark.django_db
def test_a_model_too_big_for_one_system_is_ranked_on_a_cluster_of_them(catalog: None) -> None:
    # GLM-4.7 (355 B) at Q4_K_M is ~200 GB: no 128 GB system holds it; two of one, joined
    # by its own network port (llama.cpp RPC), do.
    workload = {**FLASH, "model": "glm-4.7", "context": 8192}
    options = {"budget_usd": 30000, "gpu_count_max": 1}
    rows = _rows({"workload": workload, "ranking": options})
    singles = {row["name"]: row for row in rows if row["machines"] == 1}
    clusters = [row for row in rows if row["machines"] > 1]

    pair = "2x Framework Desktop Ryzen AI Max+ 395 128GB | 5 Gbit/s network"
    assert pair in {row["name"] for row in clusters}
    assert "Framework Desktop Ryzen AI Max+ 395 128GB" not in singles
    for row in clusters:
        assert row["placement"] == "unified"
        assert row["decode_tokens_per_s"] > 0
        assert row["ram_gb"] >= 256
        assert row["name"].endswith("Gbit/s network")
        [line] = row["parts"]
        assert line["quantity"] == row["machines"]
    # their speeds carry the layer split's error band, as the corpus files clusters
    for row in ranking_rows_banded(clusters, workload=workload):
        assert row["error_band"]["category"] == "inference_multi_gpu_layer_split"

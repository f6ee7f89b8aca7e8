"""The serving pages' reads, on their own: a row's link and a result's breakdowns."""

from typing import Any

import pytest

from frontend.serving_selectors import row_link_query, serving_report
from simulator.engine import parse_request, result_to_json, simulate

# The report's error band reads the accuracy corpus from the database.
pytestmark = pytest.mark.django_db

RANKED = {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M", "context": 32768,
          "placement": "auto", "offload_from_layer": None}  # fmt: skip
ROW = {"parts": [{"part_id": 106, "quantity": 2}, {"part_id": 201, "quantity": 1}],
       "placement": "hybrid", "offload_from_layer": 40}  # fmt: skip


def test_a_rows_link_carries_its_parts_and_the_ranked_workload() -> None:
    assert row_link_query(RANKED, ROW) == (
        "parts=106:2,201:1&model=glm-4.7-flash&quant=Q4_K_M&context=32768&placement=auto"
    )


def test_a_row_of_a_hybrid_ranking_carries_its_first_offloaded_layer_too() -> None:
    query = row_link_query({**RANKED, "placement": "hybrid"}, ROW)

    assert query.endswith("&placement=hybrid&offload_from_layer=40")


def _result(**workload: Any) -> dict[str, Any]:
    body = {"workload": {**RANKED, "placement": "hybrid", **workload},
            "hardware": {"gpu": "RTX 4090", "cpu": "EPYC 9124", "ram_gb": 128}}  # fmt: skip
    answer: dict[str, Any] = result_to_json(simulate(parse_request(body)))
    return answer


def test_every_gb_the_result_stores_is_on_the_placement_chart_once() -> None:
    result = _result(offload_from_layer=30)

    chart = serving_report(result=result)["placement_chart"]

    stored = sum(result["weights_gb"].values()) + result["kv_cache_gb"]
    places = len(result["weights_gb"])  # the disk's bar comes after them
    charted = sum(sum(d["gb"][:places]) for d in chart["datasets"])
    assert charted == pytest.approx(stored, abs=0.01)
    assert [row["location"] for row in chart["rows"]] == ["VRAM", "CPU RAM", "disk (model file)"]


def test_experts_in_ram_is_offered_only_beside_a_moe_kept_all_on_the_gpu() -> None:
    kept = serving_report(result=_result(offload_from_layer=47))  # 47 layers: none offloaded
    offloading = serving_report(result=_result(offload_from_layer=30))
    dense = serving_report(result=_result(model="llama-3.1-8b", placement="gpu"))

    assert kept["placement_words"] == "all on GPU"
    assert kept["experts_in_ram_offered"]
    assert offloading["placement_words"].startswith("hybrid: experts from layer 30 on in CPU RAM")
    assert not offloading["experts_in_ram_offered"]
    assert not dense["experts_in_ram_offered"]

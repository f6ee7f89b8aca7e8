"""Rankings use published prices only by default: a build with a part priced only by the
planner's estimate is listed unpriced with that reason; `include_estimates` ranks it too,
marked `estimated`. Through the API, with the shipped catalog and a real worker."""

import time
from typing import Any

import pytest
from rest_framework.test import APIClient

from catalog.models import ESTIMATE_VENDOR, Part
from catalog.selectors import price_valid_list

RUN_TIMEOUT_S = 120.0
POLL_S = 0.1
SMALL = {"kind": "train", "model": "llama-3.1-8b", "quant": "NF4", "seq_len": 1024,
         "tokens": 50_000_000}  # fmt: skip
NARROW = {"gpu_count_max": 1, "storage_tiers": ["gen4_x1"]}
# A GPU whose only price in the shipped catalog is the planner's estimate.
ESTIMATED_GPU = "H100 NVL"


def _finished(client: APIClient, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/api/simulate", body, format="json")
    assert response.status_code == 202, response.json()
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while time.monotonic() < deadline:
        run = client.get(response["Location"]).json()
        if run["status"] in ("done", "failed"):
            assert run["status"] == "done", run["error"]
            return dict(run["result"])
        time.sleep(POLL_S)
    raise AssertionError("the ranking did not finish")


def _names(row: dict[str, Any]) -> set[str]:
    return {part["name"] for part in row["parts"]}


@pytest.mark.services
def test_a_build_with_a_part_priced_only_by_an_estimate_is_unpriced_with_the_reason(
    catalog_committed: None, celery_worker_process: str
) -> None:
    gpu = Part.objects.get(name=ESTIMATED_GPU)
    assert {p.vendor for p in price_valid_list().filter(part=gpu)} == {ESTIMATE_VENDOR}

    result = _finished(APIClient(), {"workload": SMALL, "ranking": NARROW})

    assert result["rows"]
    assert not any(ESTIMATED_GPU in _names(row) for row in result["rows"])
    assert not any(row["estimated"] for row in result["rows"])
    assert not any(part["price_estimated"] for row in result["rows"] for part in row["parts"])
    with_gpu = [row for row in result["unpriced"] if ESTIMATED_GPU in _names(row)]
    assert with_gpu
    assert all(row["price_usd"] is None for row in with_gpu)
    assert all(f"only a planner estimate for {ESTIMATED_GPU}" in row["reason"] for row in with_gpu)
    assert "for want of a published price" in result["explanation"]


@pytest.mark.services
def test_include_estimates_ranks_those_builds_and_marks_them_estimated(
    catalog_committed: None, celery_worker_process: str
) -> None:
    estimate = price_valid_list().filter(part__name=ESTIMATED_GPU).first()
    assert estimate is not None

    result = _finished(
        APIClient(), {"workload": SMALL, "ranking": {**NARROW, "include_estimates": True}}
    )

    assert result["ranking"]["include_estimates"] is True
    with_gpu = [row for row in result["rows"] if ESTIMATED_GPU in _names(row)]
    assert with_gpu
    assert all(row["estimated"] and ESTIMATED_GPU in row["estimated_parts"] for row in with_gpu)
    gpu_line = next(p for p in with_gpu[0]["parts"] if p["name"] == ESTIMATED_GPU)
    assert gpu_line["price_estimated"] is True
    assert gpu_line["unit_usd"] == float(estimate.amount)
    # Builds whose every part has a published price stay unmarked.
    assert any(not row["estimated"] for row in result["rows"])


@pytest.mark.services
def test_get_rankings_takes_include_estimates_as_a_query_parameter(
    catalog_committed: None, celery_worker_process: str
) -> None:
    client = APIClient()
    url = "/api/rankings?model=llama-3.1-8b&quant=NF4&limit=500"
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while client.get(url).status_code == 202 and time.monotonic() < deadline:
        time.sleep(POLL_S)

    published = client.get(url).json()
    estimated = client.get(url + "&include_estimates=true").json()

    assert published["include_estimates"] is False
    assert published["estimated_count"] == 0
    assert estimated["include_estimates"] is True
    assert estimated["count"] > published["count"]
    assert estimated["unpriced_count"] < published["unpriced_count"]
    shown_estimated = sum(row["estimated"] for row in estimated["rows"])
    assert estimated["estimated_count"] >= shown_estimated > 0


@pytest.mark.django_db
def test_include_estimates_must_be_true_or_false(catalog: None) -> None:
    response = APIClient().post(
        "/api/simulate",
        {"workload": SMALL, "ranking": {**NARROW, "include_estimates": "yes"}},
        format="json",
    )

    assert response.status_code == 400
    assert response.json()["errors"] == {"ranking.include_estimates": "must be true or false"}

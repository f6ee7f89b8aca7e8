"""Every speed the API returns carries the error band of its category: ranking rows, single
simulations (training and inference) and stored runs."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from simulator.engine.calibration.report import band_category, band_range, error_band
from simulator.engine.devices import Gpu, require_device
from simulator.services.accuracy import accuracy_report_get
from tests.catalog.factories import UserFactory
from tests.frontend.conftest import GLM, ranking_compute

pytestmark = pytest.mark.django_db
RTX_4090 = {"name": "RTX 4090", "vram_gb": 24, "bf16_tflops": 165, "pcie_gbps": 22, "fp4": False}
TRAIN = {"kind": "train", "model": "glm-4.7", "quant": "NF4d+NF2e"}
FLASH = {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M", "context": 32768}
BAND_KEYS = {
    "category", "category_label", "typical_abs_error", "basis", "signed_error_low",
    "signed_error_high", "speed_factor_low", "speed_factor_high", "range_basis",
}  # fmt: skip


def expected_band(category: str) -> float | None:
    return error_band(category, accuracy_report_get())


def simulate(body: dict[str, Any]) -> dict[str, Any]:
    # Signed in: the anonymous rate limit is left to the tests of throttling.
    client = APIClient()
    client.force_authenticate(UserFactory.create())
    response = client.post("/api/simulate", body, format="json")
    assert response.status_code == 200, response.json()
    result: dict[str, Any] = response.json()["result"]
    return result


def test_a_training_simulation_carries_the_fine_tuning_band(corpus: int) -> None:
    result = simulate({"workload": TRAIN, "hardware": {"gpu": RTX_4090, "ram_gb": 64}})
    band = result["error_band"]
    assert set(band) >= BAND_KEYS
    assert band["category"] == band_category("train", None, 1, True) == "training_finetune"
    assert band["typical_abs_error"] == pytest.approx(expected_band("training_finetune"))
    span = band_range("training_finetune", accuracy_report_get())
    assert span is not None
    low, high = span.speed_factors
    speed = result["best"]["tokens_per_s"]
    assert band["tokens_per_s_range"] == pytest.approx([speed * low, speed * high])
    hours = result["hours_for_tokens"]
    if hours is not None:
        assert band["hours_for_tokens_range"] == pytest.approx([hours / high, hours / low])


def test_an_inference_simulation_carries_its_placements_band(corpus: int) -> None:
    gpu = {**RTX_4090, "mem_gbps": require_device(Gpu, "RTX 4090", field="gpu").mem_bandwidth_gbps}
    result = simulate({"workload": {**FLASH, "placement": "gpu"}, "hardware": {"gpu": gpu}})
    category = band_category("infer", "gpu", 1, True)
    band = result["error_band"]
    assert band["category"] == category == "inference_moe_gpu"
    assert band["typical_abs_error"] == pytest.approx(expected_band(category))
    span = band_range(category, accuracy_report_get(), "llama.cpp")
    assert span is not None
    assert band["signed_error_low"] == pytest.approx(span.signed_error_low)
    decode = result["decode_tokens_per_s"]
    low, high = band["speed_factor_low"], band["speed_factor_high"]
    assert low < high
    assert band["decode_tokens_per_s_range"] == pytest.approx([decode * low, decode * high])


def test_every_ranking_row_carries_its_band(catalog: None, corpus: int) -> None:
    ranking_compute(GLM)
    response = APIClient().get("/api/rankings", {"model": "glm-4.7", "quant": "NF4d+NF2e"})
    body = response.json()
    assert response.status_code == 200, body
    assert body["rows"], body
    for row in body["rows"]:
        assert row["error_band"]["category"] == "training_finetune"
        assert row["error_band"]["typical_abs_error"] == pytest.approx(
            expected_band("training_finetune")
        )
        assert "tokens_per_s" in row
        band = row["error_band"]
        speed = row["tokens_per_s"]
        assert row["tokens_per_s_range"] == pytest.approx(
            [speed * band["speed_factor_low"], speed * band["speed_factor_high"]]
        )
        if row.get("usd_per_tokens_per_s") is not None:
            cost = row["usd_per_tokens_per_s"]
            assert row["usd_per_tokens_per_s_range"] == pytest.approx(
                [cost / band["speed_factor_high"], cost / band["speed_factor_low"]]
            )


def test_a_stored_ranking_run_shows_banded_rows(catalog: None, corpus: int) -> None:
    run = ranking_compute(GLM)
    body = APIClient().get(f"/api/simulations/{run.pk}").json()
    assert body["result"]["rows"]
    assert all("error_band" in row for row in body["result"]["rows"])


def test_a_serving_runs_figures_carry_the_batched_serving_band(corpus: int) -> None:
    """Rates × the band's speed factors and times ÷ them, as for every speed; a run sent at 5
    requests a second completes no faster than they arrive, so its rates stop there."""
    workload = {
        "kind": "infer", "model": "llama-3.1-8b", "quant": "BF16", "runtime": "vllm",
        "context": 1200, "prompt_tokens": 1000, "output_tokens": 200, "batch": 256,
        "request_rate_per_s": 5, "requests": 500,
    }  # fmt: skip
    result = simulate({"workload": workload, "hardware": {"gpu": {"name": "H100 SXM"}}})
    run, band = result["serving_run"], result["error_band"]["serving_run"]
    assert band["category"] == "serving_batched"
    assert band["typical_abs_error"] == pytest.approx(expected_band("serving_batched"))
    low, high = band["speed_factor_low"], band["speed_factor_high"]
    assert run["output_tokens_per_s"] * high > 5 * 200  # the band alone would pass the arrivals
    assert band["output_tokens_per_s_range"] == pytest.approx(
        [run["output_tokens_per_s"] * low, 5 * 200]
    )
    assert band["requests_per_s_range"] == pytest.approx([run["requests_per_s"] * low, 5.0])
    latency = run["request_latency_s"]
    assert band["request_latency_s_range"] == pytest.approx([latency / high, latency / low])

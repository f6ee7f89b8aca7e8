"""Chart data and explanations derived from a result (pure functions, no database)."""

import pytest

from frontend import charts
from simulator.engine import parse_request, result_to_json
from simulator.engine.simulate import simulate

GLM = {"model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": 1024, "tokens": 50_000_000}


def _result(**hardware: object) -> dict[str, object]:
    body = {"workload": GLM, "hardware": {"gpu": "RTX 4090", **hardware}}
    return result_to_json(simulate(parse_request(body)))


def test_the_memory_breakdown_fills_the_gpu_exactly() -> None:
    memory = charts.memory_breakdown(_result())

    total = sum(segment["gb"] for segment in memory["segments"])
    assert total == pytest.approx(24.0, abs=0.01)


def test_the_stream_buffer_is_two_layers_when_anything_streams() -> None:
    result = _result()
    segments = {s["label"]: s["gb"] for s in charts.memory_breakdown(result)["segments"]}

    layer_gb = result["model_facts"]["layer_gb"]  # type: ignore[index]
    assert segments["stream buffer"] == pytest.approx(2 * layer_gb, abs=1e-3)
    assert segments["CUDA context"] == 2.5


def test_a_one_gpu_4090_is_explained_as_compute_bound_with_nvme_not_helping() -> None:
    sentences = charts.explanation(_result())

    assert sentences[0].startswith("Compute-bound")
    assert "faster NVMe" in sentences[0]


def test_a_slow_nvme_is_explained_as_the_bottleneck() -> None:
    result = _result(nvme_gbps=0.5, ram_gb=0)

    sentences = charts.explanation(result)

    assert sentences[0].startswith("NVMe-bound")
    assert "0.5 GB/s" in sentences[0]


def test_the_curve_marks_exactly_one_optimal_and_one_greedy_row() -> None:
    rows = charts.curve_chart(_result())["rows"]

    assert sum(row["is_best"] for row in rows) == 1
    assert sum(row["is_greedy"] for row in rows) == 1


def test_reference_mode_has_no_timeline() -> None:
    body = {"workload": {**GLM, "mode": "reference"}, "hardware": {"gpu": "RTX 4090"}}
    assert charts.timeline_chart(result_to_json(simulate(parse_request(body)))) is None
    assert charts.timeline_chart(_result()) is not None  # the default, refined, has one


def test_a_result_stored_before_the_engine_reported_its_breakdown_draws_no_segments() -> None:
    result = _result()
    del result["vram_breakdown_gb"]

    assert charts.memory_breakdown(result)["segments"] == []

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


def test_a_result_whose_greedy_split_fits_no_sequence_draws_and_explains_the_optimal_alone() -> (
    None
):
    # Llama 3.1 70B in NF4 on one RTX 5090: keeping every layer that fits resident leaves no
    # VRAM for one sequence's activations, so the engine's greedy split is null.
    body = {"workload": {**GLM, "model": "llama-3.1-70b", "quant": "NF4"},
            "hardware": {"gpu": "RTX 5090"}}  # fmt: skip
    result = result_to_json(simulate(parse_request(body)))
    assert result["greedy"] is None

    curve = charts.curve_chart(result)
    assert curve["greedy_r"] is None
    assert not any(row["is_greedy"] for row in curve["rows"])
    assert charts.curve_points(result)["greedy"] is None
    assert charts.step_chart(result)["labels"] == [
        f"optimal (R={result['best']['resident_layers']}, B={result['best']['micro_batch']})"
    ]
    assert any("no VRAM for one sequence" in s for s in charts.explanation(result))


def test_the_timeline_of_a_split_with_resident_layers_draws_their_computes_alone() -> None:
    # Eight H200 NVLs with 32 GB of RAM keep part of each GLM-4.7 stage resident: those
    # layers load nothing, and the engine writes their transfer times as null.
    body = {"workload": GLM, "hardware": {"gpu": "H200 NVL", "gpu_count": 8, "ram_gb": 32}}
    result = result_to_json(simulate(parse_request(body)))
    events = result["timeline"]["events"]
    resident = [e for e in events if e["transfer_start_s"] is None]
    assert resident

    chart = charts.timeline_chart(result)

    assert chart is not None
    assert len(chart["computes"]) == len(events)
    assert len(chart["transfers"]) == len(events) - len(resident)

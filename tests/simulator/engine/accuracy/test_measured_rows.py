"""Rows the planner measured itself (benchmarks/calibrate_gpu.py on a lent GPU): each traces to
the results file of its run, and a training row's stated activation checkpointing is the
setting its prediction uses."""

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from simulator.engine.calibration import load_corpus
from simulator.engine.calibration.corpus import (
    MEASURED_PATH,
    MEASURED_RESULTS_DIR,
    read_corpus_file,
    row_from_json,
    source_of,
)
from simulator.engine.calibration.predict import predict_row
from simulator.engine.calibration.setups import TrainSetup, row_setup, stated_peak_gib
from simulator.engine.errors import EngineInputError
from simulator.engine.train.refined import resident_peak_gib

REPO = Path(__file__).resolve().parents[4]
MEASURED = read_corpus_file(MEASURED_PATH)


def _results(row: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REPO / row["source"]["path"]).read_text())
    return data


@pytest.mark.parametrize("row", MEASURED["rows"], ids=lambda row: row["id"])
def test_a_measured_row_is_the_figure_its_results_file_holds(row: dict[str, Any]) -> None:
    results = _results(row)
    section = results["sections"][row["source"]["where"].removeprefix("sections.")]
    machine = results["sections"]["machine"]
    assert row["value"] == round(section["tokens_per_s"], 1)
    assert row["unit"] == "tokens/s"
    assert row["hardware"]["gpu"] == machine["gpu"]
    assert row["source"]["read"] == machine["date"]
    assert row["workload"]["seq_len"] == section["seq_len"]
    assert row["workload"]["batch_size"] == section["micro_batch"]
    assert row["workload"]["gradient_checkpointing"] == section["activation_checkpointing"]


def test_runs_of_another_stack_are_listed_with_the_reason_not_dropped() -> None:
    _, rows = load_corpus()
    ids = {row.id for row in rows}
    left_out = MEASURED["not_admitted"]
    assert left_out
    for entry in left_out:
        assert entry["id"] not in ids
        assert "own LoRA layers" in entry["reason"]
        assert entry["where"].removeprefix("sections.") in _results(entry | {"source": {
            "path": entry["file"]}})["sections"]  # fmt: skip


def test_the_rows_of_one_run_are_one_source_left_out_together() -> None:
    _, rows = load_corpus()
    measured = [row for row in rows if row.id in {r["id"] for r in MEASURED["rows"]}]
    assert len(measured) == MEASURED["row_count"] == len(MEASURED["rows"])
    assert {source_of(row) for row in measured} == {
        row["source"]["path"] for row in MEASURED["rows"]
    }
    assert all(source_of(row).startswith(MEASURED_RESULTS_DIR) for row in measured)


def test_a_measured_row_must_cite_a_results_file() -> None:
    row = {**MEASURED["rows"][0], "source": {"kind": "measured", "path": "/tmp/mine.json"}}
    with pytest.raises(EngineInputError) as error:
        row_from_json(row, "rows[0]")
    assert error.value.field == "rows[0].source.path"


def _measured(row_id: str) -> Any:
    _, rows = load_corpus()
    return next(row for row in rows if row.id == row_id)


def test_a_stated_checkpointing_setting_is_the_one_predicted() -> None:
    """C001 and C002 are one run's setup without and with checkpointing: the engine sets each
    as stated (not from the stated peak memory), and the recompute makes C002 slower."""
    without, with_ = _measured("C001"), _measured("C002")
    setups = [row_setup(row) for row in (without, with_)]
    assert all(isinstance(setup, TrainSetup) for setup in setups)
    settings = [setup.request.workload.activation_checkpointing for setup in setups]  # type: ignore[union-attr]
    assert settings == [False, True]
    fast, slow = predict_row(without).predicted, predict_row(with_).predicted
    assert fast is not None
    assert slow is not None
    assert slow < fast


def test_without_a_stated_setting_the_peak_memory_decides() -> None:
    row = _measured("C001")
    workload = {k: v for k, v in row.workload.items() if k != "gradient_checkpointing"}
    unstated = replace(row, workload=workload)
    setup = row_setup(unstated)
    assert isinstance(setup, TrainSetup)
    # 99.4 GiB at 2 × 4096 tokens of an 8B model: every layer's activations kept.
    assert setup.request.workload.activation_checkpointing is False
    # C002's measured 29.4 GiB (the same run with checkpointing) reads as checkpointing.
    stated_low = replace(unstated, peak_memory=_measured("C002").peak_memory)
    low = row_setup(stated_low)
    assert isinstance(low, TrainSetup)
    assert low.request.workload.activation_checkpointing is True


@pytest.mark.parametrize(
    "row_id", ["C002", "C003", "C006", "C012", "C014", "C015", "C001", "C005", "C011", "C013"]
)
def test_the_peak_is_within_a_tenth_of_the_measured(row_id: str) -> None:
    """Weights, adapters, the layers' activations (with checkpointing one layer's working set
    and the checkpoints; without, what autograd saves in each eager layer: eager_memory.py),
    and the unfused loss's FP32 logits (lm_head.loss_gib_per_sequence): the measured peaks
    (torch.cuda.max_memory_allocated) of the H200 runs with and without checkpointing."""
    row = _measured(row_id)
    setup = row_setup(row)
    assert isinstance(setup, TrainSetup)
    peak = resident_peak_gib(setup.request.workload, setup.request.hardware)
    measured = stated_peak_gib(row)
    assert peak is not None
    assert measured is not None
    assert peak == pytest.approx(measured, rel=0.1)

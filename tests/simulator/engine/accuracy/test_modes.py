"""One headline training speed: the mode that predicts the fine-tuning rows better,
cross-validated, is the default (simulator/engine/calibration/modes.py)."""

from dataclasses import replace

import pytest

from simulator.engine import parse_request
from simulator.engine.calibration import load_corpus
from simulator.engine.calibration.crossval import cross_validated_predictions, load_crossval
from simulator.engine.calibration.modes import ModeComparison, ModeScore, compare_modes
from simulator.engine.train.workload import DEFAULT_MODE, MODE_REFERENCE, MODE_REFINED

_, ROWS = load_corpus()
CROSSVAL = load_crossval()
COMPARISON = compare_modes(ROWS, CROSSVAL)
TRAINING = [row for row in ROWS if row.category.startswith("training")]


def test_the_default_mode_is_the_one_with_the_better_cross_validated_fine_tuning_error():
    assert COMPARISON.better == DEFAULT_MODE


def test_a_request_that_names_no_mode_gets_the_default():
    request = parse_request(
        {"workload": {"model": "glm-4.7", "quant": "NF4d+NF2e"},
         "hardware": {"gpu": "RTX 4090", "ram_gb": 128}}
    )  # fmt: skip
    assert request.workload.mode == DEFAULT_MODE


def test_refined_scores_are_the_cross_validated_predictions_of_the_report():
    # the report predicts training rows in refined mode with each source's held-out table
    report = {p.row_id: p for p in cross_validated_predictions(TRAINING, CROSSVAL)}
    refined = COMPARISON.scores[MODE_REFINED].errors
    assert refined
    for row_id, error in refined.items():
        assert report[row_id].signed_error == pytest.approx(error)


def test_reference_mode_refuses_what_seed_000_cannot_express():
    reference = COMPARISON.scores[MODE_REFERENCE]
    # seed 000's equations are a QLoRA pipeline: data-parallel and full fine-tuning rows
    # are refused with the engine's reason, never scored
    assert reference.refused
    for reason in reference.refused.values():
        assert "reference mode" in reason
    assert not set(reference.refused) & set(reference.errors)


def _comparison(reference: dict[str, float], refined: dict[str, float]) -> ModeComparison:
    common = tuple(sorted(set(reference) & set(refined)))
    return ModeComparison(
        scores={
            MODE_REFERENCE: ModeScore(mode=MODE_REFERENCE, errors=reference, refused={}),
            MODE_REFINED: ModeScore(mode=MODE_REFINED, errors=refined, refused={}),
        },
        common=common,
    )


def test_the_better_mode_expresses_more_rows_then_errs_less_on_the_rows_both_express():
    assert _comparison({"a": 0.1, "b": 0.1}, {"a": 0.3, "b": 0.3}).better == MODE_REFERENCE
    assert _comparison({"a": 0.3, "b": -0.4}, {"a": 0.1, "b": 0.2}).better == MODE_REFINED
    # refined expresses one row more: it wins even with a larger error on the shared row
    assert _comparison({"a": 0.1}, {"a": 0.3, "b": 0.1}).better == MODE_REFINED
    assert _comparison({"a": 0.2}, {"a": -0.2}).better == MODE_REFINED  # a tie


def test_median_abs_error_counts_only_the_rows_asked_for():
    score = replace(COMPARISON.scores[MODE_REFINED], errors={"a": -0.5, "b": 0.1, "c": 0.2})
    assert score.median_abs_error(("b", "c")) == pytest.approx(0.15)
    assert score.median_abs_error(("z",)) is None

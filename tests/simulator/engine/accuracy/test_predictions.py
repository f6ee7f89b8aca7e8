import pytest

from simulator.engine.calibration import accuracy_report, load_corpus, predict_all, predict_row
from simulator.engine.calibration.report import REQUIRED_CATEGORIES
from simulator.engine.calibration.setups import TrainSetup, row_setup

_, ROWS = load_corpus()
PREDICTIONS = predict_all(ROWS)
BY_ID = {p.row_id: p for p in PREDICTIONS}


@pytest.mark.parametrize("category", REQUIRED_CATEGORIES)
def test_every_required_category_is_modeled(category):
    assert any(p.modeled for p in PREDICTIONS if p.category == category)


def test_no_row_is_dropped_and_every_unmodeled_row_says_why():
    assert len(PREDICTIONS) == len(ROWS)
    assert all(p.reason for p in PREDICTIONS)
    assert not BY_ID["H085"].modeled
    assert "capacity" in BY_ID["H085"].reason


def test_a_modeled_row_carries_its_signed_error_and_bound():
    h007 = BY_ID["H007"]
    assert h007.modeled
    assert h007.predicted is not None
    assert h007.signed_error == pytest.approx((h007.predicted - 127.43) / 127.43)
    assert h007.reason.startswith("decode: gpu")


def test_the_in_sample_report_says_which_of_issue_9s_targets_it_misses():
    """Issue 9's in-sample targets (15 % median, 25 % per category, 2x worst) held on the team's
    114 rows; fitted on the 1,119-row corpus the constants are a compromise across far more
    hardware, and the report names every target it misses rather than hiding it."""
    report = accuracy_report(PREDICTIONS)
    assert report.median_abs_error is not None
    assert report.worst_ratio is not None
    assert report.targets_met == (not report.misses)
    if report.median_abs_error > 0.15:
        assert any("overall median" in miss for miss in report.misses)
    if report.worst_ratio > 2.0:
        assert any("off by" in miss for miss in report.misses)


def test_predicting_one_row_matches_predicting_all():
    assert predict_row(ROWS[0]) == PREDICTIONS[0]


def test_torchtune_rows_checkpoint_as_their_stated_peak_memory_implies():
    rows = {row.id: row for row in ROWS}
    a6000_lora, a100_qlora = row_setup(rows["H075"]), row_setup(rows["H079"])
    assert isinstance(a6000_lora, TrainSetup)
    assert isinstance(a100_qlora, TrainSetup)
    # 30.3 GiB for 8B LoRA at batch 2 is every layer's activations kept (the README's 4090
    # run of the same recipe, which checkpoints, peaks at 16.2 GiB)
    assert a6000_lora.request.workload.activation_checkpointing is False
    assert a100_qlora.request.workload.activation_checkpointing is True

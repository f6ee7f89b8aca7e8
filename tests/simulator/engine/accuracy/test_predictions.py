import pytest

from simulator.engine.calibration import accuracy_report, load_corpus, predict_all, predict_row
from simulator.engine.calibration.corpus import original_rows
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


def test_the_inference_rows_meet_issue_9s_per_row_bound():
    inference = [p for p in PREDICTIONS if p.modeled and p.category.startswith("inference")]
    worst = accuracy_report(inference).worst_ratio
    assert worst is not None
    assert worst <= 2.0


def test_the_overall_median_meets_issue_9s_15_percent():
    median = accuracy_report(PREDICTIONS).median_abs_error
    assert median is not None
    assert median <= 0.15


def test_the_original_43_rows_meet_issue_9s_targets_in_sample():
    """The team's corpus without the extension rows, in-sample: overall median ≤ 15 %, the
    median of every category of two or more modeled rows ≤ 25 %, no row off by more than 2×.
    (serving_batched is H039 alone there, so its bound is the row's: since sliding-window
    attention, H039 is −29 %: gpt-oss-120b's sliding layers read 128 cached positions, and
    the routing fraction fitted on the whole batched sweep rose from 0.49 to 0.55.)"""
    originals = {row.id for row in original_rows(ROWS)}
    report = accuracy_report([p for p in PREDICTIONS if p.row_id in originals])
    assert report.median_abs_error is not None
    assert report.median_abs_error <= 0.15
    assert report.worst_ratio is not None
    assert report.worst_ratio <= 2.0
    for category in report.categories:
        if category.median_abs_error is not None and category.modeled >= 2:
            assert category.median_abs_error <= 0.25, category.category
    assert abs(BY_ID["H039"].signed_error or 1.0) <= 0.30


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

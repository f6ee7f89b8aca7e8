import pytest

from simulator.engine.calibration import (
    Prediction,
    accuracy_report,
    band_category,
    error_band,
)


def _row(row_id, category, measured, predicted):
    if predicted is None:
        return Prediction(
            row_id=row_id,
            category=category,
            modeled=False,
            measured=measured,
            unit="tok/s",
            predicted=None,
            signed_error=None,
            reason="why not",
        )
    return Prediction(row_id=row_id, category=category, modeled=True, measured=measured,
                      unit="tok/s", predicted=predicted,
                      signed_error=(predicted - measured) / measured, reason="decode")  # fmt: skip


# Errors: a +10 %, b −20 %, c +30 % (category "x"); d −5 % (category "y"); e not modeled.
SMALL_SET = [
    _row("a", "x", 100.0, 110.0),
    _row("b", "x", 100.0, 80.0),
    _row("c", "x", 100.0, 130.0),
    _row("d", "y", 100.0, 95.0),
    _row("e", "y", 100.0, None),
]


def test_the_report_takes_medians_and_worst_rows_per_category():
    report = accuracy_report(SMALL_SET)
    x, y = report.category("x"), report.category("y")
    assert x is not None
    assert y is not None
    assert (x.modeled, x.not_modeled) == (3, 0)
    assert x.median_abs_error == pytest.approx(0.20)  # median of 0.10, 0.20, 0.30
    assert x.worst_abs_error == pytest.approx(0.30)
    assert x.worst_row_id == "c"
    assert (y.modeled, y.not_modeled) == (1, 1)
    assert y.median_abs_error == pytest.approx(0.05)


def test_the_overall_median_and_worst_ratio_cover_modeled_rows_only():
    report = accuracy_report(SMALL_SET)
    assert report.median_abs_error == pytest.approx(0.15)  # median of .05 .10 .20 .30
    assert report.worst_ratio == pytest.approx(1.30)  # c: 130/100 beats b: 100/80 = 1.25


def test_targets_are_missed_for_a_2x_row_and_unmodeled_required_categories():
    report = accuracy_report([*SMALL_SET, _row("f", "x", 100.0, 300.0)])
    assert not report.targets_met
    assert any("3.00x" in miss for miss in report.misses)
    assert any("overall median |error| 20.0%" in m for m in report.misses)  # .05 .1 .2 .3 2
    assert any("training_finetune: required" in miss for miss in report.misses)


def test_the_band_is_the_category_median_with_three_rows_else_the_overall_median():
    report = accuracy_report(SMALL_SET)
    assert error_band("x", report) == pytest.approx(0.20)
    assert error_band("y", report) == pytest.approx(0.15)  # one modeled row: overall
    assert error_band("x", accuracy_report(SMALL_SET[4:])) is None


@pytest.mark.parametrize(
    ("args", "category"),
    [
        (("train", None, 1, True), "training_finetune"),
        (("infer", "gpu", 1, False), "inference_gpu_dense"),
        (("infer", "gpu", 1, True), "inference_moe_gpu"),
        (("infer", "gpu", 2, False), "inference_multi_gpu_layer_split"),
        (("infer", "hybrid", 1, True), "inference_moe_offload"),
        (("infer", "unified", 0, False), "inference_apple_silicon"),
        (("infer", "unified", 0, True), "inference_unified_memory_moe"),
        # several machines over a network: the corpus files those rows as a layer split
        (("infer", "unified", 0, True, 2), "inference_multi_gpu_layer_split"),
        (("infer", "gpu", 1, False, 4), "inference_multi_gpu_layer_split"),
    ],
)
def test_a_planner_figure_maps_to_its_corpus_category(args, category):
    assert band_category(*args) == category


def test_a_band_range_is_the_10th_to_90th_percentile_of_its_categorys_errors():
    from simulator.engine.calibration.report import band_range, percentile

    rows = [_row(str(i), "x", 100.0, 100.0 * (1 + e)) for i, e in
            enumerate((-0.3, -0.1, 0.0, 0.1, 0.2, 0.5))]  # fmt: skip
    report = accuracy_report(rows)
    span = band_range("x", report)
    errors = [-0.3, -0.1, 0.0, 0.1, 0.2, 0.5]
    assert span is not None
    assert span.signed_error_low == pytest.approx(percentile(errors, 10))
    assert span.signed_error_high == pytest.approx(percentile(errors, 90))
    low, high = span.speed_factors
    assert (low, high) == pytest.approx(
        (1 / (1 + span.signed_error_high), 1 / (1 + span.signed_error_low))
    )
    # a runtime no row measures: the wider 5th–95th percentile of every row
    wide = band_range("x", report, runtime="some-new-runtime")
    assert wide is not None
    assert wide.signed_error_low < span.signed_error_low
    assert wide.signed_error_high > span.signed_error_high
    assert "no measured row" in wide.basis

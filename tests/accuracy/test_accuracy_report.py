"""The accuracy report service: the engine's report over the accepted rows, cached until a
row changes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.cache import cache

from simulator.engine.calibration import AccuracyReport, accuracy_report
from simulator.engine.calibration.report import (
    CROSS_VALIDATED_TARGETS,
    MIN_ROWS_FOR_CATEGORY_BAND,
)
from simulator.models import Measurement, MeasurementOrigin, MeasurementStatus
from simulator.services.accuracy import accuracy_report_get, error_band_for
from simulator.services.measurements import measurements_predict, measurements_review
from tests.accuracy.factories import MeasurementFactory
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.django_db


def _by_row_id(report: AccuracyReport) -> AccuracyReport:
    """The engine's report with its rows in the database's order (by row id)."""
    rows = sorted(report.predictions, key=lambda p: p.row_id)
    return accuracy_report(rows, CROSS_VALIDATED_TARGETS)


def test_the_report_over_the_corpus_is_the_engines(
    corpus: int, engine_report: AccuracyReport
) -> None:
    assert accuracy_report_get() == _by_row_id(engine_report)


def test_a_pending_row_is_not_in_the_report(corpus: int, engine_report: AccuracyReport) -> None:
    MeasurementFactory.create(origin=MeasurementOrigin.USER, status=MeasurementStatus.PENDING)
    assert accuracy_report_get() == _by_row_id(engine_report)


def test_accepting_a_row_predicts_it_and_updates_the_cached_report(corpus: int) -> None:
    before = accuracy_report_get()
    row = MeasurementFactory.create(
        origin=MeasurementOrigin.USER, status=MeasurementStatus.PENDING, value=1.0
    )
    measurements_review(
        measurements=Measurement.objects.filter(pk=row.pk), status=MeasurementStatus.ACCEPTED
    )
    row.refresh_from_db()
    after = accuracy_report_get()
    assert row.modeled
    assert row.predicted is not None
    assert row.row_id in {p.row_id for p in after.predictions}
    assert len(after.predictions) == len(before.predictions) + 1
    assert after.worst_ratio is not None
    assert after.worst_ratio >= row.predicted / row.value


def test_a_stale_prediction_is_recomputed_before_reporting(corpus: int) -> None:
    Measurement.objects.filter(row_id="H013").update(prediction_version="old", predicted=1.0)
    accuracy_report_get()
    row = Measurement.objects.get(row_id="H013")
    assert row.predicted != 1.0
    assert measurements_predict() == 0


def test_a_training_figure_carries_the_fine_tuning_band(corpus: int) -> None:
    report = accuracy_report_get()
    band = error_band_for(kind="train", placement=None, gpu_count=1, workload={"model": "glm-4.7"})
    assert band["category"] == "training_finetune"
    stats = report.category("training_finetune")
    assert stats is not None
    if stats.modeled >= MIN_ROWS_FOR_CATEGORY_BAND:
        assert band["typical_abs_error"] == stats.median_abs_error
        assert band["basis"] == f"median |error| of {stats.modeled} corpus rows of this category"
    else:  # too few rows of its own: the overall median stands in, and the basis says so
        assert band["typical_abs_error"] == report.median_abs_error
        assert band["basis"].startswith("overall median |error| of ")


def test_with_no_measurement_the_band_says_so(db: None) -> None:
    band = error_band_for(
        kind="infer", placement="gpu", gpu_count=1, workload={"model": "llama-3.1-8b"}
    )
    assert band["category"] == "inference_gpu_dense"
    assert band["typical_abs_error"] is None
    assert band["basis"] == "no modeled corpus row yet"


def test_a_model_given_inline_is_banded_by_its_own_architecture(db: None) -> None:
    shipped = json.loads(
        (REPO_ROOT / "simulator/engine/data/models/glm-4.7.json").read_text(encoding="utf-8")
    )
    config = {k: v for k, v in shipped.items() if not k.startswith("_")}  # an MoE

    inline = error_band_for(
        kind="infer", placement="gpu", gpu_count=1,
        workload={"model": "my-moe", "model_config": config},
    )  # fmt: skip

    assert inline["category"] == "inference_moe_gpu"
    assert (
        inline["category"]
        == error_band_for(
            kind="infer", placement="gpu", gpu_count=1, workload={"model": "glm-4.7"}
        )["category"]
    )


def test_a_removed_row_leaves_the_report_this_process_holds(corpus: int) -> None:
    before = accuracy_report_get()
    Measurement.objects.filter(row_id="H013").delete()

    after = accuracy_report_get()

    assert len(after.predictions) == len(before.predictions) - 1
    assert "H013" not in {p.row_id for p in after.predictions}


def test_an_unchanged_report_costs_one_query_and_no_cache_read(
    corpus: int, django_assert_num_queries: Any
) -> None:
    """Every single-build answer carries a band: it must not re-read the report each time."""
    first = accuracy_report_get()
    cache.clear()  # were the cache read, the report would be rebuilt from every row

    with django_assert_num_queries(1):
        again = accuracy_report_get()

    assert again is first

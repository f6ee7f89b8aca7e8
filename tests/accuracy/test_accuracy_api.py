"""GET /api/accuracy: public, and its figures are the engine's report on the same rows."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from simulator.engine.calibration import AccuracyReport
from simulator.engine.calibration.corpus import HOLDOUT_PATH, read_corpus_file, rows_from_corpus
from simulator.engine.calibration.efficiency import load_efficiency
from simulator.engine.calibration.predict import predict_all
from simulator.engine.calibration.report import CROSS_VALIDATED_TARGETS, accuracy_report
from simulator.models import Measurement

pytestmark = pytest.mark.django_db
URL = "/api/accuracy"
ROW_KEYS = {"id", "category", "origin", "engine", "hardware", "model", "quant", "workload",
            "metric", "measured", "predicted", "signed_error", "cv_predicted", "cv_signed_error",
            "runtime", "unit", "modeled", "reason", "source_url"}  # fmt: skip


def test_anyone_may_read_it(corpus: int) -> None:
    assert APIClient().get(URL).status_code == 200


def test_the_overall_figures_are_the_engines(corpus: int, engine_report: AccuracyReport) -> None:
    body = APIClient().get(URL).json()
    assert body["corpus_assembled"] == read_corpus_file()["assembled"]
    assert body["median_abs_error"] == pytest.approx(engine_report.median_abs_error)
    assert body["worst_ratio"] == pytest.approx(engine_report.worst_ratio)
    assert body["targets_met"] is engine_report.targets_met
    assert body["misses"] == list(engine_report.misses)
    assert body["modeled_share"] == pytest.approx(engine_report.modeled_share)
    assert body["targets"]["name"] == "cross-validated (issue 15)"


def test_the_in_sample_figures_come_second(
    corpus: int, in_sample_report: AccuracyReport, engine_report: AccuracyReport
) -> None:
    body = APIClient().get(URL).json()["in_sample"]
    assert body["median_abs_error"] == pytest.approx(in_sample_report.median_abs_error)
    assert body["targets_met"] is in_sample_report.targets_met
    # fitted on the rows it scores, the in-sample error is the smaller one
    in_sample, held_out = in_sample_report.median_abs_error, engine_report.median_abs_error
    assert in_sample is not None
    assert held_out is not None
    assert in_sample < held_out


def test_the_hold_out_figures_are_the_shipped_constants_on_rows_no_fit_saw(corpus: int) -> None:
    rows = rows_from_corpus(read_corpus_file(HOLDOUT_PATH))
    expected = accuracy_report(predict_all(rows, load_efficiency()), CROSS_VALIDATED_TARGETS)
    body = APIClient().get(URL).json()
    assert body["holdout_rows"] == len(rows) > 0
    holdout = body["holdout"]
    assert holdout["median_abs_error"] == pytest.approx(expected.median_abs_error)
    assert holdout["worst_ratio"] == pytest.approx(expected.worst_ratio)
    assert holdout["modeled_share"] == pytest.approx(expected.modeled_share)
    assert holdout["targets"]["name"] == "cross-validated (issue 15)"
    assert [c["category"] for c in holdout["categories"]] == [
        c.category for c in expected.categories
    ]


def test_the_categories_are_the_engines(corpus: int, engine_report: AccuracyReport) -> None:
    body = APIClient().get(URL).json()
    expected = [
        {"category": c.category, "modeled": c.modeled, "not_modeled": c.not_modeled,
         "median_abs_error": c.median_abs_error, "worst_abs_error": c.worst_abs_error,
         "worst_row_id": c.worst_row_id, "signed_error_low": c.signed_error_low,
         "signed_error_high": c.signed_error_high}
        for c in engine_report.categories
    ]  # fmt: skip
    assert body["categories"] == expected


def test_the_runtimes_are_the_engines(corpus: int, engine_report: AccuracyReport) -> None:
    body = APIClient().get(URL).json()
    assert [r["runtime"] for r in body["runtimes"]] == [r.category for r in engine_report.runtimes]
    assert {"llama.cpp", "torchtune", "ktransformers"} <= {r["runtime"] for r in body["runtimes"]}
    assert [r["median_abs_error"] for r in body["runtimes"]] == [
        r.median_abs_error for r in engine_report.runtimes
    ]


def test_every_row_has_its_prediction_and_source(
    corpus: int, engine_report: AccuracyReport, in_sample_report: AccuracyReport
) -> None:
    rows = APIClient().get(URL).json()["rows"]
    assert len(rows) == corpus
    assert all(set(row) == ROW_KEYS for row in rows)
    by_id = {row["id"]: row for row in rows}
    in_sample = {p.row_id: p for p in in_sample_report.predictions}
    for prediction in engine_report.predictions:
        row = by_id[prediction.row_id]
        assert (row["measured"], row["cv_predicted"], row["cv_signed_error"]) == (
            prediction.measured,
            prediction.predicted,
            prediction.signed_error,
        )
        fitted = in_sample[prediction.row_id]
        assert (row["predicted"], row["signed_error"]) == (fitted.predicted, fitted.signed_error)
        assert row["runtime"] == prediction.runtime
        assert row["modeled"] == prediction.modeled == fitted.modeled
        # the stored reason is the full fit's: what bounds a prediction may differ between
        # the full and the held-out constants
        assert row["reason"] == fitted.reason
        assert row["source_url"] == Measurement.objects.get(row_id=row["id"]).source_url


def test_it_is_in_the_schema_with_its_response_shape() -> None:
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    response = schema["paths"]["/api/accuracy"]["get"]["responses"]["200"]
    ref = response["content"]["application/json"]["schema"]["$ref"]
    shape = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    assert {"median_abs_error", "worst_ratio", "targets_met", "categories", "rows"} <= set(
        shape["properties"]
    )

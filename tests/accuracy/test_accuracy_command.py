"""`manage.py accuracy`: the report as a table, exit status 1 when a target is missed, and
`--fit` writing the same constants as the shipped table (a reproducible fit)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from simulator.engine.calibration import AccuracyReport, load_efficiency, predict_row
from simulator.engine.calibration.corpus import (
    read_corpus_file,
    row_from_json,
    shipped_corpus_document,
)
from simulator.models import Measurement
from simulator.services.measurements import EFFICIENCY_PATH, measurements_predict
from tests.accuracy.factories import MeasurementFactory

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, int]:
    out = io.StringIO()
    try:
        call_command("accuracy", *args, stdout=out, stderr=io.StringIO())
    except CommandError as error:
        return out.getvalue(), error.returncode
    return out.getvalue(), 0


def test_it_loads_the_corpus_and_prints_every_row_and_category(
    db: None, engine_report: AccuracyReport
) -> None:
    out, _ = run()
    assert Measurement.objects.count() == len(engine_report.predictions)
    for prediction in engine_report.predictions:
        assert prediction.row_id in out
    for stats in engine_report.categories:
        assert stats.category in out
    assert "Cross-validated (each source left out of the fit): median |error|" in out
    assert "In-sample (constants fitted on these rows): median |error|" in out
    assert out.index("Cross-validated (each") < out.index("In-sample (constants")
    for stats in engine_report.runtimes:
        assert stats.category in out


def test_its_exit_status_follows_the_targets(db: None, engine_report: AccuracyReport) -> None:
    _, status = run()
    assert status == (0 if engine_report.targets_met else 1)


def test_it_exits_1_when_a_row_is_off_by_more_than_twice(corpus: int) -> None:
    # An accepted row the engine models, measured at a tenth of its prediction: 10x off.
    row = MeasurementFactory.create()
    measurements_predict(force=True, ids=[row.pk])
    row.refresh_from_db()
    assert row.predicted is not None
    Measurement.objects.filter(pk=row.pk).update(value=row.predicted / 10)
    row.refresh_from_db()
    measurements_predict(force=True, ids=[row.pk])
    out, status = run()
    assert status == 1
    assert "a modeled row is off by" in out


def test_json_output_has_the_report_figures(corpus: int, engine_report: AccuracyReport) -> None:
    out, _ = run("--json")
    body = json.loads(out)
    assert body["median_abs_error"] == pytest.approx(engine_report.median_abs_error)
    assert body["misses"] == list(engine_report.misses)
    assert len(body["rows"]) == len(engine_report.predictions)


def test_the_fit_is_reproducible_and_matches_the_shipped_table(db: None, tmp_path: Path) -> None:
    # The shipped table was fitted by another process: a fresh fit equal to it is both.
    fitted = tmp_path / "fitted.json"
    run("--fit", "--fit-output", str(fitted))
    assert fitted.read_text() == EFFICIENCY_PATH.read_text()


# --- --corpus FILE: a user's own measurements, scored with the shipped constants ------------
def _own_rows(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"title": "my bench", "assembled": "2026-11-24", "rows": rows}))
    return path


def _shipped_row(row_id: str) -> dict[str, object]:
    return next(dict(r) for r in read_corpus_file()["rows"] if r["id"] == row_id)


def test_a_file_of_ones_own_rows_is_scored_with_the_shipped_constants(tmp_path: Path) -> None:
    mine = {**_shipped_row("H007"), "id": "M1", "value": 120.0,
            "source": {"url": "https://example.org/my-4090-bench"}}  # fmt: skip
    unknown = {**mine, "id": "M2", "model": "Some Unreleased 9B"}
    out, status = run("--corpus", str(_own_rows(tmp_path, [mine, unknown])), "--json")
    body = json.loads(out)
    rows = {r["id"]: r for r in body["rows"]}
    expected = predict_row(row_from_json(mine, "rows[0]"), load_efficiency())
    # a source no fit saw: its cross-validated figure is the shipped constants' figure
    assert rows["M1"]["cv_predicted"] == rows["M1"]["predicted"] == expected.predicted
    assert rows["M1"]["cv_signed_error"] == pytest.approx(expected.predicted / 120.0 - 1)
    assert rows["M2"]["modeled"] is False
    assert "no shipped model config for 'Some Unreleased 9B'" in rows["M2"]["reason"]
    assert body["modeled_share"] == 0.5
    assert status == 1  # half the rows modeled: below the 90 % target
    assert Measurement.objects.count() == 0  # nothing stored, nothing fitted


def test_the_shipped_corpus_as_a_file_gives_the_cross_validated_report(
    tmp_path: Path, engine_report: AccuracyReport
) -> None:
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(shipped_corpus_document()))
    body = json.loads(run("--corpus", str(path), "--json")[0])
    assert body["median_abs_error"] == pytest.approx(engine_report.median_abs_error)
    assert [r["cv_signed_error"] for r in body["rows"]] == [
        p.signed_error for p in engine_report.predictions
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "cannot read"),
        ("[]", "must be a JSON object"),
        ('{"rows": "x"}', "invalid corpus"),
    ],
)
def test_a_bad_file_is_refused_naming_the_fault(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(CommandError) as error:
        call_command("accuracy", "--corpus", str(path), stdout=io.StringIO())
    assert message in str(error.value)


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="cannot read"):
        call_command("accuracy", "--corpus", str(tmp_path / "nope.json"), stdout=io.StringIO())


GOOD_ROW = {
    "id": "U1", "category": "inference_gpu_dense", "engine": "llama.cpp CUDA",
    "hardware": {"gpu": "RTX 4090", "gpu_count": 1}, "model": "Llama 3.1 8B", "quant": "Q4_0",
    "workload": {"phase": "decode", "test": "tg128"}, "metric": "decode throughput",
    "value": 130.0, "unit": "tok/s", "source": {"url": "https://example.org/mine"},
}  # fmt: skip


def _score(tmp_path: Path, rows: list[dict[str, object]]) -> dict[str, object]:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"title": "mine", "rows": rows}))
    out = io.StringIO()
    with pytest.raises(CommandError, match="target"):  # missed targets: the report still prints
        call_command("accuracy", "--corpus", str(path), "--json", stdout=out)
    body: dict[str, object] = json.loads(out.getvalue())
    return body


def test_a_users_row_that_breaks_the_schema_is_listed_and_the_rest_scored(
    tmp_path: Path,
) -> None:
    """One broken row does not stop a user's file: it is listed as not modeled, naming the
    field; rows that leave out what the prediction does not need (category, metric, the
    source's URL) or write counts as strings are predicted as their tidy twins are."""
    tidy = {**GOOD_ROW, "id": "U2", "workload": {"phase": "decode", "test": "tg128", "batch": 1}}
    loose = {
        key: value for key, value in GOOD_ROW.items() if key not in ("category", "metric", "source")
    }
    loose = {**loose, "id": "U3", "value": "130", "workload": {
        "phase": "decode", "test": "tg128", "batch": "1"}}  # fmt: skip
    broken = {**GOOD_ROW, "id": "U4", "hardware": "RTX 4090"}
    no_run = {**GOOD_ROW, "id": "U5", "workload": {"phase": "prefill", "prompt_tokens": -5}}
    body = _score(tmp_path, [GOOD_ROW, tidy, loose, broken, no_run, {**GOOD_ROW}])
    rows = {row["id"]: row for row in body["rows"]}  # type: ignore[attr-defined]
    assert rows["U1"]["modeled"]
    assert rows["U3"]["modeled"]
    assert rows["U3"]["predicted"] == pytest.approx(rows["U2"]["predicted"])
    assert not rows["U4"]["modeled"]
    assert "rows[3].hardware: must be an object" in rows["U4"]["reason"]
    assert not rows["U5"]["modeled"]
    assert "makes no run" in rows["U5"]["reason"]
    duplicate = rows["U1 (rows[5])"]
    assert not duplicate["modeled"]
    assert "duplicate id 'U1'" in duplicate["reason"]
    assert body["modeled_share"] == pytest.approx(3 / 6)

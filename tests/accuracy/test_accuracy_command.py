"""`manage.py accuracy`: the report as a table, exit status 1 when a target is missed, and
`--fit` writing the same constants as the shipped table (a reproducible fit)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from simulator.engine.calibration import AccuracyReport
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
    assert "Overall median |error|" in out


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
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    run("--fit", "--fit-output", str(first))
    run("--fit", "--fit-output", str(second))
    assert first.read_text() == second.read_text()
    assert first.read_text() == EFFICIENCY_PATH.read_text()

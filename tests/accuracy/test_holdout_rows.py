"""The hold-out rows (`data/measurements/holdout.json`): public measurements gathered after
the shipped fit, which the fit never reads and `manage.py accuracy --corpus` scores with the
shipped constants (docs/accuracy.md, "Hold-out rows")."""

from __future__ import annotations

import io
import json
import statistics
from dataclasses import replace
from importlib import resources

import pytest
from django.core.cache import cache
from django.core.management import CommandError, call_command

from simulator.engine.calibration.corpus import (
    HOLDOUT_PATH,
    MeasurementRow,
    load_corpus,
    read_corpus_file,
    rows_from_corpus,
    source_of,
)
from simulator.engine.calibration.efficiency import load_efficiency
from simulator.engine.calibration.predict import predict_all
from simulator.engine.version import ENGINE_PACKAGE
from simulator.services.accuracy import holdout_report_get, holdout_report_key


def _holdout_rows() -> tuple[MeasurementRow, ...]:
    return rows_from_corpus(read_corpus_file(HOLDOUT_PATH))


def test_the_hold_out_rows_follow_the_corpus_schema_and_no_fit_has_seen_them() -> None:
    holdout = _holdout_rows()  # strict: a row breaking the schema raises
    _, corpus = load_corpus()
    assert holdout
    assert not {row.id for row in holdout} & {row.id for row in corpus}
    # no source of the hold-out is one the corpus cites, so no held-out table covers it
    assert not {source_of(row) for row in holdout} & {source_of(row) for row in corpus}
    table = load_efficiency()
    fitted = {row_id for entry in table.entries for row_id in entry.fitted_on}
    fitted |= {
        *table.routing_pool_fitted_on,
        *table.expert_gemm_fitted_on,
        *table.network_hop_fitted_on,
        *table.moe_layer_extra_fitted_on,
    }
    assert not fitted & {row.id for row in holdout}


@pytest.mark.django_db
def test_scoring_the_hold_out_fits_nothing_and_uses_the_shipped_constants() -> None:
    shipped = resources.files(ENGINE_PACKAGE).joinpath("data/efficiency.json").read_bytes()
    path = resources.files(ENGINE_PACKAGE).joinpath(HOLDOUT_PATH)
    out = io.StringIO()
    with pytest.raises(CommandError, match="target"):  # its error misses the targets
        call_command("accuracy", "--corpus", str(path), "--json", stdout=out)
    body = json.loads(out.getvalue())
    rows = {row["id"]: row for row in body["rows"]}
    holdout = _holdout_rows()
    assert set(rows) == {row.id for row in holdout}  # every row reported, modeled or not
    expected = {p.row_id: p for p in predict_all(holdout, load_efficiency())}
    modeled = [row for row in rows.values() if row["modeled"]]
    assert {row["id"] for row in modeled} == {i for i, p in expected.items() if p.modeled}
    for row in modeled:  # no source of it was left out of any fit: the full constants
        assert row["cv_predicted"] == pytest.approx(row["predicted"])
        assert row["predicted"] == pytest.approx(expected[row["id"]].predicted)
    median = statistics.median(abs(row["signed_error"]) for row in modeled)
    assert body["median_abs_error"] == pytest.approx(median)
    for row in rows.values():
        if not row["modeled"]:
            assert row["reason"]
    assert resources.files(ENGINE_PACKAGE).joinpath("data/efficiency.json").read_bytes() == shipped


@pytest.mark.django_db
def test_the_stored_report_prints_the_hold_out_third(corpus: int) -> None:
    holdout = holdout_report_get()
    out = io.StringIO()
    with pytest.raises(CommandError, match="target"):
        call_command("accuracy", "--json", stdout=out)
    body = json.loads(out.getvalue())
    assert body["holdout"]["median_abs_error"] == pytest.approx(holdout.median_abs_error)
    assert body["holdout"]["modeled_share"] == pytest.approx(holdout.modeled_share)
    text = io.StringIO()
    with pytest.raises(CommandError, match="target"):
        call_command("accuracy", stdout=text)
    assert f"Hold-out ({len(holdout.predictions)} rows gathered after the fit)" in text.getvalue()


@pytest.mark.django_db
def test_loading_the_corpus_after_a_deploy_scores_the_hold_out_afresh() -> None:
    first = holdout_report_get()
    cache.set(holdout_report_key(), replace(first, median_abs_error=9.99), 60)  # a stale copy
    assert holdout_report_get().median_abs_error == 9.99
    call_command("measurements_load", stdout=io.StringIO())
    assert holdout_report_get().median_abs_error == pytest.approx(first.median_abs_error)

"""Loading the shipped corpus: one accepted row per corpus row with its source, idempotent,
and every prediction stored as the engine computes it."""

from __future__ import annotations

import pytest

from simulator.engine.calibration import load_corpus, predict_all
from simulator.engine.calibration.corpus import read_corpus_file, shipped_corpus_document
from simulator.models import Measurement, MeasurementOrigin, MeasurementStatus
from simulator.services.measurements import measurements_load, prediction_version
from tests.accuracy.factories import MeasurementFactory

pytestmark = pytest.mark.django_db


def test_every_corpus_row_is_loaded_accepted_with_its_source(corpus: int) -> None:
    data = shipped_corpus_document()
    assert corpus == len(data["rows"]) == Measurement.objects.count()
    first = data["rows"][0]
    row = Measurement.objects.get(row_id=first["id"])
    assert (row.origin, row.status) == (MeasurementOrigin.CORPUS, MeasurementStatus.ACCEPTED)
    assert row.source == first["source"]
    assert row.source_url == first["source"]["url"]
    assert (row.hardware, row.workload, row.value) == (
        first["hardware"],
        first["workload"],
        first["value"],
    )


def test_fields_beyond_the_columns_are_kept_in_extra(corpus: int) -> None:
    with_caveats = [r for r in read_corpus_file()["rows"] if r.get("caveats")]
    row = Measurement.objects.get(row_id=with_caveats[0]["id"])
    assert row.extra["caveats"] == with_caveats[0]["caveats"]


def test_loading_again_changes_nothing(corpus: int) -> None:
    before = dict(Measurement.objects.values_list("row_id", "updated_at"))
    assert measurements_load() == corpus
    assert dict(Measurement.objects.values_list("row_id", "updated_at")) == before


def test_a_corpus_row_the_file_no_longer_holds_is_removed_and_users_rows_are_kept(
    corpus: int,
) -> None:
    retired = MeasurementFactory.create(row_id="G9999")  # a corpus row since moved out of the file
    mine = MeasurementFactory.create(row_id="U9999", origin=MeasurementOrigin.USER)
    assert measurements_load() == corpus
    assert not Measurement.objects.filter(pk=retired.pk).exists()
    assert Measurement.objects.filter(pk=mine.pk).exists()
    assert Measurement.objects.filter(origin=MeasurementOrigin.CORPUS).count() == corpus


def test_loading_restores_an_edited_corpus_row(corpus: int) -> None:
    row = Measurement.objects.get(row_id="H013")
    shipped = row.value
    Measurement.objects.filter(pk=row.pk).update(value=shipped * 2)
    measurements_load()
    row.refresh_from_db()
    assert row.value == shipped
    assert row.predicted is not None


def test_the_stored_predictions_are_the_engines(corpus: int) -> None:
    _, rows = load_corpus()
    stored = {m.row_id: m for m in Measurement.objects.all()}
    version = prediction_version()
    for prediction in predict_all(rows):
        row = stored[prediction.row_id]
        assert (row.modeled, row.predicted, row.signed_error, row.reason) == (
            prediction.modeled,
            prediction.predicted,
            prediction.signed_error,
            prediction.reason,
        )
        assert row.prediction_version == version


def test_rows_the_engine_cannot_model_keep_their_reason(corpus: int) -> None:
    not_modeled = Measurement.objects.filter(modeled=False)
    assert not_modeled.exists()
    assert all(row.reason and row.predicted is None for row in not_modeled)

"""Measurements (issue 9): the shipped corpus loaded as rows, user submissions reviewed by
staff, and the engine's stored prediction of every accepted row.

A row's prediction is stored with the version of the engine and of the efficiency table
that made it (`prediction_version`); `measurements_predict` recomputes rows whose version is
not the current one, so a new engine or a re-fit is picked up on the next report."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

import simulator.engine
from simulator.engine import (
    ENGINE_VERSION,
    EngineInputError,
    Prediction,
    crossval_to_json,
    efficiency_to_json,
    fit_shipped,
    json_path,
    load_crossval,
    load_efficiency,
    predict_row,
    row_from_json,
    rows_from_corpus,
    shipped_corpus_document,
)
from simulator.models import Measurement, MeasurementOrigin, MeasurementStatus

# The columns of a corpus row; any other key of the row is kept in `extra`.
ROW_FIELDS = ("category", "engine", "hardware", "model", "quant", "workload", "metric", "value",
              "unit")  # fmt: skip
USER_ROW_PREFIX = "U"
# The shipped efficiency constants the engine loads (`manage.py accuracy --fit` writes it).
EFFICIENCY_PATH = Path(simulator.engine.__file__).parent / "data" / "efficiency.json"


# --- the corpus ---------------------------------------------------------------------------
def corpus_data() -> dict[str, Any]:
    """The shipped corpus (title, assembled date, notes, rows; gathered rows included)."""
    return shipped_corpus_document()


@cache
def corpus_categories() -> tuple[str, ...]:
    """The categories the corpus defines (its field notes), then any its rows use."""
    data = corpus_data()
    noted = str(data.get("field_notes", {}).get("category", ""))
    names = [name.strip() for name in noted.split("|") if name.strip()]
    names += [row["category"] for row in data["rows"]]
    return tuple(dict.fromkeys(names))


# Rows per INSERT or UPDATE statement: one UPDATE of a thousand rows is a CASE expression
# Django takes seconds to build.
BULK_BATCH = 200


def _corpus_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    source = dict(row.get("source") or {})
    extra = {k: v for k, v in row.items() if k not in (*ROW_FIELDS, "id", "source")}
    return {
        **{name: row[name] for name in ROW_FIELDS},
        "value": float(row["value"]),
        "source": source,
        "source_url": str(source.get("url", "")),
        "extra": extra,
        "origin": MeasurementOrigin.CORPUS,
        "status": MeasurementStatus.ACCEPTED,
    }


def measurements_load(*, data: Mapping[str, Any] | None = None) -> int:
    """Create or update one accepted corpus row per row of `data` (the shipped corpus by
    default), remove the corpus rows it no longer holds (a row moved out of the corpus, such as
    to the hold-out file, must not stay in the report), then predict every accepted row again.
    Users' rows are kept. Idempotent; returns the number of corpus rows."""
    data = corpus_data() if data is None else data
    rows_from_corpus(data)  # validates every row; EngineInputError names the field at fault
    rows = data["rows"]
    ids = [row["id"] for row in rows]
    version, now = prediction_version(), timezone.now()
    with transaction.atomic():
        stored = {m.row_id: m for m in Measurement.objects.filter(row_id__in=ids)}
        new, edited = [], []
        for row in rows:
            fields = _corpus_fields(row)
            measurement = stored.get(row["id"])
            if measurement is None:
                # Predicted before it is written: one INSERT per batch, no UPDATE after.
                measurement = Measurement(row_id=row["id"], **fields)
                _store_prediction(measurement, *measurement_prediction(measurement, version),
                                  version)  # fmt: skip
                measurement.predicted_at = now
                new.append(measurement)
            elif any(getattr(measurement, k) != v for k, v in fields.items()):
                for name, value in fields.items():
                    setattr(measurement, name, value)
                measurement.prediction_version = ""
                measurement.updated_at = now
                edited.append(measurement)
        Measurement.objects.filter(origin=MeasurementOrigin.CORPUS).exclude(row_id__in=ids).delete()
        Measurement.objects.bulk_create(new, batch_size=BULK_BATCH)
        Measurement.objects.bulk_update(
            edited, [*fields, "prediction_version", "updated_at"], batch_size=BULK_BATCH
        )
    # Every corpus row, not only stale ones: new engine code may keep the engine's version.
    measurements_predict(force=True)
    return len(rows)


# --- user submissions ---------------------------------------------------------------------
def measurement_submit(
    *, submitter: User | AnonymousUser, fields: Mapping[str, Any]
) -> Measurement:
    """A user's measurement, pending staff review: it counts nowhere until accepted."""
    source = dict(fields.get("source") or {})
    source_url = str(fields.get("source_url") or source.get("url") or "")
    if source_url:
        source["url"] = source_url
    return Measurement.objects.create(
        row_id=f"{USER_ROW_PREFIX}{uuid.uuid4().hex[:10]}",
        **{name: fields[name] for name in ROW_FIELDS},
        source=source,
        source_url=source_url,
        command=str(fields.get("command", "")),
        origin=MeasurementOrigin.USER,
        status=MeasurementStatus.PENDING,
        submitter=submitter if isinstance(submitter, User) else None,
    )


def measurements_review(
    *, measurements: QuerySet[Measurement], status: MeasurementStatus, note: str = ""
) -> int:
    """Accept or reject rows (staff, in the admin); accepted rows are predicted at once, so
    the accuracy report and the error bands include them from now on."""
    now = timezone.now()
    ids = list(measurements.values_list("pk", flat=True))
    for measurement in Measurement.objects.filter(pk__in=ids):
        measurement.status = status
        measurement.reviewed_at = now
        if note:
            measurement.review_note = note
        measurement.save(update_fields=["status", "reviewed_at", "review_note", "updated_at"])
    if status == MeasurementStatus.ACCEPTED:
        measurements_predict(force=True, ids=ids)
    return len(ids)


# --- predictions --------------------------------------------------------------------------
@cache
def _efficiency_fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


# The version of the tables loaded now, kept with them: writing the held-out tables as JSON
# takes tens of milliseconds, and a request or a corpus load asks for the version often.
# Holding the tables keeps their ids from being reused while they are the key.
_version_of: tuple[object, object, str] | None = None


def prediction_version() -> str:
    """The engine version and a fingerprint of the efficiency constants it predicts with
    (the full fit and the held-out fits)."""
    global _version_of
    table, crossval = load_efficiency(), load_crossval()
    if _version_of is not None and _version_of[0] is table and _version_of[1] is crossval:
        return _version_of[2]
    text = json.dumps(efficiency_to_json(table), sort_keys=True)
    held_out = json.dumps(crossval_to_json(crossval), sort_keys=True)
    version = f"{ENGINE_VERSION}+{_efficiency_fingerprint(text + held_out)}"
    _version_of = (table, crossval, version)
    return version


def measurement_prediction(
    measurement: Measurement, version: str | None = None
) -> tuple[Prediction, Prediction]:
    """The engine's prediction of a stored row (read as the engine reads corpus rows) with
    the shipped constants, and with the constants fitted without the row's source; a row the
    engine cannot read is not modeled, with the reason."""
    row_json = json.dumps(measurement.as_corpus_row(), sort_keys=True, default=str)
    version = prediction_version() if version is None else version
    return _row_predictions(version, row_json, measurement.row_id)


# The engine is pure: one row's predictions under one version (engine and constants) are
# the same every time, so a process computes them once (bin/run reloads the corpus, the
# tests load it per test).
@lru_cache(maxsize=8192)
def _row_predictions(version: str, row_json: str, row_id: str) -> tuple[Prediction, Prediction]:
    body = json.loads(row_json)
    try:
        row = row_from_json(body, row_id)
    except EngineInputError as error:
        reason = f"the row cannot be read: {json_path(error.field)}: {error.message}"
        unread = Prediction(
            row_id=row_id, category=str(body.get("category", "")), modeled=False,
            measured=float(body.get("value") or 0.0), unit=str(body.get("unit", "")),
            predicted=None, signed_error=None, reason=reason,
        )  # fmt: skip
        return unread, unread
    crossval = load_crossval()
    return predict_row(row, load_efficiency()), predict_row(row, crossval.table_for(row))


PREDICTION_FIELDS = ("modeled", "predicted", "signed_error", "reason", "cv_predicted",
                     "cv_signed_error", "cv_reason", "runtime", "prediction_version")  # fmt: skip


def measurements_predict(*, force: bool = False, ids: Iterable[int] | None = None) -> int:
    """(Re)compute the stored prediction of accepted rows whose prediction is missing or
    stale (all of them with `force`: the engine's code may change without its version).
    Rows whose prediction did not change are left alone; returns how many were computed."""
    version = prediction_version()
    rows = Measurement.objects.filter(status=MeasurementStatus.ACCEPTED)
    if ids is not None:
        rows = rows.filter(pk__in=list(ids))
    if not force:
        rows = rows.exclude(prediction_version=version)
    computed = list(rows)
    now = timezone.now()
    changed = [
        m for m in computed if _store_prediction(m, *measurement_prediction(m, version), version)
    ]
    for measurement in changed:
        measurement.predicted_at = measurement.updated_at = now
    fields = [*PREDICTION_FIELDS, "predicted_at", "updated_at"]
    Measurement.objects.bulk_update(changed, fields, batch_size=BULK_BATCH)
    return len(computed)


def _store_prediction(
    measurement: Measurement, prediction: Prediction, held_out: Prediction, version: str
) -> bool:
    """Set the row's prediction fields; whether any of them changed."""
    values = (prediction.modeled, prediction.predicted, prediction.signed_error,
              prediction.reason, held_out.predicted, held_out.signed_error,
              held_out.reason, prediction.runtime, version)  # fmt: skip
    before = tuple(getattr(measurement, name) for name in PREDICTION_FIELDS)
    for name, value in zip(PREDICTION_FIELDS, values, strict=True):
        setattr(measurement, name, value)
    return before != values


def efficiency_fit_write(*, path: Path | None = None) -> Path:
    """Fit the efficiency constants as the shipped table is fitted (the engine's
    `fit_shipped`: `fit_efficiency` on the corpus, deterministic) and write them in the
    engine's format; writing the shipped table makes this process predict with the new
    constants (other processes pick them up when restarted)."""
    target = EFFICIENCY_PATH if path is None else path
    table = efficiency_to_json(fit_shipped())
    target.write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
    if target.resolve() == EFFICIENCY_PATH.resolve():
        load_efficiency.cache_clear()
    return target

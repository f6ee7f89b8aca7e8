"""`manage.py accuracy [--corpus FILE] [--json] [--fit [--fit-output PATH]]`: the accuracy
report as a table (every row, per-category and per-runtime medians, worsts and p10…p90
errors, overall figures). The headline is cross-validated: each row predicted with constants
fitted without any row of its source; the in-sample figures follow. Exits 1 when a
cross-validated target is missed, so CI can gate on it.

`--corpus FILE` scores the rows of any file in the corpus schema (a user's own
measurements) with the shipped constants, fitting nothing on them; rows the engine cannot
model come back with the reason. Without it, the accepted rows of the database.

`--fit` first re-fits the efficiency constants on the shipped corpus with the engine's
`fit_efficiency` (deterministic: same corpus, same constants) and writes them to
`simulator/engine/data/efficiency.json` (or `--fit-output`), then reports with them."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from simulator.engine import (
    CROSS_VALIDATED_TARGETS,
    IN_SAMPLE_TARGETS,
    AccuracyReport,
    CategoryStats,
    EngineInputError,
    Prediction,
    accuracy_report,
    json_path,
    load_crossval,
    predict_all,
    predict_row,
    rows_from_corpus,
)
from simulator.engine.calibration import MeasurementRow
from simulator.models import Measurement
from simulator.services.accuracy import accuracy_view_get, category_label
from simulator.services.measurements import (
    EFFICIENCY_PATH,
    efficiency_fit_write,
    measurements_load,
)

ROW_HEADER = ("row", "category", "runtime", "measured", "predicted (cross-validated)",
              "error", "in-sample error", "reason")  # fmt: skip
CATEGORY_HEADER = ("category", "name", "modeled", "not modeled", "median |err|", "worst |err|",
                   "worst row", "p10…p90 error")  # fmt: skip
RUNTIME_HEADER = ("runtime", "modeled", "not modeled", "median |err|", "worst |err|",
                  "worst row", "p10…p90 error")  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class ReportRow:
    """One row of the printed report, from the database or from a file's predictions."""

    row_id: str
    category: str
    runtime: str
    value: float
    unit: str
    modeled: bool
    predicted: float | None
    signed_error: float | None
    cv_predicted: float | None
    cv_signed_error: float | None
    reason: str
    source_url: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Printed:
    title: str
    assembled: str
    report: AccuracyReport  # cross-validated: the headline
    in_sample: AccuracyReport
    rows: list[ReportRow]
    # the shipped constants on the hold-out rows (the stored report only; a user's file is
    # its own hold-out)
    holdout: AccuracyReport | None = None


def _stored_row(m: Measurement) -> ReportRow:
    return ReportRow(
        row_id=m.row_id, category=m.category, runtime=m.runtime, value=m.value, unit=m.unit,
        modeled=m.modeled, predicted=m.predicted, signed_error=m.signed_error,
        cv_predicted=m.cv_predicted, cv_signed_error=m.cv_signed_error, reason=m.reason,
        source_url=m.source_url,
    )  # fmt: skip


def _file_row(row: MeasurementRow, full: Prediction, held_out: Prediction) -> ReportRow:
    return ReportRow(
        row_id=row.id, category=row.category, runtime=full.runtime, value=row.value,
        unit=row.unit, modeled=full.modeled, predicted=full.predicted,
        signed_error=full.signed_error, cv_predicted=held_out.predicted,
        cv_signed_error=held_out.signed_error, reason=full.reason, source_url=row.source_url,
    )  # fmt: skip


def file_report(path: Path) -> Printed:
    """The rows of a corpus-schema file predicted with the shipped constants, fitting nothing
    on them; a row citing a source the shipped fit used takes that source's held-out
    constants (so no row is scored with constants fitted on its own source)."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CommandError(f"cannot read {path}: {error}") from error
    if not isinstance(data, dict):
        raise CommandError(f"{path}: the corpus must be a JSON object with a 'rows' list")
    try:
        rows = rows_from_corpus(data, lenient=True)
    except EngineInputError as error:
        message = f"invalid corpus {path}: {json_path(error.field)}: {error.message}"
        raise CommandError(message) from error
    crossval = load_crossval()
    full = predict_all(rows, crossval.full)
    held_out = [predict_row(row, crossval.table_for(row)) for row in rows]
    return Printed(
        title=str(data.get("title") or path.name),
        assembled=str(data.get("assembled") or "—"),
        report=accuracy_report(held_out, CROSS_VALIDATED_TARGETS),
        in_sample=accuracy_report(full, IN_SAMPLE_TARGETS),
        rows=[_file_row(*triple) for triple in zip(rows, full, held_out, strict=True)],
    )


def stored_report() -> Printed:
    view = accuracy_view_get()
    return Printed(
        title=view.title,
        assembled=view.assembled,
        report=view.report,
        in_sample=view.in_sample,
        rows=[_stored_row(m) for m in view.rows],
        holdout=view.holdout,
    )


def _pct(value: float | None, signed: bool = False) -> str:
    return "—" if value is None else f"{value * 100:{'+' if signed else ''}.1f}%"


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:,.1f}"


def _range(c: CategoryStats) -> str:
    if c.signed_error_low is None or c.signed_error_high is None:
        return "—"
    return f"{_pct(c.signed_error_low, True)}…{_pct(c.signed_error_high, True)}"


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip()
             for line in (header, *rows)]  # fmt: skip
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _summary(label: str, report: AccuracyReport) -> list[str]:
    worst = "—" if report.worst_ratio is None else f"{report.worst_ratio:.2f}x"
    share = "—" if report.modeled_share is None else f"{report.modeled_share:.0%}"
    return [
        f"{label}: median |error| {_pct(report.median_abs_error)}; worst modeled row {worst}; "
        f"{share} of rows modeled",
        f"  targets ({report.targets.name}): {'met' if report.targets_met else 'missed'}",
        *(f"  miss: {miss}" for miss in report.misses),
    ]


def format_accuracy(view: Printed) -> str:
    report = view.report
    rows = [
        (m.row_id, m.category, m.runtime or "—", f"{_num(m.value)} {m.unit}",
         f"{_num(m.cv_predicted)} {m.unit}" if m.modeled else "not modeled",
         _pct(m.cv_signed_error, signed=True), _pct(m.signed_error, signed=True), m.reason)
        for m in view.rows
    ]  # fmt: skip
    categories = [
        (c.category, category_label(c.category), str(c.modeled), str(c.not_modeled),
         _pct(c.median_abs_error), _pct(c.worst_abs_error), c.worst_row_id or "—", _range(c))
        for c in report.categories
    ]  # fmt: skip
    runtimes = [
        (c.category, str(c.modeled), str(c.not_modeled), _pct(c.median_abs_error),
         _pct(c.worst_abs_error), c.worst_row_id or "—", _range(c))
        for c in report.runtimes
    ]  # fmt: skip
    summary = [
        f"Corpus: {view.title} (assembled {view.assembled}), {len(view.rows)} rows",
        *_summary("Cross-validated (each source left out of the fit)", report),
        *_summary("In-sample (constants fitted on these rows)", view.in_sample),
    ]
    if view.holdout is not None:
        label = f"Hold-out ({len(view.holdout.predictions)} rows gathered after the fit)"
        summary += _summary(label, view.holdout)
    return "\n\n".join(
        (
            _table(ROW_HEADER, rows),
            "Per category, cross-validated:\n" + _table(CATEGORY_HEADER, categories),
            "Per runtime, cross-validated:\n" + _table(RUNTIME_HEADER, runtimes),
            "\n".join(summary),
        )
    )


def _stats_json(c: CategoryStats, name: str = "category") -> dict[str, Any]:
    return {name: c.category, "modeled": c.modeled, "not_modeled": c.not_modeled,
            "median_abs_error": c.median_abs_error, "worst_abs_error": c.worst_abs_error,
            "worst_row_id": c.worst_row_id, "signed_error_low": c.signed_error_low,
            "signed_error_high": c.signed_error_high}  # fmt: skip


def _report_json(report: AccuracyReport) -> dict[str, Any]:
    t = report.targets
    return {
        "median_abs_error": report.median_abs_error,
        "worst_ratio": report.worst_ratio,
        "modeled_share": report.modeled_share,
        "targets": {"name": t.name, "median_abs_error": t.median_abs_error,
                    "category_median_abs_error": t.category_median_abs_error,
                    "category_min_rows": t.category_min_rows, "worst_ratio": t.worst_ratio,
                    "modeled_share": t.modeled_share},
        "targets_met": report.targets_met,
        "misses": list(report.misses),
        "categories": [_stats_json(c) for c in report.categories],
        "runtimes": [_stats_json(c, "runtime") for c in report.runtimes],
    }  # fmt: skip


def accuracy_json(view: Printed) -> dict[str, Any]:
    return {
        "corpus_title": view.title,
        "corpus_assembled": view.assembled,
        **_report_json(view.report),
        "in_sample": _report_json(view.in_sample),
        **({} if view.holdout is None else {"holdout": _report_json(view.holdout)}),
        "rows": [
            {"id": m.row_id, "category": m.category, "runtime": m.runtime, "measured": m.value,
             "cv_predicted": m.cv_predicted, "cv_signed_error": m.cv_signed_error,
             "predicted": m.predicted, "signed_error": m.signed_error,
             "unit": m.unit, "modeled": m.modeled, "reason": m.reason,
             "source_url": m.source_url}
            for m in view.rows
        ],
    }  # fmt: skip


class Command(BaseCommand):
    help = "Print the accuracy report; exit 1 if a target is missed (--fit re-fits first)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.add_argument(
            "--corpus",
            type=Path,
            default=None,
            help="score the rows of this corpus-schema JSON file (nothing is fitted on them)",
        )
        parser.add_argument(
            "--fit", action="store_true", help="re-fit the efficiency constants on the corpus"
        )
        parser.add_argument(
            "--fit-output", type=Path, default=None, help=f"where --fit writes ({EFFICIENCY_PATH})"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["corpus"] is not None and options["fit"]:
            raise CommandError("--corpus scores a file with the shipped constants; drop --fit")
        if options["corpus"] is not None:
            view = file_report(options["corpus"])
        else:
            try:
                if options["fit"]:
                    path = efficiency_fit_write(path=options["fit_output"])
                    self.stderr.write(f"Fitted efficiency constants written to {path}")
                measurements_load()
            except EngineInputError as error:
                raise CommandError(f"invalid corpus: {error}") from error
            view = stored_report()
        if options["json"]:
            self.stdout.write(json.dumps(accuracy_json(view), indent=2, allow_nan=False))
        else:
            self.stdout.write(format_accuracy(view))
        if not view.report.targets_met:
            raise CommandError(f"{len(view.report.misses)} accuracy target(s) missed", returncode=1)

"""`manage.py accuracy [--json] [--fit [--fit-output PATH]]`: the accuracy report as a table
(every accepted row, per-category medians and worsts, overall figures); exits 1 when a
target of issue 9 is missed, so CI can gate on it.

`--fit` first re-fits the efficiency constants on the shipped corpus with the engine's
`fit_efficiency` (deterministic: same corpus, same constants) and writes them to
`simulator/engine/data/efficiency.json` (or `--fit-output`), then reports with them."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from simulator.engine import EngineInputError
from simulator.services.accuracy import AccuracyView, accuracy_view_get, category_label
from simulator.services.measurements import (
    EFFICIENCY_PATH,
    efficiency_fit_write,
    measurements_load,
)

ROW_HEADER = ("row", "category", "measured", "predicted", "error", "reason")
CATEGORY_HEADER = ("category", "name", "modeled", "not modeled", "median |err|", "worst |err|",
                   "worst row")  # fmt: skip


def _pct(value: float | None, signed: bool = False) -> str:
    return "—" if value is None else f"{value * 100:{'+' if signed else ''}.1f}%"


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:,.1f}"


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip()
             for line in (header, *rows)]  # fmt: skip
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_accuracy(view: AccuracyView) -> str:
    report = view.report
    rows = [
        (m.row_id, m.category, f"{_num(m.value)} {m.unit}",
         f"{_num(m.predicted)} {m.unit}" if m.modeled else "not modeled",
         _pct(m.signed_error, signed=True), m.reason)
        for m in view.rows
    ]  # fmt: skip
    categories = [
        (c.category, category_label(c.category), str(c.modeled), str(c.not_modeled),
         _pct(c.median_abs_error), _pct(c.worst_abs_error), c.worst_row_id or "—")
        for c in report.categories
    ]  # fmt: skip
    worst = "—" if report.worst_ratio is None else f"{report.worst_ratio:.2f}x"
    summary = [
        f"Corpus: {view.title} (assembled {view.assembled}), {len(view.rows)} accepted rows",
        f"Overall median |error|: {_pct(report.median_abs_error)}; worst modeled row: {worst}",
        f"Targets met: {'yes' if report.targets_met else 'no'}",
        *(f"  miss: {miss}" for miss in report.misses),
    ]
    return "\n\n".join(
        (
            _table(ROW_HEADER, rows),
            _table(CATEGORY_HEADER, categories),
            "\n".join(summary),
        )
    )


def accuracy_json(view: AccuracyView) -> dict[str, Any]:
    report = view.report
    return {
        "corpus_title": view.title,
        "corpus_assembled": view.assembled,
        "median_abs_error": report.median_abs_error,
        "worst_ratio": report.worst_ratio,
        "targets_met": report.targets_met,
        "misses": list(report.misses),
        "categories": [
            {"category": c.category, "modeled": c.modeled, "not_modeled": c.not_modeled,
             "median_abs_error": c.median_abs_error, "worst_abs_error": c.worst_abs_error,
             "worst_row_id": c.worst_row_id}
            for c in report.categories
        ],
        "rows": [
            {"id": m.row_id, "category": m.category, "measured": m.value,
             "predicted": m.predicted, "signed_error": m.signed_error, "unit": m.unit,
             "modeled": m.modeled, "reason": m.reason, "source_url": m.source_url}
            for m in view.rows
        ],
    }  # fmt: skip


class Command(BaseCommand):
    help = "Print the accuracy report; exit 1 if a target is missed (--fit re-fits first)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.add_argument(
            "--fit", action="store_true", help="re-fit the efficiency constants on the corpus"
        )
        parser.add_argument(
            "--fit-output", type=Path, default=None, help=f"where --fit writes ({EFFICIENCY_PATH})"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            if options["fit"]:
                path = efficiency_fit_write(path=options["fit_output"])
                self.stderr.write(f"Fitted efficiency constants written to {path}")
            measurements_load()
        except EngineInputError as error:
            raise CommandError(f"invalid corpus: {error}") from error
        view = accuracy_view_get()
        if options["json"]:
            self.stdout.write(json.dumps(accuracy_json(view), indent=2, allow_nan=False))
        else:
            self.stdout.write(format_accuracy(view))
        if not view.report.targets_met:
            raise CommandError(f"{len(view.report.misses)} accuracy target(s) missed", returncode=1)

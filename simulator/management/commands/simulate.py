"""`manage.py simulate --input request.json [--json]` and `manage.py simulate --validate`.

A thin adapter over `simulator.engine`: read the request body POST /api/simulate takes,
simulate, print seed-style tables or JSON. Bad input is a CommandError naming the field.
"""

from __future__ import annotations

import json
import sys
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from simulator.engine import (
    EngineInputError,
    format_report,
    parse_request,
    result_to_json,
    run_checks,
    simulate,
)
from simulator.services.accuracy import result_error_band

RANGE_UNITS = {"tokens_per_s": "tokens/s", "decode_tokens_per_s": "decode tokens/s",
               "prefill_tokens_per_s": "prefill tokens/s", "hours_for_tokens": "hours",
               "output_tokens_per_s": "output tokens/s", "requests_per_s": "requests/s",
               "request_latency_s": "s a request"}  # fmt: skip


def format_band(band: dict[str, Any]) -> str:
    """The figures' likely ranges (cross-validated 10th–90th percentile of the errors of
    their class) and what they rest on; a serving run's, of the batched serving rows, after."""
    lines = [f"Accuracy of this class ({band['category_label']}), cross-validated:"]
    for name, unit in RANGE_UNITS.items():
        span = band.get(f"{name}_range")
        if span:
            lines.append(f"  likely {span[0]:,.1f}–{span[1]:,.1f} {unit}")
    lines.append(f"  {band.get('range_basis') or 'no measured row yet: no range'}")
    if isinstance(band.get("serving_run"), dict):
        lines.append("Serving run: " + format_band(band["serving_run"]))
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Simulate one request body (QLoRA training or inference), or run the seed's checks."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--input", help="request JSON file ('-' for stdin)")
        parser.add_argument("--json", action="store_true", help="print the result as JSON")
        parser.add_argument("--validate", action="store_true", help="run the assumption checks")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["validate"]:
            self._validate()
            return
        if not options["input"]:
            raise CommandError("give --input request.json (or --validate)")
        try:
            result = simulate(parse_request(_read_body(options["input"])))
        except EngineInputError as error:
            raise CommandError(f"invalid request: {error}") from error
        body = result_to_json(result)
        try:
            band: dict[str, Any] | None = result_error_band(body)
        except DatabaseError as error:  # no database yet: the figures without their ranges
            self.stderr.write(f"no error band: the measurements cannot be read ({error})")
            band = None
        if options["json"]:
            text = json.dumps({**body, "error_band": band}, indent=2, allow_nan=False)
            self.stdout.write(text)
        else:
            self.stdout.write(format_report(result))
            if band is not None:
                self.stdout.write(format_band(band))

    def _validate(self) -> None:
        checks = run_checks()
        for check in checks:
            mark = "PASS" if check.passed else "FAIL"
            self.stdout.write(f"{mark}  {check.name}: {check.detail}")
        failed = [check.name for check in checks if not check.passed]
        if failed:
            raise CommandError(f"{len(failed)} assumption check(s) failed: {', '.join(failed)}")
        self.stdout.write(f"all {len(checks)} assumption checks passed")


def _read_body(source: str) -> object:
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text("utf-8")
    except OSError as error:
        raise CommandError(f"cannot read {source}: {error.strerror}") from error
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise CommandError(f"{source} is not valid JSON: {error}") from error

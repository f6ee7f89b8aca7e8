"""Schemathesis against /api/schema/: every operation, every built-in check, schema-valid and
schema-invalid requests; no answer may be a 5xx or differ from the schema.

Deterministic (a fixed Hypothesis seed per operation, no example database) and bounded by
a number of cases: PLANNER_FUZZ_CASES (default 2,000) is shared among the operations, POST
/api/simulate and GET /api/rankings getting the largest shares. Statuses a schema-valid
request may get are set per operation in schemathesis.toml.
"""

from __future__ import annotations

import contextlib
import os
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from django.core.management import call_command
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.config import SchemathesisConfig
from schemathesis.core.failures import FailureGroup
from schemathesis.generation import GenerationMode

from planner_site.wsgi import application
from simulator.throttles import SimulateAnonThrottle

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((REPO_ROOT / "catalog" / "fixtures").glob("*.json"))
TOTAL_CASES = int(os.environ.get("PLANNER_FUZZ_CASES", "2000"))
# Share of the cases per operation: the bodies of POST /api/simulate are where the input
# space is; every other operation is a handful of typed query parameters.
WEIGHTS = {"simulate": 12, "rankings_list": 4}
MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)

pytestmark = [pytest.mark.services, pytest.mark.django_db]


@dataclass
class FuzzReport:
    cases: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def record(self, case: Any) -> None:
        response = case.call()
        self.cases += 1
        self.statuses[response.status_code] += 1
        try:
            case.validate_response(response)
        except (AssertionError, FailureGroup) as failure:
            title = f"{case.operation.label} ({case.meta.generation.mode.value})"
            self.failures.append(f"{title}: {str(failure)[:1500]}")


def _budgets(operation_ids: list[str]) -> dict[str, int]:
    weights = {op: WEIGHTS.get(op, 1) for op in operation_ids}
    total = sum(weights.values())
    return {op: max(1, TOTAL_CASES * weight // total) for op, weight in weights.items()}


def _fuzz(
    report: FuzzReport, operation: Any, mode: GenerationMode, examples: int, round_: int = 0
) -> None:
    @seed(zlib.crc32(f"{operation.label} {mode.value} {round_}".encode()))
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case: Any) -> None:
        report.record(case)

    # Unsatisfiable: nothing in this operation can be made schema-invalid (a free-text slug).
    with contextlib.suppress(Unsatisfiable):
        run()


@pytest.fixture
def api_open_for_fuzzing(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The catalog loaded, no throttle, and room for every ranking the fuzzer queues (the
    test transaction never commits, so none reaches the broker)."""
    call_command("loaddata", *map(str, FIXTURES), verbosity=0)
    monkeypatch.setitem(SimulateAnonThrottle.THROTTLE_RATES, "simulate_anon", "1000000/min")
    settings.RANKING_QUEUE_MAX = 1_000_000
    # As Django's test client does: the WSGI handler would otherwise close the connection
    # that holds the test's transaction at the end of each request.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def test_no_generated_request_gets_a_5xx_or_an_answer_off_the_schema(
    api_open_for_fuzzing: None,
) -> None:
    config = SchemathesisConfig.from_path(REPO_ROOT / "schemathesis.toml")
    schema = schemathesis.openapi.from_wsgi("/api/schema/", application, config=config)
    operations = [result.ok() for result in schema.get_all_operations()]  # type: ignore[union-attr]
    budgets = _budgets([op.definition.raw["operationId"] for op in operations])
    report = FuzzReport()
    started = time.monotonic()

    for operation in operations:
        examples = budgets[operation.definition.raw["operationId"]]
        for mode in MODES:
            _fuzz(report, operation, mode, examples=max(1, examples // len(MODES)))
    # Small operations run out of distinct inputs early: the simulate body makes up the rest.
    simulate = next(op for op in operations if op.definition.raw["operationId"] == "simulate")
    for round_ in range(1, 10):
        if report.cases >= TOTAL_CASES:
            break
        _fuzz(report, simulate, MODES[round_ % 2], TOTAL_CASES - report.cases, round_)

    server_errors = sum(n for status, n in report.statuses.items() if status >= 500)
    print(
        f"\nschemathesis: {report.cases} cases over {len(operations)} operations in "
        f"{time.monotonic() - started:.0f} s; statuses {dict(sorted(report.statuses.items()))}; "
        f"5xx {server_errors}; check failures {len(report.failures)}"
    )
    assert report.failures == []
    assert server_errors == 0
    assert report.cases >= TOTAL_CASES

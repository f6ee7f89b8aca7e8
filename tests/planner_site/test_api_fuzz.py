"""Schemathesis against /api/schema/, as an attacker would: over HTTP through the Procfile's
gunicorn (planner_site/gunicorn.py, its worker class and limits), as three clients (no
credentials, a plain account's token, a staff token that may write prices), every
operation, every built-in check, schema-valid and schema-invalid requests; no answer may be
a 5xx or differ from the schema.

Random and recorded: the seed is drawn per run (or taken from PLANNER_FUZZ_SEED to replay a
run) and printed, and every failure names it. Bounded by a number of cases:
PLANNER_FUZZ_CASES (default 1,500 here; benchmarks/bench_fuzz.py runs 10,000) is shared
among the operations, POST /api/simulate and GET /api/rankings getting the largest shares.
Statuses a schema-valid request may get are set per operation in schemathesis.toml.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import sys
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from django.core.management import call_command
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import Unsatisfiable
from jsonschema import Draft4Validator
from rest_framework.authtoken.models import Token
from schemathesis.config import SchemathesisConfig
from schemathesis.core.failures import FailureGroup
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation import GenerationMode

from tests.catalog.factories import UserFactory, pricing_staff
from tests.conftest import REPO_ROOT, database_url_for_current_connection
from tests.reliability.conftest import RedisServer, free_port, web_server

FIXTURES = sorted((REPO_ROOT / "catalog" / "fixtures").glob("*.json"))
TOTAL_CASES = int(os.environ.get("PLANNER_FUZZ_CASES", "1500"))
# Share of the cases per operation: the bodies of POST /api/simulate are where the input
# space is; every other operation is a handful of typed query parameters.
WEIGHTS = {"simulate": 12, "rankings_list": 4}
MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
IDENTITIES = ("anonymous", "user", "staff")

pytestmark = [pytest.mark.services]


def fuzz_seed() -> int:
    """PLANNER_FUZZ_SEED to replay a run, else a fresh one (printed with the results)."""
    given_seed = os.environ.get("PLANNER_FUZZ_SEED")
    return int(given_seed) if given_seed else random.SystemRandom().randrange(2**32)


@dataclass
class FuzzReport:
    seed: int
    base_url: str
    cases: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    by_identity: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def record(self, case: Any, identity: str, headers: dict[str, str]) -> None:
        response = case.call(base_url=self.base_url, headers=headers)
        self.cases += 1
        self.statuses[response.status_code] += 1
        self.by_identity[identity] += 1
        try:
            case.validate_response(response)
        except (AssertionError, FailureGroup) as failure:
            title = f"{case.operation.label} ({case.meta.generation.mode.value}, {identity})"
            self.failures.append(
                f"{title}, replay with PLANNER_FUZZ_SEED={self.seed}: {str(failure)[:1500]}"
            )

    def summary(self, operations: int, seconds: float) -> str:
        errors = sum(n for status, n in self.statuses.items() if status >= 500)
        return (
            f"schemathesis through gunicorn: {self.cases} cases over {operations} operations"
            f" in {seconds:.0f} s, seed {self.seed} (PLANNER_FUZZ_SEED); per client"
            f" {dict(sorted(self.by_identity.items()))}; statuses"
            f" {dict(sorted(self.statuses.items()))}; 5xx {errors}; check failures"
            f" {len(self.failures)}"
        )


def _budgets(operation_ids: list[str], total: int) -> dict[str, int]:
    weights = {op: WEIGHTS.get(op, 1) for op in operation_ids}
    whole = sum(weights.values())
    return {op: max(1, total * weight // whole) for op, weight in weights.items()}


def _valid_on_the_wire(case: Any) -> bool:
    """Whether every query parameter a schema-invalid case broke is sent as a valid value.
    Every query parameter allows an empty value (planner_site/openapi.py), and a list of one
    item (schemathesis turning an integer into an array) is written as that item:
    `tokens=[""]` as `tokens=`, `tokens=[70]` as `tokens=70`, an empty list not at all. A
    broken parameter so written as an empty or absent value, or as an item its schema takes,
    makes no invalid request."""
    mutations = getattr(case.meta.phase.data, "mutations", ())
    broken = {
        m.parameter
        for m in mutations
        if m.parameter and m.parameter_location == ParameterLocation.QUERY
    }
    query = case.query or {}
    schemas = {p.definition["name"]: p.definition.get("schema", {}) for p in case.operation.query}
    return bool(broken) and all(
        _written_valid(query.get(name), schemas.get(name, {})) for name in broken
    )


def _written_valid(value: Any, schema: dict[str, Any]) -> bool:
    """Whether a query value, as written on the wire, is empty, absent or one its schema
    takes."""
    if value in ("", [], [""], [None]):
        return True
    if not (isinstance(value, list) and len(value) == 1):
        return False
    item = value[0]
    if isinstance(item, list | dict):
        return False
    readings = [item]
    if isinstance(item, str):  # "70" on the wire is the integer the API reads
        with contextlib.suppress(ValueError):
            readings.append(json.loads(item))
    return any(Draft4Validator(schema).is_valid(reading) for reading in readings)


def _fuzz(
    report: FuzzReport,
    operation: Any,
    mode: GenerationMode,
    examples: int,
    clients: dict[str, dict[str, str]],
    round_: int = 0,
) -> None:
    """`examples` cases of one operation in one mode, each sent as one of the clients in
    turn; seeded from the run's seed and the operation, so a run replays whole."""
    label = f"{report.seed} {operation.label} {mode.value} {round_}"
    turn = iter(range(10**9))

    @seed(zlib.crc32(label.encode()))
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case: Any) -> None:
        if mode is GenerationMode.NEGATIVE and _valid_on_the_wire(case):
            return
        identity = IDENTITIES[next(turn) % len(IDENTITIES)]
        report.record(case, identity, clients[identity])

    # Unsatisfiable: nothing in this operation can be made schema-invalid (a free-text slug).
    with contextlib.suppress(Unsatisfiable):
        run()


def fuzz_api(base_url: str, clients: dict[str, dict[str, str]], total: int, seed_: int) -> Any:
    """Fuzz every operation of the API at `base_url` for `total` cases; the report."""
    config = SchemathesisConfig.from_path(REPO_ROOT / "schemathesis.toml")
    schema = schemathesis.openapi.from_url(f"{base_url}/api/schema/", config=config)
    operations = [result.ok() for result in schema.get_all_operations()]  # type: ignore[union-attr]
    budgets = _budgets([op.definition.raw["operationId"] for op in operations], total)
    report = FuzzReport(seed=seed_, base_url=base_url)
    started = time.monotonic()
    for operation in operations:
        examples = budgets[operation.definition.raw["operationId"]]
        for mode in MODES:
            _fuzz(report, operation, mode, max(1, examples // len(MODES)), clients)
    # Small operations run out of distinct inputs early: the simulate body makes up the rest.
    simulate = next(op for op in operations if op.definition.raw["operationId"] == "simulate")
    for round_ in range(1, 50):
        if report.cases >= total:
            break
        _fuzz(report, simulate, MODES[round_ % 2], total - report.cases, clients, round_)
    return report, len(operations), time.monotonic() - started


def _answers(port: int) -> bool:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        connection.request("GET", "/api/parts")
        return connection.getresponse().status == 200
    except OSError:
        return False


@contextlib.contextmanager
def gunicorn_for_fuzzing(tmp_path: Path) -> Iterator[str]:
    """The Procfile's gunicorn on the committed test database, with a broker of its own (the
    rankings it queues go nowhere else) and no throttle or queue cap in the way of the
    fuzzer's volume; its base URL."""
    broker = RedisServer(port=free_port(), folder=tmp_path / "broker")
    broker.folder.mkdir()
    broker.start()
    port = free_port()
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "DJANGO_SETTINGS_MODULE": "planner_site.settings.test",
        "DATABASE_URL": database_url_for_current_connection(),
        "CELERY_BROKER_URL": broker.url,
        "SIMULATE_ANON_RATE": "1000000/min",
        "RANKING_QUEUE_MAX": "1000000",
    }
    procfile = (REPO_ROOT / "Procfile").read_text()
    web = next(line for line in procfile.splitlines() if line.startswith("web: "))[5:]
    env |= {"WEB_HOST": "127.0.0.1", "WEB_PORT": str(port)}
    command = ["bash", "-c", f"exec {web}"]
    try:
        with web_server(
            command, env=env, ready=partial(_answers, port), log_path=tmp_path / "web.log"
        ):
            yield f"http://127.0.0.1:{port}"
    finally:
        broker.kill()


def fuzz_clients() -> dict[str, dict[str, str]]:
    """Headers of the three clients: none, a plain account's token, a pricing staff token."""
    user = Token.objects.create(user=UserFactory.create()).key
    staff = Token.objects.create(user=pricing_staff()).key
    return {
        "anonymous": {},
        "user": {"Authorization": f"Token {user}"},
        "staff": {"Authorization": f"Token {staff}"},
    }


def test_no_generated_request_gets_a_5xx_or_an_answer_off_the_schema(
    transactional_db: None, tmp_path: Path
) -> None:
    call_command("loaddata", *map(str, FIXTURES), verbosity=0)
    clients = fuzz_clients()
    seed_ = fuzz_seed()

    with gunicorn_for_fuzzing(tmp_path) as base_url:
        report, operations, seconds = fuzz_api(base_url, clients, TOTAL_CASES, seed_)

    print(f"\n{report.summary(operations, seconds)}")
    server_errors = sum(n for status, n in report.statuses.items() if status >= 500)
    assert report.failures == [], "\n\n".join(
        [report.summary(operations, seconds), *report.failures]
    )
    assert server_errors == 0, report.summary(operations, seconds)
    assert report.cases >= TOTAL_CASES
    assert set(report.by_identity) == set(IDENTITIES)

"""From a staff price change to GET /api/rankings showing it, end to end.

For each checkout given (this one, and with `--baseline PATH` an older one, e.g. a git
worktree of the commit before rankings kept prices apart), the script loads the shipped
catalog into a fresh database, starts that checkout's gunicorn (planner_site/gunicorn.py)
and Celery worker (Procfile's shape: concurrency 2, OMP_NUM_THREADS=1) on the real
PostgreSQL and Redis of this machine, waits for the default ranking and then for every
default ranking (`manage.py rankings_refresh`: the steady state), and then `--repeat` times
(each once what the previous change queued has finished): posts a staff price change
(POST /api/prices with a token: the top build's GPU one dollar cheaper, so the build stays
on top) and polls GET /api/rankings every `--poll-s` until the top row shows the new price.
It reports each latency, and the ranking runs and simulated-build rows the changes created.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/planner_bench_p2r \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/13 CACHE_URL=redis://127.0.0.1:6379/12 \\
    .venv/bin/python benchmarks/bench_price_to_rankings.py --baseline /tmp/p2r-baseline

Each checkout runs under its own `PYTHONPATH` and working directory with this venv.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
RANKINGS = "/api/rankings"
START_TIMEOUT_S = 60.0
FIRST_RANKING_TIMEOUT_S = 600.0
CHANGE_TIMEOUT_S = 600.0
ENV_KEYS = ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")
SETUP = """
from django.contrib.auth.models import Permission, User
from rest_framework.authtoken.models import Token
user = User.objects.create_user("bench-staff", password="x", is_staff=True)
user.user_permissions.add(Permission.objects.get(codename="add_priceobservation"))
print(Token.objects.create(user=user).key)
"""


@dataclass
class Result:
    label: str
    latencies_s: list[float] = field(default_factory=list)
    runs_before: int = 0
    runs_after: int = 0
    simulated_before: int | None = None
    simulated_after: int | None = None
    first_ranking_s: float = 0.0


def _env(tree: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(tree),
        "DJANGO_SETTINGS_MODULE": "planner_site.settings",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def _manage(tree: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=tree, env=_env(tree),
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout


def _psql(sql: str, database: str = "postgres") -> str:
    url = urlsplit(os.environ["DATABASE_URL"])
    command = ["psql", "-h", url.hostname or "127.0.0.1", "-U", url.username or "postgres",
               "-p", str(url.port or 5432), "-d", database, "-At", "-c", sql]  # fmt: skip
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()


def _fresh_database(tree: Path) -> str:
    name = urlsplit(os.environ["DATABASE_URL"]).path.lstrip("/")
    _psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _psql(f'CREATE DATABASE "{name}"')
    _manage(tree, "migrate", "-v0")
    _manage(tree, "loaddata", "-v0", *sorted(map(str, tree.glob("catalog/fixtures/*.json"))))
    return _manage(tree, "shell", "-c", SETUP).strip().splitlines()[-1]


def _query(sql: str) -> str:
    return _psql(sql, database=urlsplit(os.environ["DATABASE_URL"]).path.lstrip("/"))


def _count(sql: str) -> int:
    return int(_query(sql))


def _drain() -> None:
    """Wait until no ranking is queued or running."""
    deadline = time.monotonic() + FIRST_RANKING_TIMEOUT_S
    unfinished = (
        "SELECT count(*) FROM simulator_simulationrun WHERE status IN ('queued', 'running')"
    )
    while _count(unfinished):
        if time.monotonic() > deadline:
            raise RuntimeError("rankings still unfinished")
        time.sleep(0.5)


def _table_exists(table: str) -> bool:
    return _count(f"SELECT count(*) FROM pg_tables WHERE tablename = '{table}'") == 1


def _get(url: str, *, token: str | None = None, body: dict[str, Any] | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, json.loads(response.read())


def _start(tree: Path, port: int) -> list[subprocess.Popen[bytes]]:
    env = _env(tree)
    web = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "planner_site.wsgi", "--config",
         "python:planner_site.gunicorn", "--bind", f"127.0.0.1:{port}"],
        cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "planner_site", "worker", "--concurrency=2",
         "--loglevel=WARNING", f"--hostname=bench-p2r-{port}@%h", "--without-gossip",
         "--without-mingle"],
        cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    return [web, worker]


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _wait_rankings(base: str, *, timeout_s: float, poll_s: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            status, body = _get(base + RANKINGS)
            if status == 200:
                return dict(body)
        except (urllib.error.URLError, ConnectionError):
            pass
        time.sleep(poll_s)
    raise RuntimeError("GET /api/rankings never answered 200")


def _top_gpu(ranking: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    top = ranking["rows"][0]
    return top, next(part for part in top["parts"] if part["kind"] == "gpu")


def _change_and_wait(base: str, token: str, slugs: dict[int, str], poll_s: float) -> float:
    top, gpu = _top_gpu(_wait_rankings(base, timeout_s=CHANGE_TIMEOUT_S, poll_s=poll_s))
    expected = round(top["price_usd"] - gpu["quantity"], 2)
    body = {"part": slugs[gpu["part_id"]], "amount": f"{gpu['unit_usd'] - 1:.2f}",
            "vendor": "bench listing", "observed_on": date.today().isoformat()}  # fmt: skip
    started = time.monotonic()
    status, _ = _get(base + "/api/prices", token=token, body=body)
    assert status == 201, status
    deadline = started + CHANGE_TIMEOUT_S
    while time.monotonic() < deadline:
        status, ranking = _get(base + RANKINGS)
        if status == 200 and ranking["rows"]:
            row = next((r for r in ranking["rows"] if r["signature"] == top["signature"]), None)
            if row is not None and round(row["price_usd"], 2) == expected:
                return time.monotonic() - started
        time.sleep(poll_s)
    raise RuntimeError("the new price never showed")


def _part_slugs() -> dict[int, str]:
    rows = _query("SELECT id, slug FROM catalog_part").splitlines()
    return {int(pk): slug for pk, slug in (row.split("|") for row in rows)}


def measure(label: str, tree: Path, *, port: int, repeat: int, poll_s: float) -> Result:
    token = _fresh_database(tree)
    result = Result(label=label)
    procs = _start(tree, port)
    base = f"http://127.0.0.1:{port}"
    try:
        started = time.monotonic()
        _wait_rankings(base, timeout_s=FIRST_RANKING_TIMEOUT_S, poll_s=poll_s)
        result.first_ranking_s = time.monotonic() - started
        slugs = _part_slugs()
        # Steady state, as in production (bin/run queues them): every default ranking done.
        _manage(tree, "rankings_refresh")
        _drain()
        simulated = _table_exists("simulator_simulatedbuild")
        result.runs_before = _count("SELECT count(*) FROM simulator_simulationrun")
        if simulated:
            result.simulated_before = _count("SELECT count(*) FROM simulator_simulatedbuild")
        for _ in range(repeat):
            result.latencies_s.append(_change_and_wait(base, token, slugs, poll_s))
            _drain()  # what the change queued finishes before the next one
        result.runs_after = _count("SELECT count(*) FROM simulator_simulationrun")
        if simulated:
            result.simulated_after = _count("SELECT count(*) FROM simulator_simulatedbuild")
    finally:
        _stop(procs)
    return result


def report(result: Result) -> None:
    latencies = result.latencies_s
    print(f"{result.label}: first default ranking {result.first_ranking_s:.1f} s")
    print(f"  price change -> GET /api/rankings shows it: median "
          f"{statistics.median(latencies):.3f} s, min {min(latencies):.3f}, max "
          f"{max(latencies):.3f}  runs {[round(s, 3) for s in latencies]}")  # fmt: skip
    print(f"  ranking runs (all finished): {result.runs_before} -> {result.runs_after}")
    if result.simulated_before is not None:
        print(f"  simulated builds: {result.simulated_before} -> {result.simulated_after}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", type=Path, help="an older checkout to measure first")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--baseline-repeat", type=int, default=3)
    parser.add_argument("--poll-s", type=float, default=0.02)
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    missing = [key for key in ENV_KEYS if key not in os.environ]
    if missing:
        raise SystemExit(f"set {', '.join(missing)} (a database and Redis DBs of its own)")
    results = []
    if args.baseline:
        results.append(measure("baseline", args.baseline.resolve(), port=args.port,
                               repeat=args.baseline_repeat, poll_s=args.poll_s))  # fmt: skip
    results.append(measure("this checkout", REPO, port=args.port, repeat=args.repeat,
                           poll_s=args.poll_s))  # fmt: skip
    print(f"nproc {os.cpu_count()}; poll every {args.poll_s * 1000:.0f} ms")
    for result in results:
        report(result)


if __name__ == "__main__":
    main()

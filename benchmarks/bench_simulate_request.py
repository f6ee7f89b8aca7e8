"""One single-build POST /api/simulate, in-process, against a baseline checkout (issue 8).

Each tree (a checkout of this repository; the first is the baseline) is timed in its own
process, as gunicorn loads it (planner_site.wsgi, production settings), on the same
PostgreSQL database: `--requests` requests of seed build A, each with another token target
so that every one is simulated and stored. The trees take turns `--repeat` times; the
median and p90 of each turn and the statements of one request are printed, then the ratio
of the medians to the baseline's.

    git worktree add /tmp/base <baseline commit>
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/planner_bench \\
    CACHE_URL=redis://127.0.0.1:6379/13 \\
      .venv/bin/python benchmarks/bench_simulate_request.py /tmp/base .

The database must hold the catalog and the measurements (`migrate`, `loaddata` of the
fixtures, `measurements_load`) and should be analysed (`VACUUM ANALYZE`), as in service.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
from pathlib import Path

# Runs inside each tree's process: prints one JSON line.
_TIMER = """
import json, os, random, statistics, sys, time
sys.path.insert(0, os.getcwd())
from planner_site.wsgi import application  # noqa: F401 (boots as gunicorn would)
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from catalog.models import Build

requests = int(sys.argv[1])
build_id = Build.objects.get(name__startswith="Build A:").pk
client = Client()

def post():
    body = {"workload": {"kind": "train", "model": "glm-4.7", "quant": "NF4d+NF2e",
                         "tokens": 50_000_000 + random.randrange(10**12)}, "build_id": build_id}
    address = f"10.{random.randrange(250)}.{random.randrange(250)}.1"
    answer = client.post("/api/simulate", json.dumps(body), content_type="application/json",
                         HTTP_X_FORWARDED_FOR=address, secure=True)
    assert answer.status_code == 200, answer.status_code

for _ in range(20):
    post()
times = []
for _ in range(requests):
    start = time.perf_counter()
    post()
    times.append((time.perf_counter() - start) * 1000)
with CaptureQueriesContext(connection) as queries:
    post()
times.sort()
print(json.dumps({"median_ms": statistics.median(times),
                  "p90_ms": times[int(len(times) * 0.9)], "queries": len(queries)}))
"""


def time_tree(tree: Path, requests: int) -> dict[str, float]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "planner_site.settings.production",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "testserver",
        "SECURE_SSL_REDIRECT": "false",
        "TRUSTED_PROXY_COUNT": "1",
        "SIMULATE_ANON_RATE": "1000000/min",  # the throttle is not what is measured
        "LOG_LEVEL": "ERROR",
    }
    done = subprocess.run(
        [sys.executable, "-c", _TIMER, str(requests)],
        cwd=tree, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path, help="checkouts; the first is the baseline")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    medians: dict[Path, list[float]] = {tree: [] for tree in args.trees}
    for turn in range(1, args.repeat + 1):
        for tree in args.trees:
            timed = time_tree(tree, args.requests)
            medians[tree].append(timed["median_ms"])
            print(
                f"turn {turn} {tree}: median {timed['median_ms']:.2f} ms, "
                f"p90 {timed['p90_ms']:.2f} ms, {timed['queries']:.0f} queries"
            )
    baseline = statistics.median(medians[args.trees[0]])
    for tree, values in medians.items():
        median = statistics.median(values)
        print(f"{tree}: median of medians {median:.2f} ms = {median / baseline:.2f}x baseline")


if __name__ == "__main__":
    main()

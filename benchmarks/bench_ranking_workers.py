"""Two Celery workers against one on a large ranking (issue 5).

A refined-mode ranking of every candidate build of the catalog for GLM-4.7 (each build's
pipeline timeline simulated: ~10 ms a build), fanned out as chunks over the workers.
Runs against the real PostgreSQL and Redis of this machine:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/planner_bench \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/14 \\
    .venv/bin/python benchmarks/bench_ranking_workers.py

It migrates and loads the catalog into that database, then for 1 and 2 worker processes
(solo pool, one process each) times a fresh ranking from POST to done, `--repeat` times.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner_site.settings")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from planner_site.celery import app  # noqa: E402
from simulator.models import RunStatus, SimulationRun  # noqa: E402
from simulator.services.rankings import ranking_create  # noqa: E402


def start_workers(count: int) -> list[subprocess.Popen[bytes]]:
    names = [f"bench{i}-{uuid.uuid4().hex[:6]}@localhost" for i in range(count)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "planner_site", "worker", "--pool=solo",
             f"--hostname={name}", "--without-gossip", "--without-mingle", "--loglevel=WARNING"],
            cwd=REPO, env=os.environ.copy(),
        )
        for name in names
    ]  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        replies = app.control.ping(destination=names, timeout=1.0) or []
        if len({name for reply in replies for name in reply}) == count:
            return procs
    raise RuntimeError("workers did not start")


def time_ranking(tokens: int) -> tuple[float, int]:
    body = {
        "workload": {"kind": "train", "model": "glm-4.7", "quant": "NF4d+NF2e",
                     "seq_len": 1024, "tokens": tokens, "mode": "refined"},
    }  # fmt: skip
    started = time.perf_counter()
    run = ranking_create(body=body)
    while True:
        run = SimulationRun.objects.get(pk=run.pk)
        if run.status in (RunStatus.DONE, RunStatus.FAILED):
            break
        time.sleep(0.05)
    assert run.status == RunStatus.DONE, run.error
    return time.perf_counter() - started, len(run.plan["candidates"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    call_command("loaddata", *sorted(map(str, REPO.glob("catalog/fixtures/*.json"))), verbosity=0)
    app.control.purge()
    results: dict[int, list[float]] = {}
    builds = 0
    for workers in (1, 2):
        procs = start_workers(workers)
        try:
            results[workers] = []
            for _ in range(args.repeat):
                # A token target never asked before: a fresh run, not the stored one.
                seconds, builds = time_ranking(tokens=50_000_000 + uuid.uuid4().int % 10**6)
                results[workers].append(seconds)
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                proc.wait(timeout=30)
    one, two = statistics.median(results[1]), statistics.median(results[2])
    print(f"builds ranked: {builds} (refined mode, GLM-4.7 NF4d+NF2e, S=1024)")
    print(f"1 worker : median {one:.2f} s  runs {[round(s, 2) for s in results[1]]}")
    print(f"2 workers: median {two:.2f} s  runs {[round(s, 2) for s in results[2]]}")
    print(f"speed-up : {one / two:.2f}x")


if __name__ == "__main__":
    main()

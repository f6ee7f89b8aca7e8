"""The simulation inside a full-catalog training ranking: one build at a time (`simulate` per
candidate, as ranking chunks did) against the batch path (`engine.batch.best_splits`, the
vectorised sweep in reference mode), over the same candidates in the same run.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_ranking_paths.py [--repeat 3]

Loads the shipped catalog into a temporary SQLite database, plans every candidate build of a
training ranking (1-8 GPUs, every storage and RAM tier, unpriced parts included) and times
only the simulation of those candidates, on one core. Prints a Markdown section for
docs/benchmarks.md; nothing here is a test.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ["PLANNER_VAR_DIR"] = tempfile.mkdtemp(prefix="bench-ranking-paths-")
os.environ.pop("DATABASE_URL", None)
os.environ["CELERY_BROKER_URL"] = "memory://"  # chunks are run in this process, below
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner_site.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from catalog.generator import RAM_TIERS_GB, StorageTier  # noqa: E402
from catalog.selectors import candidate_build_list  # noqa: E402
from simulator.engine import (  # noqa: E402
    EngineInputError,
    Hardware,
    SimulationRequest,
    TrainWorkload,
    best_splits,
    parse_hardware,
    parse_workload,
    simulate,
)
from simulator.models import SimulatedBuild, SimulationRun  # noqa: E402
from simulator.services.rankings import (  # noqa: E402
    ranking_body_normalize,
    ranking_chunk_process,
    ranking_create,
    ranking_infer_batch,
    ranking_infer_physics,
    ranking_pending_chunks,
    ranking_plan,
    ranking_view,
)

WORKLOADS = (
    {"kind": "train", "model": "glm-4.7", "quant": "NF4d+NF2e"},
    {"kind": "train", "model": "glm-4.7", "quant": "NVFP4"},
    {"kind": "train", "model": "llama-3.1-70b", "quant": "NF4"},
    {"kind": "train", "model": "glm-4.7", "quant": "NF4d+NF2e", "mode": "refined"},
)
TRAINING_FIELDS = ("gpu", "gpu_count", "nvme_gbps", "ram_gb", "pinned_gb")
SERVING_WORKLOADS = (
    {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M", "context": 32768},
    {"kind": "infer", "model": "llama-3.1-70b", "quant": "Q4_K_M", "context": 8192},
)


def candidate_hardware() -> list[Hardware]:
    candidates = candidate_build_list(
        with_unpriced=True,
        gpu_counts=tuple(range(1, 9)),
        storage_tiers=tuple(StorageTier),
        ram_tiers_gb=RAM_TIERS_GB,
    )
    hardware = []
    for c in candidates:
        try:
            hardware.append(parse_hardware({key: c.hardware()[key] for key in TRAINING_FIELDS}))
        except EngineInputError:  # an AMD GPU: the training ranking lists it as not rankable
            continue
    return hardware


def one_at_a_time(workload: TrainWorkload, hardware: list[Hardware]) -> list[object]:
    answers: list[object] = []
    for config in hardware:
        try:
            answers.append(simulate(SimulationRequest(workload=workload, hardware=config)).best)
        except EngineInputError as error:
            answers.append((error.field, error.message))
    return answers


def serve_one_at_a_time(workload: dict[str, Any], hardware: list[dict[str, Any]]) -> list[object]:
    answers: list[object] = []
    for item in hardware:
        try:
            answers.append(ranking_infer_physics(hardware=item, workload=workload))
        except EngineInputError as error:
            answers.append(error.message)
    return answers


def best_of(repeat: int, run: Callable[[], object]) -> tuple[float, object]:
    times, answer = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        answer = run()
        times.append(time.perf_counter() - start)
    return min(times), answer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    call_command("loaddata", *sorted((REPO / "catalog/fixtures").glob("*.json")), verbosity=0)
    hardware = candidate_hardware()
    print(f"### Ranking simulation: per build vs batch ({datetime.date.today()})\n")
    print(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, one core (OMP_NUM_THREADS=1). "
          f"{len(hardware)} candidate builds of the shipped catalog.\n")  # fmt: skip
    print("| workload | per build (s) | batch (s) | speed-up | same answers |")
    print("|---|---|---|---|---|")
    for body in WORKLOADS:
        workload = parse_workload(body)
        plain_s, plain = best_of(args.repeat, lambda w=workload: one_at_a_time(w, hardware))
        batch_s, batch = best_of(args.repeat, lambda w=workload: best_splits(w, hardware))
        same = plain == [
            (a.field, a.message) if isinstance(a, EngineInputError) else a
            for a in batch  # type: ignore[attr-defined]
        ]
        label = f"{body['model']} {body['quant']} {body.get('mode', 'reference')}"
        print(f"| {label} | {plain_s:.3f} | {batch_s:.3f} | {plain_s / batch_s:.1f}x | {same} |")
    print(
        "\nServing: `placement_search` one build at a time (`ranking_infer_physics`) against "
        "`best_placements` (`ranking_infer_batch`), over a serving ranking's candidates:\n"
    )
    print("| workload | candidates | per build (s) | batch (s) | speed-up | same answers |")
    print("|---|---|---|---|---|---|")
    for body in SERVING_WORKLOADS:
        normalized = ranking_body_normalize({"workload": body})
        items = ranking_plan(options=normalized["ranking"])
        serving = [item["hardware"] for item in items]
        workload = normalized["workload"]
        plain_s, plain = best_of(
            args.repeat, lambda w=workload, h=serving: serve_one_at_a_time(w, h)
        )
        batch_s, batch = best_of(
            args.repeat, lambda w=workload, h=serving: ranking_infer_batch(hardware=h, workload=w)
        )
        answers = batch if isinstance(batch, list) else []
        same = plain == [a.message if isinstance(a, EngineInputError) else a for a in answers]
        label = f"{body['model']} {body['quant']} ctx {body['context']}"
        print(f"| {label} | {len(serving)} | {plain_s:.3f} | {batch_s:.3f} | "
              f"{plain_s / batch_s:.1f}x | {same} |")  # fmt: skip
    print("\nWhole ranking from an empty result store, in process (plan, simulate, merge, "
          "priced view of the top 50):\n")  # fmt: skip
    print("| workload | candidates | ranked | seconds |")
    print("|---|---|---|---|")
    for body in (*WORKLOADS, *SERVING_WORKLOADS):
        seconds, view = best_of(args.repeat, lambda b=body: whole_ranking(b))
        mode = body.get("mode", "reference") if body["kind"] == "train" else "serving"
        label = f"{body['model']} {body['quant']} {mode}"
        print(f"| {label} | {view['candidates']} | {view['count']} | {seconds:.3f} |")


def whole_ranking(workload: dict[str, str]) -> dict[str, int]:
    SimulatedBuild.objects.all().delete()
    SimulationRun.objects.all().delete()
    run = ranking_create(body={"workload": workload, "ranking": {}}, capped=False)
    for index in ranking_pending_chunks(run=run):
        ranking_chunk_process(run_id=str(run.pk), index=index)
    run.refresh_from_db()
    view = ranking_view(run=run, budget_usd=None, sort="price", limit=50)
    return {"candidates": len(run.plan["candidates"]), "count": int(view["count"])}


if __name__ == "__main__":
    main()

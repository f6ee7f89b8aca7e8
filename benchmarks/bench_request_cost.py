"""The cost model of simulate requests (simulator/services/cost.py) against the CPU time the
work really takes, over adversarial bodies: the largest models the parser admits (1,024
layers), refined mode (the per-layer timeline of every resident-layer split), one GPU (every
layer in one stage), models that fit and models that walk every split before failing.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_request_cost.py [--repeat 3]

Part 1 times what a single simulation does inside a web request (normalize, compute, encode:
`simulation_single_compute`), on this thread's CPU clock, against the model's prediction and
the anonymous and signed-in limits. Part 2 times a ranking's simulation on the batch path
(`ranking_train_physics` / `ranking_infer_batch`, what a worker's chunk runs) over the
shipped catalog's candidates. A ratio measured / predicted above 1 is a body the model
underestimates (the CPU deadline then stops it at the limit). Prints a Markdown section for
docs/benchmarks.md; nothing here is a test.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
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
os.environ["PLANNER_VAR_DIR"] = tempfile.mkdtemp(prefix="bench-request-cost-")
os.environ.pop("DATABASE_URL", None)
os.environ["CELERY_BROKER_URL"] = "memory://"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner_site.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402

from simulator.engine import EngineInputError  # noqa: E402
from simulator.services.cost import (  # noqa: E402
    simulation_ranking_cost,
    simulation_single_cost,
)
from simulator.services.rankings import (  # noqa: E402
    ranking_body_normalize,
    ranking_infer_batch,
    ranking_plan,
    ranking_train_physics,
)
from simulator.services.simulate import simulation_normalize, simulation_single_compute  # noqa: E402

GLM = {
    key: value
    for key, value in json.loads(
        (REPO / "simulator/engine/data/models/glm-4.7.json").read_text()
    ).items()
    if not key.startswith("_")
}
BIG_GPU = {"name": "big", "vram_gb": 1000, "bf16_tflops": 165, "pcie_gbps": 22,
           "mem_gbps": 1008}  # fmt: skip
SMALL_GPU = {**BIG_GPU, "name": "small", "vram_gb": 24}


def _train(
    layers: int, mode: str, gpu: dict[str, Any], gpus: int, seq: int = 1024
) -> dict[str, Any]:
    workload = {"kind": "train", "model_config": {**GLM, "num_hidden_layers": layers},
                "quant": "NF4d+NF2e", "seq_len": seq, "mode": mode, "tokens": 10**6}  # fmt: skip
    hardware = {"gpu": gpu, "gpu_count": gpus, "nvme_gbps": 7, "ram_gb": 4096}
    return {"workload": workload, "hardware": hardware}


def _infer(layers: int, placement: str, context: int) -> dict[str, Any]:
    workload = {"kind": "infer", "model_config": {**GLM, "num_hidden_layers": layers},
                "quant": "Q4_K_M", "context": context, "placement": placement}  # fmt: skip
    return {"workload": workload,
            "hardware": {"gpu": SMALL_GPU, "ram_gb": 4096, "cpu": "epyc-9124"}}  # fmt: skip


def adversarial_bodies() -> list[tuple[str, dict[str, Any]]]:
    bodies: list[tuple[str, dict[str, Any]]] = []
    for layers in (92, 256, 512, 768, 1024):
        for gpus in (1, 2, 8):
            bodies.append((f"train refined, {layers} layers, {gpus} GPU, fits",
                           _train(layers, "refined", BIG_GPU, gpus)))  # fmt: skip
        bodies.append((f"train refined, {layers} layers, 1 GPU, 128k tokens",
                       _train(layers, "refined", BIG_GPU, 1, seq=131072)))  # fmt: skip
        bodies.append((f"train refined, {layers} layers, 1 GPU, fits nowhere",
                       _train(layers, "refined", SMALL_GPU, 1)))  # fmt: skip
        bodies.append((f"train reference, {layers} layers, 1 GPU",
                       _train(layers, "reference", BIG_GPU, 1)))  # fmt: skip
        bodies.append(
            (f"serve auto, {layers} layers, 128k context", _infer(layers, "auto", 131072))
        )
    return bodies


def cpu_seconds(run: Callable[[], object], repeat: int) -> float:
    """The least of `repeat` runs on this thread's CPU clock."""
    times = []
    for _ in range(repeat):
        start = time.thread_time()
        run()
        times.append(time.thread_time() - start)
    return min(times)


def _single(body: dict[str, Any]) -> object:
    try:
        return simulation_single_compute(simulation_normalize(body))
    except EngineInputError as error:
        return error


def single_requests(repeat: int) -> list[str]:
    anon_s, user_s = settings.SIMULATE_ANON_CPU_S, settings.SIMULATE_USER_CPU_S
    lines = ["| body | predicted CPU (s) | measured CPU (s) | measured / predicted | "
             "anonymous | signed in |", "|---|---|---|---|---|---|"]  # fmt: skip
    worst = 0.0
    for label, body in adversarial_bodies():
        measured = cpu_seconds(functools.partial(_single, body), repeat)
        try:
            predicted = simulation_single_cost(body=simulation_normalize(body)).cpu_s
        except EngineInputError:  # refused while validating, before any estimate
            lines.append(f"| {label} | refused | {measured:.4f} | | refused | refused |")
            continue
        worst = max(worst, measured / predicted)

        def verdict(limit: float, p: float = predicted) -> str:
            return "computed" if p <= limit else "refused"

        lines.append(f"| {label} | {predicted:.4f} | {measured:.4f} | {measured / predicted:.2f} "
                     f"| {verdict(anon_s)} | {verdict(user_s)} |")  # fmt: skip
    lines.append(f"\nLargest measured / predicted: {worst:.2f}.")
    return lines


def rankings(repeat: int) -> list[str]:
    lines = ["| workload | candidates | predicted CPU (s) | measured CPU (s) | "
             "measured / predicted |", "|---|---|---|---|---|"]  # fmt: skip
    cases: list[tuple[str, dict[str, Any]]] = []
    for layers in (92, 512, 1024):
        for mode in ("reference", "refined"):
            cases.append((f"train {mode}, {layers} layers",
                          _train(layers, mode, BIG_GPU, 1)["workload"]))  # fmt: skip
        cases.append((f"serve auto, {layers} layers", _infer(layers, "auto", 32768)["workload"]))
    worst = 0.0
    for label, raw in cases:
        # What a worker is given: the normalized workload and every planned candidate.
        normalized = ranking_body_normalize({"workload": raw, "ranking": {}})
        workload = normalized["workload"]
        items = [item["hardware"] for item in ranking_plan(options=normalized["ranking"])]
        physics = ranking_infer_batch if workload["kind"] == "infer" else ranking_train_physics
        predicted = simulation_ranking_cost(workload=workload, builds=len(items)).cpu_s
        measured = cpu_seconds(
            functools.partial(physics, hardware=items, workload=workload), repeat
        )
        worst = max(worst, measured / predicted)
        lines.append(f"| {label} | {len(items)} | {predicted:.3f} | {measured:.3f} | "
                     f"{measured / predicted:.2f} |")  # fmt: skip
    lines.append(f"\nLargest measured / predicted: {worst:.2f}.")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    call_command("loaddata", *sorted((REPO / "catalog/fixtures").glob("*.json")), verbosity=0)
    print(f"### Request cost: predicted against measured CPU time ({datetime.date.today()})\n")
    print(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, one thread (OMP_NUM_THREADS=1), least of "
          f"{args.repeat} runs. Limits: anonymous {settings.SIMULATE_ANON_CPU_S:g} s, "
          f"signed in {settings.SIMULATE_USER_CPU_S:g} s.\n")  # fmt: skip
    print("Single simulations (what a web request computes):\n")
    print("\n".join(single_requests(args.repeat)))
    print("\nRankings on the batch path (what the workers compute, over every candidate):\n")
    print("\n".join(rankings(args.repeat)))


if __name__ == "__main__":
    main()

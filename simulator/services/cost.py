"""What a simulate request costs in CPU time, estimated before anything is computed, stored
or queued, from what each path of the engine really does:

- training, reference mode: one row per resident-layer split, S + 1 of them, in closed form;
- training, refined mode: every split walks the per-layer timeline of its stage, so
  (S + 1) × S layer steps;
- serving: closed-form figures per placement, one step per layer;

where S is the number of layers one GPU holds (⌈layers / GPUs⌉; a ranking counts one GPU,
its worst case). The sequence length and the context do not enter: no path loops over tokens.

    single simulation: cpu_s = BASE_S + steps × SECONDS_PER_STEP[path]
    ranking:           cpu_s = builds × steps × BATCH_SECONDS_PER_STEP[path]
                               + GPU_COUNTS × steps × SECONDS_PER_STEP[path]

The second term of a ranking is the stage worked out once per GPU count (refined_sweep). The
seconds per step are the largest measured on the reference machine (2 vCPUs, one thread) by
benchmarks/bench_request_cost.py over adversarial bodies, with a margin (docs/benchmarks.md,
"Request cost"). A single simulation is computed in the web request when its estimate is
within the caller's limit (SIMULATE_ANON_CPU_S for anonymous clients, SIMULATE_USER_CPU_S when
signed in) and refused with a 400 otherwise; the engine's CPU deadline (engine/work_limit.py)
stops it at the limit should the estimate fall short. A ranking is queued for the workers
(202, with progress) when its estimate is within RANKING_MAX_CPU_S.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache

from simulator.engine import INFER, MODE_REFINED, EngineInputError, workload_model

TRAIN_REFERENCE, TRAIN_REFINED, SERVE = "training (reference)", "training (refined)", "serving"
# CPU seconds per step of one build simulated by itself, and per step of one build in a
# ranking's batch (NumPy over many builds at once), on the reference machine with a margin of
# about 1.5x over the largest measured (docs/benchmarks.md, "Request cost").
SECONDS_PER_STEP = {TRAIN_REFERENCE: 2.0e-5, TRAIN_REFINED: 2.0e-6, SERVE: 2.0e-6}
BATCH_SECONDS_PER_STEP = {TRAIN_REFERENCE: 2.0e-7, TRAIN_REFINED: 2.5e-8, SERVE: 1.0e-6}
# Parsing, normalizing and encoding one simulation, whatever its size.
BASE_S = 0.005
# A ranking's stages: one per GPU count of its candidates (1-8).
GPU_COUNTS = 8
# Counting a ranking's candidates builds its plan: cached per options and hardware epoch, so
# a repeated or flooded request costs a cache read.
CANDIDATE_COUNT_CACHE_S = 3600


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestCost:
    path: str  # TRAIN_REFERENCE, TRAIN_REFINED or SERVE
    layers_per_gpu: int
    builds: int  # 1 for a single simulation
    ranking: bool

    @property
    def steps_per_build(self) -> int:
        s = self.layers_per_gpu
        return {TRAIN_REFERENCE: s + 1, TRAIN_REFINED: (s + 1) * s, SERVE: s}[self.path]

    @property
    def cpu_s(self) -> float:
        steps = self.steps_per_build
        if not self.ranking:
            return BASE_S + steps * SECONDS_PER_STEP[self.path]
        batch = self.builds * steps * BATCH_SECONDS_PER_STEP[self.path]
        return batch + GPU_COUNTS * steps * SECONDS_PER_STEP[self.path]

    def describe(self) -> str:
        builds = f"{self.builds} builds × " if self.ranking else ""
        return (
            f"{self.path}: {builds}{self.steps_per_build:,} steps for {self.layers_per_gpu}"
            f" layers per GPU, about {self.cpu_s:.3g} s of CPU"
        )


def _path(workload: Mapping[str, Any]) -> str:
    if workload.get("kind") == INFER:
        return SERVE
    return TRAIN_REFINED if workload.get("mode") == MODE_REFINED else TRAIN_REFERENCE


def simulation_single_cost(*, body: Mapping[str, Any]) -> RequestCost:
    """The cost of one normalized simulation (its workload and hardware)."""
    workload = body["workload"]
    layers = workload_model(workload).num_layers
    gpus = int(body.get("hardware", {}).get("gpu_count") or 1)
    return RequestCost(path=_path(workload), layers_per_gpu=math.ceil(layers / gpus),
                       builds=1, ranking=False)  # fmt: skip


def simulation_ranking_cost(*, workload: Mapping[str, Any], builds: int) -> RequestCost:
    """The cost of a ranking of a normalized workload over `builds` candidates, each counted
    at one GPU (its largest stage)."""
    layers = workload_model(workload).num_layers
    return RequestCost(path=_path(workload), layers_per_gpu=layers, builds=builds, ranking=True)


def simulation_cost_check(
    *, cost: RequestCost, limit_s: float, narrow: str, of_s: float | None = None
) -> None:
    """EngineInputError (a 400 naming `request`) when the cost is over `limit_s` (the CPU
    seconds left of a request's `of_s`, when given)."""
    if cost.cpu_s <= limit_s:
        return
    allowed = (
        f"the {limit_s:.3g} s" if of_s is None else f"the {limit_s:.2g} s left of the {of_s:g} s"
    )
    raise EngineInputError(
        field="request",
        message=f"this request would take {cost.describe()}, more than {allowed} it may use;"
        f" {narrow}",
    )


def simulation_cpu_limit_s(*, signed_in: bool) -> float:
    """The CPU time a single simulation may take in a web request for this caller."""
    limit: float = settings.SIMULATE_USER_CPU_S if signed_in else settings.SIMULATE_ANON_CPU_S
    return limit


def ranking_candidate_count(
    *, options: Mapping[str, Any], epoch: str, count: Callable[[], int]
) -> int:
    """How many candidates a ranking with these options plans (cached `count()` per
    options and catalog `epoch`)."""
    digest = hashlib.sha256(json.dumps(options, sort_keys=True).encode()).hexdigest()[:32]
    key = f"ranking-candidates:{digest}:{epoch[:32]}"
    cached = cache.get(key)
    if isinstance(cached, int):
        return cached
    value = count()
    cache.set(key, value, CANDIDATE_COUNT_CACHE_S)
    return value

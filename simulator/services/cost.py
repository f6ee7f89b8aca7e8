"""The cost budget of a POST /api/simulate request (issue 8): throttling bounds how often a
client asks, this bounds how much one request asks for. A request over the budget is a 400
that says what it would cost and how to narrow it, before anything is stored or queued.

    cost_units = builds × splits × layers × seq_blocks

- builds: candidate builds simulated (1 for one simulation; for a ranking, every candidate
  its options admit, whatever the budget: the same plan the workers will run, of which
  they simulate the hardware not simulated before);
- splits: resident-layer splits searched per build (training: R = 0..layers; inference:
  the offload split of hybrid placement, searched over the same range): layers + 1;
- layers: the model's transformer layers (its size, as the engine walks it);
- seq_blocks: ⌈sequence length (training) or context (inference) / 1024⌉.

The limit (`SIMULATE_MAX_COST_UNITS`, default 2·10⁹) admits every default ranking (GLM-4.7
over all 2,335 candidates at 1,024 tokens is 2.0·10⁷) and a whole-catalog ranking up to
about 100k tokens of sequence; see docs/security.md.
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

from simulator.engine import EngineInputError, workload_model

SEQ_BLOCK_TOKENS = 1024
# Counting a ranking's candidates builds its plan (~1 s for the whole catalog): cached per
# options and hardware epoch, so a repeated or flooded request costs a cache read.
CANDIDATE_COUNT_CACHE_S = 3600


@dataclass(frozen=True)
class RequestCost:
    builds: int
    splits: int
    layers: int
    seq_blocks: int

    @property
    def units(self) -> int:
        return self.builds * self.splits * self.layers * self.seq_blocks


def simulation_request_cost(*, workload: Mapping[str, Any], builds: int) -> RequestCost:
    """The cost of simulating a normalized workload on `builds` builds."""
    # The engine's own resolution: a shipped slug or the workload's inline config.json.
    layers = workload_model(workload).num_layers
    tokens = int(workload.get("seq_len") or workload.get("context") or SEQ_BLOCK_TOKENS)
    return RequestCost(
        builds=builds,
        splits=layers + 1,
        layers=layers,
        seq_blocks=max(1, math.ceil(tokens / SEQ_BLOCK_TOKENS)),
    )


def simulation_cost_check(*, cost: RequestCost, narrow: str) -> None:
    """EngineInputError (a 400 naming `request`) when the cost is over the budget."""
    limit: int = settings.SIMULATE_MAX_COST_UNITS
    if cost.units <= limit:
        return
    raise EngineInputError(
        field="request",
        message=(
            f"this request would cost {cost.units:.3g} work units ({cost.builds} builds × "
            f"{cost.splits} splits × {cost.layers} layers × {cost.seq_blocks} blocks of "
            f"{SEQ_BLOCK_TOKENS} tokens), above the limit of {limit:.3g}; {narrow}"
        ),
    )


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

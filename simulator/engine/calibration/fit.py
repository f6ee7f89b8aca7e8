"""Fit the efficiency constants on the corpus: `python -m simulator.engine.calibration.fit`
rewrites `data/efficiency.json` (add `--check` to only compare with the shipped file).

Each (runtime, device class) key has up to six constants (bandwidth and FLOPS efficiency,
per-layer overhead, attention efficiency, per-SM streaming rate, the m½ of its routed experts'
prompt GEMMs). Coordinate descent over fixed grids minimizes, over the rows whose prediction
uses the key, the pseudo-Huber loss of the log errors (`_log_error_loss`: the absolute error
beyond a few per cent, so one mis-measured row pulls no harder than any other wrong by as
much, and smooth within, so the descent does not stop at a corner) plus a weak pull towards
the prior (so a constant no row is sensitive to stays at its prior); the first round searches
a key's FLOPS efficiency and m½ together (`_fit_jointly`), and rounds repeat until one
changes nothing (at most MAX_ROUNDS). Each round then fits the one global routing pool fraction f
(decode.distinct_experts) on the rows whose prediction depends on it, batched MoE decode
(batch ≥ 2), the same way (pull towards uniform routing, 1.0), the pooled m½ on every MoE
prefill row computed on GPUs, the one global cost of a machine boundary on rows of several
machines (llama.cpp RPC), and the one global extra cost of a routed-expert layer on the
decodes of runtimes that launch MoE routing unfused. Grids, order and tie-breaks are fixed,
so the fit is deterministic.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from importlib import resources
from typing import TYPE_CHECKING, Any, TypeVar

from simulator.engine.calibration import memo
from simulator.engine.calibration.corpus import (
    MeasurementRow,
    load_corpus,
    load_seed_rows,
    source_of,
)
from simulator.engine.calibration.efficiency import (
    DEFAULT_RUNTIME,
    LLAMA_CPP_METAL,
    METAL_MARLIN,
    METAL_MARLIN_DISPATCH_S,
    PRIOR_EFFICIENCY,
    RUNTIMES_WITH_UNFUSED_MOE_ROUTING,
    TRAIN,
    UNIFORM_ROUTING,
    Efficiency,
    efficiency_to_json,
)
from simulator.engine.calibration.setups import InferSetup, Setup, TrainSetup
from simulator.engine.serve.hardware import GPU, UNIFIED
from simulator.engine.serve.placement import HOME
from simulator.engine.version import ENGINE_PACKAGE

if TYPE_CHECKING:
    from simulator.engine.calibration.crossval import CrossValidation

FRACTION_GRID = tuple(round(0.02 + 0.01 * i, 2) for i in range(99))  # 0.02 … 1.00
ROUTING_POOL_GRID = tuple(round(0.20 + 0.01 * i, 2) for i in range(81))  # 0.20 … 1.00
OVERHEAD_GRID_S = tuple(round(5e-6 * i, 7) for i in range(61))  # 0 … 300 µs
# A routed-expert layer's extra kernels in per-layer costs: 0 (a dense layer's, the prior and,
# first in the grid, what ties keep) to 4.
MOE_LAYER_EXTRA_GRID = tuple(0.25 * i for i in range(17))
PRIOR_WEIGHT = 0.01  # squared-log pull towards the prior, per constant
# Rounds of coordinate descent: until one changes nothing, at most this many.
MAX_ROUNDS = 12
# δ of the pseudo-Huber loss (_log_error_loss): a log error of 5 %, below which it is quadratic.
SMOOTHING = 0.05
# GB/s per SM (compute unit): no cap first, then from 40 down to 2, so that a cap no row
# binds (ties) stays off rather than landing on GPUs the fit never saw.
UNIT_STREAM_GRID: tuple[float | None, ...] = (
    None,
    *(float(40 - i) for i in range(39)),  # 40 … 2
)
CONSTANTS = (
    "bandwidth_efficiency",
    "flops_efficiency",
    "layer_overhead_s",
    "attention_efficiency",
    "unit_stream_gbps",
)
# Rows attending to at least this many tokens fit the attention kernels' efficiency: at 8k an
# 8B GQA model's attention is a third of its prefill FLOPs (docs/model.md, "Prefill").
ATTENTION_DEPTH_TOKENS = 8192
COARSE_STEP = 5
Key = tuple[str, str]
T = TypeVar("T", float, float | None)


def setup_keys(setup: Setup) -> tuple[Key, ...]:
    """The (runtime, device class) keys whose constants a prediction uses."""
    if isinstance(setup, TrainSetup):
        return ((setup.runtime, TRAIN),)
    w = setup.request.workload
    locations = {"hybrid": ("gpu", "cpu")}.get(w.placement, (w.placement,))
    return tuple((w.runtime or DEFAULT_RUNTIME[loc], loc) for loc in locations)


def resolved_rows(rows: Sequence[MeasurementRow]) -> list[tuple[MeasurementRow, Setup]]:
    resolved = []
    for row in rows:
        setup = memo.resolved_setup(row)
        if setup is not None:
            resolved.append((row, setup))
    return resolved


def _log_error_loss(table: Efficiency, pairs: Sequence[tuple[MeasurementRow, Setup]]) -> float:
    """Σ (√(e² + δ²) − δ) over `pairs`, e = log(predicted / measured), δ = SMOOTHING: the
    pseudo-Huber loss (Charbonnier et al. 1997). Beyond a few per cent it is |e|, least
    absolute deviations in log space, so a row 3× off weighs no more than any other row wrong
    by as much (squared log errors, engines 1.1–1.21, let one such row weigh as much as 28
    rows 20 % off; docs/accuracy.md, "What moved in engine 1.22.0"). Within δ it is smooth
    (e²/2δ), where Σ |e| has a corner at every row's zero: coordinate descent stopped at such
    corners, where no step in one constant lowers the loss although a step in two would
    (docs/accuracy.md, "What moved in engine 1.24.0")."""
    total = 0.0
    for row, setup in pairs:
        predicted = memo.prediction(setup, table, row.unit)
        if predicted is None:
            return math.inf
        error = math.log(predicted / row.value)
        total += math.sqrt(error * error + SMOOTHING * SMOOTHING) - SMOOTHING
    return total


def _loss(table: Efficiency, key: Key, pairs: Sequence[tuple[MeasurementRow, Setup]]) -> float:
    entry, prior = table.get(*key), PRIOR_EFFICIENCY.get(*key)
    total = _log_error_loss(table, pairs)
    for name in CONSTANTS:
        value = getattr(entry, name)
        base = getattr(prior, name)
        if name == "unit_stream_gbps":  # the prior is no cap: nothing to pull towards
            continue
        if base is None:  # attention: the prior is the key's GEMM efficiency
            base = entry.flops_efficiency
        if value is None:  # not fitted: at its prior
            continue
        if base > 0:
            total += PRIOR_WEIGHT * math.log(max(value, 1e-9) / base) ** 2
    return total


def grid_minimum(grid: Sequence[T], loss: Callable[[T], float]) -> T:
    """The grid value of least loss (ties: the earlier in the grid), searched coarse to fine: every
    COARSE_STEP-th value first, then every value within COARSE_STEP of the best coarse one.
    The losses here are smooth and single-troughed in one constant, so this finds the
    whole-grid minimum at about a third of the evaluations (a cross-validation refits the
    constants once per source)."""
    coarse = range(0, len(grid), COARSE_STEP)
    best = min(coarse, key=lambda i: (loss(grid[i]), i))
    fine = _within_a_step(best, COARSE_STEP, len(grid))
    return grid[min(fine, key=lambda i: (loss(grid[i]), i))]


def _within_a_step(best: int, step: int, size: int) -> range:
    """The grid indices less than `step` from `best`: the fine stage of a coarse-to-fine
    search whose coarse stage took every `step`-th value."""
    return range(max(best - step + 1, 0), min(best + step, size))


# The coarse step of m½'s grid in the joint search (grid_minimum_2d): every 8th of 129 values.
EXPERT_GEMM_COARSE_STEP = 8


def grid_minimum_2d(
    grids: tuple[Sequence[float], Sequence[float]],
    steps: tuple[int, int],
    loss: Callable[[float, float], float],
) -> tuple[float, float]:
    """The pair of grid values of least loss (ties: the earlier in the first grid, then the
    second), searched coarse to fine: every steps[i]-th value of each grid first, then every
    pair within a step of the best coarse pair. For two constants that trade off along a
    valley, where a search in one at a time stops short (fit._fit_key)."""
    first, second = grids

    def best_of(pairs: Sequence[tuple[int, int]]) -> tuple[int, int]:
        return min(pairs, key=lambda ij: (loss(first[ij[0]], second[ij[1]]), ij))

    coarse = [
        (i, j) for i in range(0, len(first), steps[0]) for j in range(0, len(second), steps[1])
    ]
    i, j = best_of(coarse)
    fine = [
        (a, b)
        for a in _within_a_step(i, steps[0], len(first))
        for b in _within_a_step(j, steps[1], len(second))
    ]
    i, j = best_of(fine)
    return first[i], second[j]


def _fit_key(
    table: Efficiency,
    key: Key,
    pairs: Sequence[tuple[MeasurementRow, Setup]],
    *,
    first_round: bool = False,
) -> Efficiency:
    own_expert_prompts = _own_expert_prompts(key, pairs)
    grids = _grids(key, pairs, own_expert_prompts)
    joint = first_round and {"flops_efficiency", "expert_gemm_half_rows"} <= grids.keys()
    for name, grid in grids.items():
        if joint and name == "flops_efficiency":
            table = _fit_jointly(table, key, pairs)
            continue
        if joint and name == "expert_gemm_half_rows":
            continue
        if name == "attention_efficiency":
            grid = attention_grid(table.get(*key).flops_efficiency)
        # The per-layer overhead is pinned by rows run at home (runs_at_home): not a
        # hybrid's CPU share.
        fitted = pairs
        if name == "layer_overhead_s":
            fitted = [(row, setup) for row, setup in pairs if runs_at_home(setup, key[1])]
        if name == "expert_gemm_half_rows":
            fitted = own_expert_prompts

        def loss(
            value: float | None,
            table: Efficiency = table,
            name: str = name,
            fitted: Sequence[tuple[MeasurementRow, Setup]] = fitted,
        ) -> float:
            return _loss(_with(table, key, name, value), key, fitted)

        table = _with(table, key, name, grid_minimum(grid, loss))
    return table


def _fit_jointly(
    table: Efficiency, key: Key, pairs: Sequence[tuple[MeasurementRow, Setup]]
) -> Efficiency:
    """A key's FLOPS efficiency and its routed experts' m½ searched together over all its rows
    (grid_minimum_2d): a lower efficiency with a smaller m½ predicts the same MoE prompts and
    slower dense ones, a valley along which one constant at a time stops short (a key's dense
    and MoE prompts read 20–33 % apart on Strix Halo; docs/accuracy.md, "What moved in engine
    1.24.0")."""

    def at(flops: float, half_rows: float) -> Efficiency:
        fitted = _with(table, key, "flops_efficiency", flops)
        return _with(fitted, key, "expert_gemm_half_rows", half_rows)

    def loss(flops: float, half_rows: float) -> float:
        return _loss(at(flops, half_rows), key, pairs)

    steps = (COARSE_STEP, EXPERT_GEMM_COARSE_STEP)
    return at(*grid_minimum_2d((FRACTION_GRID, EXPERT_GEMM_GRID), steps, loss))


def attention_grid(flops_efficiency: float) -> tuple[float, ...]:
    """Attention kernels reach at most the GEMMs' fraction of peak on the same device and
    path: FlashAttention-2's forward pass reaches 50–73 % of an A100's peak where its GEMMs
    reach 80–90 % (Dao 2023, "FlashAttention-2", §4.1), so the grid stops at the key's
    fitted GEMM efficiency."""
    return tuple(value for value in FRACTION_GRID if value <= flops_efficiency) or (
        FRACTION_GRID[0],
    )


def _grids(
    key: Key,
    pairs: Sequence[tuple[MeasurementRow, Setup]],
    own_expert_prompts: Sequence[tuple[MeasurementRow, Setup]],
) -> dict[str, tuple[float | None, ...]]:
    """The constants a key's rows can pin: FLOPS efficiency from prefill and training rows,
    bandwidth efficiency and per-layer overhead from decode rows. A constant no row of its
    phase measures keeps its prior (decode's attention arithmetic alone is too weak a
    handle on GEMM efficiency); m½ from the key's own MoE prompts (`_own_expert_prompts`)."""
    if key[1] == TRAIN:
        return {"flops_efficiency": FRACTION_GRID}
    phases = {setup.phase for _, setup in pairs if isinstance(setup, InferSetup)}
    grids: dict[str, tuple[float | None, ...]] = {}
    if phases & {"decode", "serving"}:
        grids["bandwidth_efficiency"] = FRACTION_GRID
    home_phases = {
        setup.phase
        for _, setup in pairs
        if isinstance(setup, InferSetup) and runs_at_home(setup, key[1])
    }
    if home_phases & {"decode", "serving"}:
        grids["layer_overhead_s"] = OVERHEAD_GRID_S
    if key[1] == GPU and any(reads_on_counted_units(setup) for _, setup in pairs):
        grids["unit_stream_gbps"] = UNIT_STREAM_GRID
    if phases & {"prefill", "serving"}:
        grids["flops_efficiency"] = FRACTION_GRID
    if any(attention_heavy(setup) and runs_at_home(setup, key[1]) for _, setup in pairs):
        grids["attention_efficiency"] = FRACTION_GRID
    if own_expert_prompts:
        grids["expert_gemm_half_rows"] = EXPERT_GEMM_GRID
    return grids


def _own_expert_prompts(
    key: Key, pairs: Sequence[tuple[MeasurementRow, Setup]]
) -> list[tuple[MeasurementRow, Setup]]:
    """The key's MoE prompts computed on its own class (a GPU or unified memory), when they
    come from at least MIN_ROUTING_SOURCES sources: they pin the m½ of its kernels; fewer,
    and the key takes the pooled m½."""
    own = [
        (row, setup)
        for row, setup in pairs
        if depends_on_expert_gemms(setup) and runs_at_home(setup, key[1])
    ]
    return _from_enough_sources(own)


def reads_on_counted_units(setup: Setup) -> bool:
    """Whether the row decodes on GPUs whose SM (compute unit) count is known: only such
    rows can pin the per-SM streaming rate."""
    if not isinstance(setup, InferSetup) or setup.phase not in ("decode", "serving"):
        return False
    gpu = setup.request.hardware.gpu
    return gpu is not None and gpu.compute_units is not None


def runs_at_home(setup: Setup, device_class: str) -> bool:
    """Whether `device_class` is the row's home (placement.HOME; training rows are at home
    on their own class), where its attention and KV cache are. A hybrid row pins neither
    its CPU's attention efficiency (its attention runs on the GPU) nor its CPU's per-layer
    overhead (the CPU share runs between two crossings of the link, whose synchronization
    the engine does not price apart); rows run wholly on the CPU pin both."""
    if not isinstance(setup, InferSetup):
        return True
    return HOME[setup.request.workload.placement] == device_class


def attention_heavy(setup: Setup) -> bool:
    """Whether the prompt's attention over the cache is a real part of the row's work: a
    prefill with ATTENTION_DEPTH_TOKENS or more tokens attended (depth plus prompt). Only such
    rows pin the attention kernels' efficiency (decode's one query per sequence runs at the
    GEMM efficiency)."""
    if not isinstance(setup, InferSetup) or setup.phase != "prefill":
        return False
    w = setup.request.workload
    return w.prefill_depth_tokens + w.prompt_tokens >= ATTENTION_DEPTH_TOKENS


def _with(table: Efficiency, key: Key, name: str, value: float | None) -> Efficiency:
    entry = table.get(*key)
    if name == "unit_stream_gbps":
        return table.replace(replace(entry, unit_stream_gbps=value))
    if name == "expert_gemm_half_rows":
        return table.replace(replace(entry, expert_gemm_half_rows=value))
    assert value is not None
    if name == "bandwidth_efficiency":
        return table.replace(replace(entry, bandwidth_efficiency=value))
    if name == "flops_efficiency":
        return table.replace(replace(entry, flops_efficiency=value))
    if name == "layer_overhead_s":
        return table.replace(replace(entry, layer_overhead_s=value))
    assert name == "attention_efficiency"
    return table.replace(replace(entry, attention_efficiency=value))


# The routing pool fraction and m½ are each one constant for every MoE model and runtime:
# each is fitted only on rows from at least this many sources (threads, pages, files), so that one
# benchmark's batch composition (llama-batched-bench's shared prompt) does not set it for
# all; fewer, and uniform routing (the prior) stands.
MIN_ROUTING_SOURCES = 2


def depends_on_routing(setup: Setup) -> bool:
    """Whether the routing pool fraction moves the prediction: decode of a batch (≥ 2) of an
    MoE model (at batch 1 a token reads its k experts whatever f)."""
    if not isinstance(setup, InferSetup) or setup.phase not in ("decode", "serving"):
        return False
    w = setup.request.workload
    return w.batch >= 2 and w.model.is_moe


def _fit_routing(table: Efficiency, pairs: Sequence[tuple[MeasurementRow, Setup]]) -> Efficiency:
    """The grid value of f minimizing the absolute log errors of `pairs` plus the weak pull
    towards uniform routing; ties keep the larger f (the nearer uniform)."""

    def loss(fraction: float) -> float:
        errors = _log_error_loss(replace(table, routing_pool_fraction=fraction), pairs)
        return errors + PRIOR_WEIGHT * math.log(fraction / UNIFORM_ROUTING) ** 2

    # Searched from the uniform end so that ties keep the larger f.
    best = grid_minimum(ROUTING_POOL_GRID[::-1], loss)
    return replace(table, routing_pool_fraction=best)


# m½ of the routed experts' prefill GEMMs (serve/prefill.py, expert_gemm_underfill): 0 (no
# underfill, the prior) to 256 rows, past the largest GEMM tiles.
EXPERT_GEMM_GRID = tuple(float(2 * i) for i in range(129))  # 0, 2, … 256


def depends_on_expert_gemms(setup: Setup) -> bool:
    """Whether m½ moves the prediction: a prompt (prefill) of an MoE model computed on a GPU
    or unified-memory GPU. Decode and batched serving steps are fitted by the routing pool
    and bandwidth constants, CPUs pay no underfill."""
    if not isinstance(setup, InferSetup) or setup.phase != "prefill":
        return False
    w = setup.request.workload
    return w.model.is_moe and w.placement != "cpu"


def depends_on_moe_layer_extra(setup: Setup) -> bool:
    """Whether the extra cost of a routed-expert layer moves the prediction: a decode at home
    on a runtime that launches MoE routing unfused (RUNTIMES_WITH_UNFUSED_MOE_ROUTING), of a
    dense model (which pins the per-layer cost) or an MoE one (which then pins the extra)."""
    if not isinstance(setup, InferSetup) or setup.phase not in ("decode", "serving"):
        return False
    w = setup.request.workload
    return w.runtime in RUNTIMES_WITH_UNFUSED_MOE_ROUTING and runs_at_home(setup, HOME[w.placement])


# The fixed cost of a token's crossing of a machine boundary (serve/network.py): 0 (its bytes
# alone, the prior) to 20 ms in steps of 0.1 ms.
NETWORK_HOP_GRID_S = tuple(round(1e-4 * i, 7) for i in range(201))


def depends_on_network(setup: Setup) -> bool:
    """Whether the hop cost moves the prediction: a model split over several machines."""
    return isinstance(setup, InferSetup) and setup.request.hardware.machines > 1


# The global constants fitted like m½, each on its own grid from its prior (first, so that
# ties keep it) up: m½, a machine boundary's cost, a routed-expert layer's extra cost.
GLOBAL_GRIDS: dict[str, tuple[float, ...]] = {
    "expert_gemm_half_rows": EXPERT_GEMM_GRID,
    "network_hop_s": NETWORK_HOP_GRID_S,
    "moe_layer_extra": MOE_LAYER_EXTRA_GRID,
}


def _fit_global(
    table: Efficiency, name: str, pairs: Sequence[tuple[MeasurementRow, Setup]]
) -> Efficiency:
    """The value of the table's global constant `name` on its grid (GLOBAL_GRIDS) minimizing
    the absolute log errors of `pairs`; ties keep the smaller (the nearer the prior)."""

    def at(value: float) -> Efficiency:
        change: dict[str, Any] = {name: value}  # one of Efficiency's float fields
        return replace(table, **change)

    def loss(value: float) -> float:
        return _log_error_loss(at(value), pairs)

    return at(grid_minimum(GLOBAL_GRIDS[name], loss))


def _fit_pooled_half_rows(
    table: Efficiency, pairs: Sequence[tuple[MeasurementRow, Setup]]
) -> Efficiency:
    """The pooled m½: fitted on every MoE prompt on a GPU or unified memory as if no key had
    an m½ of its own, so that it is what a runtime with no MoE prompts of its own is best
    given (the keys' own values kept)."""
    pooled = replace(
        table, entries=tuple(replace(e, expert_gemm_half_rows=None) for e in table.entries)
    )
    value = _fit_global(pooled, "expert_gemm_half_rows", pairs).expert_gemm_half_rows
    return replace(table, expert_gemm_half_rows=value)


def _from_enough_sources(
    pairs: list[tuple[MeasurementRow, Setup]],
) -> list[tuple[MeasurementRow, Setup]]:
    """`pairs` when they come from at least MIN_ROUTING_SOURCES sources, else none (a global
    constant then keeps its prior)."""
    return pairs if len({source_of(row) for row, _ in pairs}) >= MIN_ROUTING_SOURCES else []


# Keys whose constants are derived rather than fitted (see _derived): no row fits them.
DERIVED_KEYS: frozenset[Key] = frozenset({(METAL_MARLIN, UNIFIED)})


def _derived(table: Efficiency) -> Efficiency:
    """Metal Marlin: the Apple GPU class's fitted constants (llama.cpp-metal) and the fixed
    latency of one fused trellis dispatch per layer from seed 001's kernel table
    (efficiency.METAL_MARLIN_DISPATCH_S), not a fit on seed 001's decode figure."""
    apple = table.get(LLAMA_CPP_METAL, UNIFIED)
    derived = table.replace(
        replace(
            apple,
            runtime=METAL_MARLIN,
            layer_overhead_s=METAL_MARLIN_DISPATCH_S,
            fitted_on=(),
            note=(
                f"derived: {LLAMA_CPP_METAL}'s Apple GPU constants, and one fused trellis "
                f"dispatch per layer ({METAL_MARLIN_DISPATCH_S * 1e3:.3f} ms, seed 001's "
                "kernel table)"
            ),
        )
    )
    entries = sorted(derived.entries, key=lambda e: (e.runtime, e.device_class))
    return replace(derived, entries=tuple(entries))


def fit_efficiency(rows: Sequence[MeasurementRow], *, assembled: str = "") -> Efficiency:
    """One set of constants per (runtime, device class) the rows use, fitted on those rows,
    and the routing pool fraction on the batched MoE decode rows (uniform if none); the
    DERIVED_KEYS derived from the fitted ones."""
    resolved = resolved_rows(rows)
    by_key: dict[Key, list[tuple[MeasurementRow, Setup]]] = {}
    for row, setup in resolved:
        for key in setup_keys(setup):
            if key not in DERIVED_KEYS:
                by_key.setdefault(key, []).append((row, setup))
    routed = _from_enough_sources([p for p in resolved if depends_on_routing(p[1])])
    experts = _from_enough_sources([p for p in resolved if depends_on_expert_gemms(p[1])])
    networked = _from_enough_sources([p for p in resolved if depends_on_network(p[1])])
    unfused = _from_enough_sources([p for p in resolved if depends_on_moe_layer_extra(p[1])])
    if len({setup.request.workload.model.is_moe for _, setup in unfused}) < 2:
        unfused = []  # without dense decodes beside them the extra is not told from a layer
    table = Efficiency(
        routing_pool_fitted_on=tuple(row.id for row, _ in routed),
        expert_gemm_fitted_on=tuple(row.id for row, _ in experts),
        network_hop_fitted_on=tuple(row.id for row, _ in networked),
        moe_layer_extra_fitted_on=tuple(row.id for row, _ in unfused),
        entries=tuple(
            replace(
                PRIOR_EFFICIENCY.get(*key),
                fitted_on=tuple(row.id for row, _ in pairs),
                note=f"fitted on {len(pairs)} row(s)",
            )
            for key, pairs in sorted(by_key.items())
        ),
        corpus_assembled=assembled,
    )
    for round_ in range(MAX_ROUNDS):
        start = table
        for key in sorted(by_key):
            table = _fit_key(table, key, by_key[key], first_round=round_ == 0)
        if routed:
            table = _fit_routing(table, routed)
        if experts:
            table = _fit_pooled_half_rows(table, experts)
        if networked:
            table = _fit_global(table, "network_hop_s", networked)
        if unfused:
            table = _fit_global(table, "moe_layer_extra", unfused)
        if table == start:
            break
    if any(key in DERIVED_KEYS for _, setup in resolved for key in setup_keys(setup)):
        table = _derived(table)
    return table


def fit_shipped() -> Efficiency:
    """The fit the shipped file holds: the corpus plus the seed rows of runtimes it lacks."""
    info, rows = load_corpus()
    return fit_efficiency((*rows, *load_seed_rows()), assembled=info.assembled)


def _held_out(source: str) -> Efficiency:
    """One source's held-out fit on the shipped corpus (a worker process's task)."""
    from simulator.engine.calibration.crossval import fit_without

    _, rows = load_corpus()
    return fit_without(rows, source, load_seed_rows())


def crossval_shipped(full: Efficiency, *, processes: int | None = None) -> CrossValidation:
    """The leave-one-source-out fits of the shipped corpus, one process per CPU (each fit
    is deterministic, so the result does not depend on the process count)."""
    from simulator.engine.calibration.crossval import CrossValidation, held_out_tables

    _, rows = load_corpus()
    seeds = load_seed_rows()
    workers = processes or os.cpu_count() or 1
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            tables = held_out_tables(
                rows, seeds, full, _held_out, map_=partial(pool.map, chunksize=1)
            )
    else:
        tables = held_out_tables(rows, seeds, full, _held_out)
    return CrossValidation(full=full, held_out=tables)


def main(argv: Sequence[str]) -> int:
    """Fit, cross-validate and write (or with --check compare) both shipped files."""
    from simulator.engine.calibration.crossval import CROSSVAL_PATH, crossval_to_json

    full = fit_shipped()
    texts = {
        "data/efficiency.json": efficiency_to_json(full),
        CROSSVAL_PATH: crossval_to_json(crossval_shipped(full)),
    }
    stale = []
    for name, data in texts.items():
        text = json.dumps(data, indent=2) + "\n"
        path = resources.files(ENGINE_PACKAGE).joinpath(name)
        if "--check" in argv:
            same = path.is_file() and path.read_text("utf-8") == text
            print(f"{name} is {'up to date' if same else 'stale'}")
            stale += [] if same else [name]
            continue
        with resources.as_file(path) as file:
            file.write_text(text, "utf-8")
        print(f"wrote {name}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

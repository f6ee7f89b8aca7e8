"""Vectorised refined mode: the best split of many hardware configurations at once, with every
refinement on (refined.ALL_REFINEMENTS), bit-identical to `refined_curve` + `optimal_split`.

Configurations are grouped by GPU count (which sets the pipeline stage's layers). Within a
group, every (configuration × resident count R) pair is one element of (n, L + 1) arrays:
what depends on R alone (which layers are resident, the weights, the load order) is computed
once per R in plain Python, in the scalar path's order; what depends on the hardware is NumPy.
The per-layer event timeline (refined.build_timeline) runs as the same recurrence, one layer
phase at a time, over all pairs at once; sums are taken in the scalar path's order so the
floating-point results, and so the tie rule's picks, are the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from simulator.engine.hardware import Hardware
from simulator.engine.train.compute import (
    dequant_seconds,
    dequant_uses,
    eager_traffic_seconds,
    effective_flops_per_s,
)
from simulator.engine.train.reference import TIE_TOLERANCE, SplitResult
from simulator.engine.train.refined import (
    ALL_REFINEMENTS,
    LayerPlan,
    head_s,
    held_gib,
    resident_order,
    sequence_gib,
    split_row,
    stage_layers,
    traffic_bytes,
)
from simulator.engine.train.schedules import pipeline_step
from simulator.engine.train.sweep import HardwareBatch
from simulator.engine.train.transfer import (
    LOADS_PER_MICRO_BATCH,
    SOURCE_NONE,
    SOURCE_NVME,
    SOURCE_RAM,
)
from simulator.engine.train.utilization import utilization_factors
from simulator.engine.train.workload import TrainWorkload, pipeline_micro_batches
from simulator.engine.units import GIB, transfer_s
from simulator.engine.work_limit import check_cpu_limit

Floats = NDArray[np.float64]
Bools = NDArray[np.bool_]
# The (layer, R, configuration) arrays grow as L² per configuration: configurations are taken
# in slices of at most this many elements per array (32 MiB of float64), so a model of many
# layers cannot exhaust a worker's memory.
ELEMENTS_PER_ARRAY = 4_000_000
# Stages kept (workload × GPU count): a ranking asks for 8, two workloads at a time is plenty.
STAGES_KEPT = 32


@dataclass(frozen=True, slots=True, kw_only=True)
class _Stage:
    """What depends on the resident count R alone, for R = 0..L (rows) and layer j (columns)."""

    plans: list[LayerPlan]
    streamed: Bools  # (L+1, L): layer j streams at R
    position: NDArray[np.int64]  # (L+1, L): j's index among the streamed layers at R
    streamed_count: NDArray[np.int64]  # (L+1,)
    held_gib: Floats  # (L+1,): resident weights + double buffer + LoRA + context
    streamed_gib: Floats  # (L+1,): the streamed layers' size (one GPU)
    largest_streamed_gib: Floats  # (L+1,)
    per_sequence_gib: float


@lru_cache(maxsize=STAGES_KEPT)
def _stage(workload: TrainWorkload, gpu_count: int) -> _Stage:
    """What a workload's stage on `gpu_count` GPUs is, whatever the machine: kept, since a
    ranking's chunks ask for the same few (its arrays are read-only)."""
    plans = stage_layers(workload, gpu_count, ALL_REFINEMENTS)
    count = len(plans)
    order = resident_order(plans)
    streamed = np.ones((count + 1, count), dtype=bool)
    held, streamed_gib, largest = [], [], []
    for r in range(count + 1):
        check_cpu_limit()
        resident = frozenset(order[:r])
        streamed[r, list(resident)] = False
        sizes = [p.gib for i, p in enumerate(plans) if i not in resident]
        held.append(held_gib(plans, resident))
        streamed_gib.append(sum(sizes))
        largest.append(max(sizes) if sizes else 0.0)
    stage = _Stage(
        plans=plans,
        streamed=streamed,
        position=np.cumsum(streamed, axis=1) - 1,
        streamed_count=streamed.sum(axis=1),
        held_gib=np.asarray(held),
        streamed_gib=np.asarray(streamed_gib),
        largest_streamed_gib=np.asarray(largest),
        per_sequence_gib=sequence_gib(plans, workload, ALL_REFINEMENTS),
    )
    for array in (stage.streamed, stage.position, stage.streamed_count, stage.held_gib,
                  stage.streamed_gib, stage.largest_streamed_gib):  # fmt: skip
        array.flags.writeable = False
    return stage


def _cached(stage: _Stage, pinned_gib: Floats, gpus: int) -> Bools:
    """refined._cached_layers for every pair: (layer, R, configuration), True where the layer
    is read from RAM though the stage as a whole comes from NVMe."""
    count = stage.streamed_count[:, np.newaxis]
    largest = stage.largest_streamed_gib[:, np.newaxis]
    with np.errstate(divide="ignore", invalid="ignore"):
        fit = np.where(largest > 0, np.floor_divide(pinned_gib / gpus, largest), 0)
        fit = np.minimum(count, fit.astype(np.int64))
        stride: Floats = np.where(fit > 0, count / np.maximum(fit, 1), 0.0)
    layers = len(stage.plans)
    chosen = np.zeros((*fit.shape, layers + 1), dtype=bool)  # (R, configuration, position)
    grid: NDArray[np.intp] = np.indices(fit.shape)
    rows, cols = grid[0], grid[1]
    for k in range(int(fit.max(initial=0))):
        take = k < fit
        index: NDArray[np.int64] = (k * stride).astype(np.int64)
        chosen[rows[take], cols[take], index[take]] = True
    position = np.clip(stage.position, 0, None)  # (R, layer): the layer's streamed position
    cached = np.empty((layers, *fit.shape), dtype=bool)
    for j in range(layers):
        cached[j] = chosen[rows, cols, position[:, j][:, np.newaxis]]
    streamed: Bools = cached & stage.streamed.T[:, :, np.newaxis]
    return streamed


def _load_s(stage: _Stage, hw: HardwareBatch, gpus: int) -> tuple[Floats, NDArray[np.int8]]:
    """Seconds to load each layer once (layer, R, configuration; 0 where resident) and the
    source of each pair (index into SOURCES)."""
    pcie, nvme, pinned = hw.pcie_gbps, hw.nvme_gbps, hw.pinned_gib
    nvme_bw = np.minimum(pcie, nvme / gpus)
    from_ram = stage.streamed_gib[:, np.newaxis] * gpus <= pinned  # (R, configuration)
    fast = from_ram[np.newaxis] | _cached(stage, pinned, gpus)
    gib = np.asarray([p.gib for p in stage.plans])[:, np.newaxis, np.newaxis]
    bandwidth = np.where(fast, pcie, nvme_bw)
    load = np.where(stage.streamed.T[:, :, np.newaxis], transfer_s(gib, bandwidth), 0.0)
    source = np.where(stage.streamed_count[:, np.newaxis] == 0, 0, np.where(from_ram, 1, 2))
    return load, source.astype(np.int8)


def _timeline_s(stage: _Stage, forward: Floats, backward: Floats, load: Floats) -> Floats:
    """refined.build_timeline's makespan for every pair: forward 0..L−1, backward L−1..0.

    Which resident counts stream layer j, and which of the two buffers its load reuses,
    depend on R alone: each step updates those rows of the (R, configuration) arrays."""
    count = len(stage.plans)
    steps = [(j, forward[j]) for j in range(count)]
    steps += [(j, backward[j]) for j in reversed(range(count))]
    streams = np.concatenate([stage.streamed, stage.streamed[:, ::-1]], axis=1)  # (R, step)
    parity = (np.cumsum(streams, axis=1) - streams) % 2
    shape = forward.shape[1:]
    link_free, gpu_free = np.zeros(shape), np.zeros(shape)
    buffers = (np.zeros(shape), np.zeros(shape))
    for step, (j, seconds) in enumerate(steps):
        for half, buffer in enumerate(buffers):
            rows = np.flatnonzero(streams[:, step] & (parity[:, step] == half))
            if rows.size:
                end = np.maximum(link_free[rows], buffer[rows]) + load[j][rows]
                link_free[rows] = end
                done = np.maximum(gpu_free[rows], end) + seconds[rows]
                gpu_free[rows] = done
                buffer[rows] = done
        rows = np.flatnonzero(~streams[:, step])
        gpu_free[rows] += seconds[rows]
    return gpu_free


def _sequential_sum(values: Floats) -> Floats:
    """Sum over the first axis in order, as Python's `sum` does (NumPy's sum is pairwise)."""
    total = np.zeros(values.shape[1:])
    for row in values:
        total = total + row
    return total


def _dequant_s(stage: _Stage, workload: TrainWorkload, hw: HardwareBatch) -> Any:
    """refined.layer_dequant_s for every configuration: one dequantization of each layer."""
    if not workload.quant.dequantized_per_use or hw.mem_gbps is None:
        return 0.0
    stored = np.asarray([p.gib * GIB for p in stage.plans])[:, np.newaxis, np.newaxis]
    params = np.asarray([p.params for p in stage.plans], dtype=np.float64)
    seconds = dequant_seconds(stored, params[:, np.newaxis, np.newaxis], hw.mem_gbps)
    return np.where(np.isnan(seconds), 0.0, seconds)


def _traffic_s(stage: _Stage, workload: TrainWorkload, hw: HardwareBatch, batch: Any) -> Any:
    """refined.layer_traffic_s for every configuration: (forward, backward), each
    (layer, R, configuration), or zeros."""
    if workload.eager_traffic is None or hw.mem_gbps is None:
        return 0.0, 0.0
    forward_b, backward_b = traffic_bytes(stage.plans, workload)
    tokens = batch * workload.seq_len  # (R, configuration)
    forward = eager_traffic_seconds(
        np.asarray(forward_b)[:, np.newaxis, np.newaxis], tokens, hw.mem_gbps
    )
    backward = eager_traffic_seconds(
        np.asarray(backward_b)[:, np.newaxis, np.newaxis], tokens, hw.mem_gbps
    )
    return np.where(np.isnan(forward), 0.0, forward), np.where(np.isnan(backward), 0.0, backward)


def _group(
    workload: TrainWorkload, configs: list[Hardware], gpus: int, stage: _Stage
) -> list[SplitResult | None]:
    hw = HardwareBatch.from_hardware(configs)
    free = hw.vram_gib - stage.held_gib[:, np.newaxis]  # (R, configuration)
    with np.errstate(divide="ignore", invalid="ignore"):
        batch = np.where(
            free > 0,
            np.minimum(workload.max_micro_batch, np.floor(free / stage.per_sequence_gib)),
            0,
        )
    util = workload.utilization * utilization_factors(batch * workload.seq_len)
    sustained = np.asarray([ALL_REFINEMENTS.bf16_tflops(h.require_gpu()) for h in configs])
    flops_per_s = effective_flops_per_s(sustained, util, workload.quant.compute_speedup)
    fwd_flops = np.asarray([p.forward_flops_per_sequence for p in stage.plans])
    bwd_flops = np.asarray([p.backward_flops_per_sequence for p in stage.plans])
    dequant = _dequant_s(stage, workload, hw)  # (R, 1, configuration) or 0
    uses_fwd, uses_bwd = dequant_uses(workload.activation_checkpointing)
    traffic_fwd, traffic_bwd = _traffic_s(stage, workload, hw, batch)
    forward = (
        batch * fwd_flops[:, np.newaxis, np.newaxis] / flops_per_s
        + uses_fwd * dequant
        + traffic_fwd
    )
    backward = (
        batch * bwd_flops[:, np.newaxis, np.newaxis] / flops_per_s
        + uses_bwd * dequant
        + traffic_bwd
    )
    head_fwd, head_bwd = head_s(
        workload, ALL_REFINEMENTS, batch * workload.seq_len, flops_per_s, hw.mem_gbps
    )
    forward[-1] += head_fwd
    backward[-1] += head_bwd
    compute_mb = _sequential_sum(forward) + _sequential_sum(backward)
    load, source = _load_s(stage, hw, gpus)
    transfer_mb = LOADS_PER_MICRO_BATCH * _sequential_sum(load)
    makespan = _timeline_s(stage, forward, backward, load)
    m = pipeline_micro_batches(gpus, workload.micro_batches)
    step, bubble = pipeline_step(
        ALL_REFINEMENTS.schedule,
        makespan_s=makespan,
        compute_s=compute_mb,
        micro_batches=m,
        stages=gpus,
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        tokens = np.where(batch >= 1, m * batch * workload.seq_len / step, -np.inf)
    columns = {"free": free, "batch": batch, "compute_mb": compute_mb,
               "transfer_mb": transfer_mb, "makespan": makespan, "step": step, "bubble": bubble,
               "tokens": tokens, "source": source}  # fmt: skip
    return [_pick(columns, i, configs[i], workload, stage) for i in range(len(configs))]


def _pick(columns: dict[str, Any], i: int, hw: Hardware, workload: TrainWorkload,
          stage: _Stage) -> SplitResult | None:  # fmt: skip
    """reference.optimal_split over config i's row: the first R within 0.1 % of the best."""
    tokens = columns["tokens"][:, i]
    best = tokens.max()
    if not np.isfinite(best):
        return None
    r = int(np.argmax(tokens >= best * (1.0 - TIE_TOLERANCE)))
    g, per_gpu = hw.gpu_count, len(stage.plans)
    m = pipeline_micro_batches(g, workload.micro_batches)
    source = (SOURCE_NONE, SOURCE_RAM, SOURCE_NVME)[int(columns["source"][r, i])]
    return split_row(
        hw, resident=r, per_gpu=per_gpu, free_gib=float(columns["free"][r, i]),
        batch=int(columns["batch"][r, i]), micro_batches=m,
        compute_mb_s=float(columns["compute_mb"][r, i]),
        transfer_mb_s=float(columns["transfer_mb"][r, i]),
        makespan_s=float(columns["makespan"][r, i]), step_s=float(columns["step"][r, i]),
        bubble_s=float(columns["bubble"][r, i]), tokens_per_s=float(tokens[r]), source=source,
    )  # fmt: skip


def refined_best_splits(
    workload: TrainWorkload, hardware: Sequence[Hardware]
) -> list[SplitResult | None]:
    """The best refined split of each configuration (None where nothing fits), in order."""
    answers: list[SplitResult | None] = [None] * len(hardware)
    for gpus in sorted({h.gpu_count for h in hardware}):
        stage = _stage(workload, gpus)
        members = [i for i, h in enumerate(hardware) if h.gpu_count == gpus]
        size = max(1, ELEMENTS_PER_ARRAY // (len(stage.plans) * (len(stage.plans) + 1)))
        for start in range(0, len(members), size):
            check_cpu_limit()
            part = members[start : start + size]
            group = _group(workload, [hardware[i] for i in part], gpus, stage)
            for i, answer in zip(part, group, strict=True):
                answers[i] = answer
    return answers

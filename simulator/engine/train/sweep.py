"""Vectorized reference mode: the optimal resident/batch split of many hardware configs at once.

The same arithmetic as `reference.evaluate_split`, in the same operation order (so results are
bit-identical), evaluated on (configs × resident counts) arrays in chunks, so memory stays flat
however many configs come in.

Skipping dominated splits: every row's tokens/s is at most the compute-bound value
U = M·S / ((M + G − 1)·L·t_seq), since step ≥ (M + G − 1)·compute per micro-batch. With the tie
rule "first R within 0.1 % of the best", a config is settled as soon as the first R within
0.1 % of the best seen so far also lies within 0.1 % of U: no later R can move the answer.
Most configs settle within the first few R; only the rest get the full scan.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from simulator.engine.hardware import Hardware
from simulator.engine.train.memory import double_buffer_gib, fixed_vram_gib
from simulator.engine.train.reference import TIE_TOLERANCE, LayerCosts, SplitResult, reference_costs
from simulator.engine.train.schedules import FILL_DRAIN, pipeline_step
from simulator.engine.train.transfer import LOADS_PER_MICRO_BATCH
from simulator.engine.train.workload import TrainWorkload

Floats = NDArray[np.float64]
Ints = NDArray[np.int64]
CHUNK_CONFIGS = 4096  # configs per chunk: (4096 × 93) float64 arrays ≈ 3 MiB each
FULL_SCAN_ROWS = 512  # configs per full-R grid: fastest on the benchmark machine
FIRST_BLOCK_R = 4  # resident counts tried before the full scan (settles most configs)
BOUND_SLACK = 1e-9  # U is computed in floating point: widen it so it stays an upper bound
SOURCE_CODES = ("none", "ram", "nvme")
BOTTLENECK_CODES = ("compute", "pcie", "nvme")


@dataclass(frozen=True, slots=True, kw_only=True)
class HardwareBatch:
    """Many hardware configurations, one array element each (memory GiB, bandwidth GB/s)."""

    vram_gib: Floats
    bf16_tflops: Floats
    pcie_gbps: Floats
    nvme_gbps: Floats
    pinned_gib: Floats
    gpu_count: Ints
    mem_gbps: Floats | None = None  # NaN where a GPU's bandwidth is unknown

    def __len__(self) -> int:
        return int(self.vram_gib.shape[0])

    @classmethod
    def from_hardware(cls, configs: Sequence[Hardware]) -> HardwareBatch:
        def column(values: list[float]) -> Floats:
            return np.asarray(values, dtype=np.float64)

        return cls(
            vram_gib=column([h.require_gpu().vram_gib for h in configs]),
            bf16_tflops=column([h.require_gpu().bf16_tflops for h in configs]),
            pcie_gbps=column([h.require_gpu().pcie_gbps for h in configs]),
            nvme_gbps=column([h.nvme_gbps for h in configs]),
            pinned_gib=column([h.pinned_gib for h in configs]),
            gpu_count=np.asarray([h.gpu_count for h in configs], dtype=np.int64),
            mem_gbps=column([h.require_gpu().mem_gbps or math.nan for h in configs]),
        )

    def take(self, index: slice | Ints) -> HardwareBatch:
        return HardwareBatch(
            vram_gib=self.vram_gib[index],
            bf16_tflops=self.bf16_tflops[index],
            pcie_gbps=self.pcie_gbps[index],
            nvme_gbps=self.nvme_gbps[index],
            pinned_gib=self.pinned_gib[index],
            gpu_count=self.gpu_count[index],
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class SweepResult:
    """The optimal split per config (tie rule of `reference.TIE_RULE`); −1 / NaN if none fits."""

    resident_layers: Ints
    streamed_layers: Ints
    micro_batch: Ints
    micro_batches: Ints
    free_vram_gib: Floats
    compute_s: Floats
    transfer_s: Floats
    bubble_s: Floats
    step_s: Floats
    overhead_pct: Floats
    tokens_per_s: Floats
    transfer_source: NDArray[np.int8]  # index into SOURCE_CODES
    bottleneck: NDArray[np.int8]  # index into BOTTLENECK_CODES

    @property
    def feasible(self) -> NDArray[np.bool_]:
        return self.resident_layers >= 0

    def row(self, i: int) -> SplitResult | None:
        """Config `i` as a plain `SplitResult` (for pages that drill into one build)."""
        if self.resident_layers[i] < 0:
            return None
        compute, transfer = float(self.compute_s[i]), float(self.transfer_s[i])
        source = SOURCE_CODES[int(self.transfer_source[i])]
        return SplitResult(
            resident_layers=int(self.resident_layers[i]),
            streamed_layers=int(self.streamed_layers[i]),
            free_vram_gib=float(self.free_vram_gib[i]),
            micro_batch=int(self.micro_batch[i]),
            micro_batches=int(self.micro_batches[i]),
            compute_s=compute,
            transfer_s=transfer,
            bubble_s=float(self.bubble_s[i]),
            step_s=float(self.step_s[i]),
            overhead_pct=float(self.overhead_pct[i]),
            tokens_per_s=float(self.tokens_per_s[i]),
            bottleneck=BOTTLENECK_CODES[int(self.bottleneck[i])],
            transfer_source=source,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class _Chunk:
    """Per-config scalars of a chunk, as (n, 1) columns that broadcast against R."""

    hw: HardwareBatch
    per_gpu: Ints
    micro_batches: Ints
    fixed_gib: Floats
    flops_per_s: Floats  # effective: peak × utilization × format speedup
    bound_tokens_per_s: Floats


def _chunk(costs: LayerCosts, workload: TrainWorkload, hw: HardwareBatch) -> _Chunk:
    gpus = hw.gpu_count
    per_gpu = -(-costs.num_layers // gpus)  # ceil(N / G), §6
    if workload.micro_batches is not None:
        m = np.full_like(gpus, workload.micro_batches)
    else:
        m = np.where(gpus == 1, 1, np.maximum(2 * gpus, 4))  # §8
    flops_per_s = hw.bf16_tflops * 1e12 * workload.utilization * costs.compute_speedup
    seconds = costs.train_flops_per_sequence / flops_per_s
    bound = m * workload.seq_len / ((m + gpus - 1) * per_gpu * seconds)
    return _Chunk(
        hw=hw,
        per_gpu=per_gpu,
        micro_batches=m,
        fixed_gib=fixed_vram_gib(per_gpu * costs.lora_gib_per_layer).astype(np.float64),
        flops_per_s=flops_per_s,
        bound_tokens_per_s=bound * (1.0 + BOUND_SLACK),
    )


def _grid(
    costs: LayerCosts, workload: TrainWorkload, c: _Chunk, resident: Ints
) -> dict[str, NDArray[Any]]:
    """Every split of `resident` (shape (n, k)) for the chunk's configs, §6–§8."""
    col = np.newaxis
    hw, lg = c.hw, costs.layer_gib
    per_gpu, gpus, m = c.per_gpu[:, col], hw.gpu_count[:, col], c.micro_batches[:, col]
    valid = resident <= per_gpu
    streaming = resident < per_gpu
    buffer = np.where(streaming, double_buffer_gib(lg), 0.0)
    free = hw.vram_gib[:, col] - ((resident * lg + buffer) + c.fixed_gib[:, col])
    batch = np.minimum(np.floor(free / costs.gib_per_sequence), workload.max_micro_batch)
    feasible = valid & (free > 0) & (batch >= 1)
    streamed = per_gpu - resident
    from_ram = streamed * lg * gpus <= hw.pinned_gib[:, col]
    pcie = hw.pcie_gbps[:, col]
    bandwidth = np.where(from_ram, pcie, np.minimum(pcie, hw.nvme_gbps[:, col] / gpus))
    compute_mb = per_gpu * batch * costs.train_flops_per_sequence / c.flops_per_s[:, col]
    transfer_mb = np.where(streaming, LOADS_PER_MICRO_BATCH * streamed * lg / bandwidth, 0.0)
    compute, transfer = m * compute_mb, m * transfer_mb
    step, bubble = pipeline_step(
        FILL_DRAIN, makespan_s=np.maximum(compute_mb, transfer_mb), compute_s=compute_mb,
        micro_batches=m, stages=gpus,
    )  # fmt: skip
    with np.errstate(divide="ignore", invalid="ignore"):
        tokens = np.where(feasible, m * batch * workload.seq_len / step, -np.inf)
    source = np.where(streaming, np.where(from_ram, 1, 2), 0).astype(np.int8)
    link_is_pcie = from_ram | (pcie <= hw.nvme_gbps[:, col] / gpus)
    bound = np.where(compute >= transfer, 0, np.where(link_is_pcie, 1, 2)).astype(np.int8)
    return {"tokens_per_s": tokens, "free": free, "batch": batch, "compute": compute,
            "transfer": transfer, "bubble": bubble, "step": step, "source": source,
            "bound": bound}  # fmt: skip


def _pick(tokens: Floats) -> tuple[Ints, Floats]:
    """Per row: the first column within 0.1 % of the row's best, and that best."""
    best = tokens.max(axis=1)
    first = np.argmax(tokens >= (best * (1.0 - TIE_TOLERANCE))[:, np.newaxis], axis=1)
    return first.astype(np.int64), best


def _empty(n: int) -> dict[str, NDArray[Any]]:
    """Output columns in their final dtypes, filled with the "nothing fits" values."""
    ints = {k: np.full(n, -1, dtype=np.int64) for k in ("resident", "streamed", "batch", "m")}
    floats = {k: np.full(n, np.nan) for k in FLOAT_COLUMNS}
    codes = {k: np.zeros(n, dtype=np.int8) for k in ("source", "bound")}
    return {**ints, **floats, **codes}


FLOAT_COLUMNS = ("free", "compute", "transfer", "step", "bubble", "tokens_per_s")


def _store(out: dict[str, NDArray[Any]], rows: Ints, grid: dict[str, NDArray[Any]],
           cols: Ints, resident: Ints, c: _Chunk) -> None:  # fmt: skip
    """Write the picked column of each row of `grid` into `out` at `rows`."""
    idx = np.arange(cols.shape[0])
    out["resident"][rows] = resident[idx, cols]
    out["streamed"][rows] = c.per_gpu - resident[idx, cols]
    out["batch"][rows] = grid["batch"][idx, cols]
    out["m"][rows] = c.micro_batches
    out["source"][rows] = grid["source"][idx, cols]
    out["bound"][rows] = grid["bound"][idx, cols]
    for key in FLOAT_COLUMNS:
        out[key][rows] = grid[key][idx, cols]


def _solve_chunk(costs: LayerCosts, workload: TrainWorkload, c: _Chunk,
                 out: dict[str, NDArray[Any]], *, prune: bool) -> None:  # fmt: skip
    if not prune:
        _full_scan(costs, workload, c.hw, np.arange(len(c.hw)), out)
        return
    n = len(c.hw)
    first_block = np.broadcast_to(np.arange(FIRST_BLOCK_R, dtype=np.int64), (n, FIRST_BLOCK_R))
    grid = _grid(costs, workload, c, first_block)
    cols, best = _pick(grid["tokens_per_s"])
    picked = grid["tokens_per_s"][np.arange(n), cols]
    covered = c.per_gpu < FIRST_BLOCK_R  # the block already holds every R = 0..L
    # R = 0 not fitting means nothing fits: free VRAM only falls as R grows, and all-resident
    # (L ≥ 2 layers, no buffer) needs at least the double buffer's room
    dead = ~np.isfinite(grid["tokens_per_s"][:, 0]) & (c.per_gpu >= 2)
    at_bound = picked >= c.bound_tokens_per_s * (1.0 - TIE_TOLERANCE)
    settled = covered | dead | at_bound
    rows = np.flatnonzero(settled & np.isfinite(best))
    _store(out, rows, {k: v[rows] for k, v in grid.items()}, cols[rows], first_block[rows],
           _take_chunk(c, rows))  # fmt: skip
    rest = np.flatnonzero(~settled)
    if rest.size:
        _full_scan(costs, workload, c.hw.take(rest), rest, out)


def _take_chunk(c: _Chunk, rows: Ints) -> _Chunk:
    return _Chunk(hw=c.hw.take(rows), per_gpu=c.per_gpu[rows],
                  micro_batches=c.micro_batches[rows], fixed_gib=c.fixed_gib[rows],
                  flops_per_s=c.flops_per_s[rows],
                  bound_tokens_per_s=c.bound_tokens_per_s[rows])  # fmt: skip


def _full_scan(costs: LayerCosts, workload: TrainWorkload, hw: HardwareBatch, rest: Ints,
               out: dict[str, NDArray[Any]]) -> None:  # fmt: skip
    """Every R = 0..L for the configs `rest` of the chunk (the straightforward sweep), in
    slices small enough that the (rows × R) grids stay in cache."""
    for start in range(0, rest.size, FULL_SCAN_ROWS):
        rows = rest[start : start + FULL_SCAN_ROWS]
        sub = _chunk(costs, workload, hw.take(slice(start, start + FULL_SCAN_ROWS)))
        width = int(sub.per_gpu.max()) + 1
        resident = np.broadcast_to(np.arange(width, dtype=np.int64), (rows.size, width))
        full = _grid(costs, workload, sub, resident)
        cols, best = _pick(full["tokens_per_s"])
        ok = np.flatnonzero(np.isfinite(best))
        _store(out, rows[ok], {k: v[ok] for k, v in full.items()}, cols[ok], resident[ok],
               _take_chunk(sub, ok))  # fmt: skip


def sweep(
    configs: HardwareBatch,
    workload: TrainWorkload,
    *,
    chunk: int = CHUNK_CONFIGS,
    prune: bool = True,
) -> SweepResult:
    """The optimal split of every config for one workload (reference mode), chunk by chunk.
    Working memory is one chunk's grids; only the result columns grow with the input.
    `prune=False` scans every R for every config (same answers; for the benchmark)."""
    costs = reference_costs(workload)
    n = len(configs)
    out = _empty(n)
    for start in range(0, n, chunk):
        part = configs.take(slice(start, start + chunk))
        view = {k: v[start : start + chunk] for k, v in out.items()}
        _solve_chunk(costs, workload, _chunk(costs, workload, part), view, prune=prune)
    step, bubble, compute = out["step"], out["bubble"], out["compute"]
    overhead = np.subtract(step, bubble)  # §8, in place from here on: one array, not five
    with np.errstate(invalid="ignore"):
        np.divide(overhead, compute, out=overhead)
        np.subtract(overhead, 1.0, out=overhead)
        np.maximum(overhead, 0.0, out=overhead)
        np.multiply(overhead, 100.0, out=overhead)
    return SweepResult(
        resident_layers=out["resident"],
        streamed_layers=out["streamed"],
        micro_batch=out["batch"],
        micro_batches=out["m"],
        free_vram_gib=out["free"],
        compute_s=compute,
        transfer_s=out["transfer"],
        bubble_s=bubble,
        step_s=step,
        overhead_pct=overhead,
        tokens_per_s=out["tokens_per_s"],
        transfer_source=out["source"],
        bottleneck=out["bound"],
    )


def sweep_curves(configs: HardwareBatch, workload: TrainWorkload) -> dict[str, Floats]:
    """Whole trade-off curves, (configs × resident counts) arrays; −inf tokens/s if infeasible.
    For the handful of builds a page draws, not for the ranking hot path."""
    costs = reference_costs(workload)
    c = _chunk(costs, workload, configs)
    width = int(c.per_gpu.max()) + 1
    resident = np.broadcast_to(np.arange(width, dtype=np.int64), (len(configs), width))
    grid = _grid(costs, workload, c, resident)
    return {k: np.asarray(v, dtype=np.float64) for k, v in grid.items()}

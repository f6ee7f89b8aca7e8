"""Reference mode: the equations of reference-model.md, which reproduce seed 000's tables.

Every per-layer quantity is folded into a `LayerCosts`; a split (R resident layers) is then
a few multiplications, shared with the vectorized sweep so the two agree exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from simulator.engine.formats.training import layer_gib
from simulator.engine.hardware import Hardware
from simulator.engine.model.layers import reference_layer
from simulator.engine.model.lora import lora_bytes_per_layer
from simulator.engine.train.compute import effective_flops_per_s, train_flops_per_sequence
from simulator.engine.train.memory import (
    GIB,
    budget_gib_per_sequence,
    double_buffer_gib,
    fixed_vram_gib,
    layers_per_gpu,
    micro_batch_for,
)
from simulator.engine.train.schedules import FILL_DRAIN, pipeline_step
from simulator.engine.train.transfer import (
    LOADS_PER_MICRO_BATCH,
    SOURCE_NONE,
    limiting_link,
    link_gbps,
    transfer_source,
)
from simulator.engine.train.workload import TrainWorkload, pipeline_micro_batches

TIE_TOLERANCE = 1e-3  # reference-model.md §8: splits within 0.1 % of the best are optima
TIE_RULE = (
    "fewest resident layers among the splits within 0.1 % of the best tokens/s "
    "(the most VRAM left for activations, so the largest micro-batch and transfer slack)"
)
GREEDY_MIN_FREE_GIB = 0.2  # §6: greedy gives back one layer if less than this would remain


@dataclass(frozen=True, slots=True, kw_only=True)
class LayerCosts:
    """Everything a split needs about one (identical) layer of the reference model."""

    num_layers: int
    layer_gib: float
    lora_gib_per_layer: float
    gib_per_sequence: float
    train_flops_per_sequence: float
    compute_speedup: float


@dataclass(frozen=True, slots=True, kw_only=True)
class SplitResult:
    """One row of a trade-off curve: R resident layers on each GPU, the rest streamed."""

    resident_layers: int
    streamed_layers: int
    free_vram_gib: float
    micro_batch: int
    micro_batches: int
    compute_s: float
    transfer_s: float
    bubble_s: float
    step_s: float
    overhead_pct: float
    tokens_per_s: float
    bottleneck: str
    transfer_source: str


def overhead_pct(*, step_s: float, bubble_s: float, compute_s: float) -> float:
    """§8: the share by which a step outlasts its compute, the pipeline bubble aside."""
    return max(0.0, (step_s - bubble_s) / compute_s - 1.0) * 100.0


def reference_costs(workload: TrainWorkload) -> LayerCosts:
    layer = reference_layer(workload.model)
    return LayerCosts(
        num_layers=workload.model.num_layers,
        layer_gib=layer_gib(layer, workload.quant, model_slug=workload.model.measured_sizes_slug),
        lora_gib_per_layer=lora_bytes_per_layer(layer, workload.lora) / GIB,
        gib_per_sequence=budget_gib_per_sequence(layer, workload.seq_len),
        train_flops_per_sequence=train_flops_per_sequence(layer, workload.seq_len),
        compute_speedup=workload.quant.compute_speedup,
    )


def free_vram_gib(costs: LayerCosts, hardware: Hardware, resident_layers: int) -> float:
    """§6: VRAM − (R·layer + double buffer if anything streams + LoRA of L layers + context)."""
    per_gpu = layers_per_gpu(costs.num_layers, hardware.gpu_count)
    buffer = double_buffer_gib(costs.layer_gib) if resident_layers < per_gpu else 0.0
    fixed = fixed_vram_gib(per_gpu * costs.lora_gib_per_layer)
    return hardware.require_gpu().vram_gib - (resident_layers * costs.layer_gib + buffer + fixed)


def evaluate_split(
    costs: LayerCosts, workload: TrainWorkload, hardware: Hardware, resident_layers: int
) -> SplitResult | None:
    """§6–§8 for one R; None when not even one sequence fits."""
    gpus, per_gpu = hardware.gpu_count, layers_per_gpu(costs.num_layers, hardware.gpu_count)
    free = free_vram_gib(costs, hardware, resident_layers)
    micro_batch = micro_batch_for(free, costs.gib_per_sequence, workload.max_micro_batch)
    if micro_batch < 1:
        return None
    flops_per_s = effective_flops_per_s(
        hardware.require_gpu().bf16_tflops, workload.utilization, costs.compute_speedup
    )
    compute_mb = per_gpu * micro_batch * costs.train_flops_per_sequence / flops_per_s
    streamed = per_gpu - resident_layers
    source = transfer_source(streamed, streamed * costs.layer_gib * gpus, hardware.pinned_gib)
    links = {"pcie_gbps": hardware.require_gpu().pcie_gbps, "nvme_gbps": hardware.nvme_gbps}
    transfer_mb = 0.0
    if source != SOURCE_NONE:
        bandwidth = link_gbps(source, gpu_count=gpus, **links)
        transfer_mb = LOADS_PER_MICRO_BATCH * streamed * costs.layer_gib / bandwidth
    m = pipeline_micro_batches(gpus, workload.micro_batches)
    compute, transfer = m * compute_mb, m * transfer_mb
    step, bubble = pipeline_step(
        FILL_DRAIN, makespan_s=max(compute_mb, transfer_mb), compute_s=compute_mb,
        micro_batches=m, stages=gpus,
    )  # fmt: skip
    bound = "compute" if compute >= transfer else limiting_link(source, gpu_count=gpus, **links)
    return SplitResult(
        resident_layers=resident_layers,
        streamed_layers=streamed,
        free_vram_gib=free,
        micro_batch=micro_batch,
        micro_batches=m,
        compute_s=compute,
        transfer_s=transfer,
        bubble_s=bubble,
        step_s=step,
        overhead_pct=overhead_pct(step_s=step, bubble_s=bubble, compute_s=compute),
        tokens_per_s=m * micro_batch * workload.seq_len / step,
        bottleneck=bound,
        transfer_source=source,
    )


def reference_curve(
    costs: LayerCosts, workload: TrainWorkload, hardware: Hardware
) -> tuple[SplitResult, ...]:
    """Every feasible R = 0..L, in order."""
    per_gpu = layers_per_gpu(costs.num_layers, hardware.gpu_count)
    rows = (evaluate_split(costs, workload, hardware, r) for r in range(per_gpu + 1))
    return tuple(row for row in rows if row is not None)


def optimal_split(curve: tuple[SplitResult, ...]) -> SplitResult | None:
    """The tie rule (TIE_RULE): first R whose tokens/s is within 0.1 % of the curve's best."""
    if not curve:
        return None
    threshold = max(row.tokens_per_s for row in curve) * (1.0 - TIE_TOLERANCE)
    return next(row for row in curve if row.tokens_per_s >= threshold)


def greedy_resident_layers(costs: LayerCosts, hardware: Hardware) -> int:
    """§6: all layers if they fit, else the most that fit beside the double buffer, minus one
    if fewer than 0.2 GiB would remain. −1 when not even R = 0 fits."""
    per_gpu = layers_per_gpu(costs.num_layers, hardware.gpu_count)
    if free_vram_gib(costs, hardware, per_gpu) >= 0:
        return per_gpu
    room = free_vram_gib(costs, hardware, 0)
    fit = min(per_gpu - 1, math.floor(room / costs.layer_gib)) if room >= 0 else -1
    if fit >= 0 and free_vram_gib(costs, hardware, fit) < GREEDY_MIN_FREE_GIB:
        fit -= 1
    return fit


def greedy_split(
    costs: LayerCosts, workload: TrainWorkload, hardware: Hardware
) -> SplitResult | None:
    resident = greedy_resident_layers(costs, hardware)
    return evaluate_split(costs, workload, hardware, resident) if resident >= 0 else None

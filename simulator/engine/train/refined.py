"""Refined mode: the reference's equations with the simplifications of reference-model.md's
last section replaced, each behind its own switch so its effect can be shown alone.

- `layer_shapes`: layers as transformers builds them: dense first layers sized and costed as
  dense, MoE shared experts n_shared × moe_intermediate wide (the seed reads 12288 for GLM).
- `utilization_curve`: small micro-batches run below the flat utilization (seed's NF4 table).
- `partial_ram`: pinned RAM caches as many streamed layers as fit; the rest come from NVMe.
- `timeline`: a per-layer event timeline of the double buffer (prefetch one layer ahead),
  forward then backward with recompute; resident layers give the link slack.
- `one_f_one_b`: a 1F1B pipeline keeps streaming during warm-up and cool-down, so the bubble
  is charged to compute only: step = max(M·makespan, (M + G − 1)·compute).
- `frozen_base`: LoRA trains adapters on a frozen base, so the base weights' backward computes
  activation gradients only (compute.backward_flops_per_sequence); the adapters' own FLOPs
  count. The workload's `activation_checkpointing` (reference: always on) sets whether the
  forward is recomputed and whether every layer's activations are kept instead.
- `decimal_bandwidth`: GiB sizes over decimal GB/s links are converted (units.transfer_s,
  1.074 s per GiB at 1 GB/s); the reference divides them as they stand.

With every switch off, `refined_curve` reproduces `reference.reference_curve`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from simulator.engine.formats.training import QuantFormat, layer_gib
from simulator.engine.hardware import GpuSpec, Hardware
from simulator.engine.model.config import ModelShape
from simulator.engine.model.layers import (
    dense_layer,
    is_dense_layer,
    moe_layer,
    reference_layer,
    total_params,
)
from simulator.engine.model.lora import (
    LoraConfig,
    lora_bytes_per_layer,
    lora_params_per_layer,
    projection_width,
)
from simulator.engine.train.compute import (
    backward_flops_per_sequence,
    dequant_seconds,
    dequant_uses,
    eager_traffic_seconds,
    effective_flops_per_s,
    forward_flops_per_sequence,
    lora_forward_flops_per_sequence,
)
from simulator.engine.train.eager_memory import eager_saved_bytes_per_token
from simulator.engine.train.lm_head import head_seconds, loss_gib_per_sequence
from simulator.engine.train.memory import (
    GIB,
    budget_gib_per_sequence,
    double_buffer_gib,
    fixed_vram_gib,
    layers_per_gpu,
    micro_batch_for,
)
from simulator.engine.train.reference import GREEDY_MIN_FREE_GIB, SplitResult, overhead_pct
from simulator.engine.train.schedules import FILL_DRAIN, ONE_F_ONE_B, pipeline_step
from simulator.engine.train.timeline import LayerEvent, Timeline
from simulator.engine.train.transfer import (
    LOADS_PER_MICRO_BATCH,
    SOURCE_NONE,
    SOURCE_NVME,
    SOURCE_RAM,
    limiting_link,
)
from simulator.engine.train.utilization import utilization_factor
from simulator.engine.train.workload import TrainWorkload, pipeline_micro_batches
from simulator.engine.units import seed_transfer_s, transfer_s
from simulator.engine.work_limit import check_cpu_limit

BACKWARD_PASSES = 3  # backward (2 × forward) plus the checkpoint recompute (1 ×), §5
# The first load of each pass always stalls a little; call the link the bottleneck only when
# waiting for weights costs more than this share of the micro-batch.
STALL_TOLERANCE = 0.01


@dataclass(frozen=True, slots=True, kw_only=True)
class Refinements:
    layer_shapes: bool = True
    utilization_curve: bool = True
    partial_ram: bool = True
    timeline: bool = True
    one_f_one_b: bool = True
    frozen_base: bool = True
    decimal_bandwidth: bool = True
    dequantization: bool = True
    lm_head: bool = True
    causal_attention: bool = True
    sustained_matmul: bool = True

    def names(self) -> tuple[str, ...]:
        return tuple(name for name in self.__slots__ if getattr(self, name))

    # The rules each switch selects: the computation calls them and never asks the switch.
    @property
    def schedule(self) -> str:
        """The pipeline schedule (schedules.py)."""
        return ONE_F_ONE_B if self.one_f_one_b else FILL_DRAIN

    @property
    def transfer_seconds(self) -> Callable[[float, float], float]:
        """Seconds to move GiB over GB/s: converted, or the seed's ratio."""
        return transfer_s if self.decimal_bandwidth else seed_transfer_s

    def utilization(self, base: float, tokens: int) -> float:
        """The utilization a micro-batch of `tokens` tokens reaches."""
        return base * utilization_factor(tokens) if self.utilization_curve else base

    def bf16_tflops(self, gpu: GpuSpec) -> float:
        """The BF16 rate the utilization is a share of: what the GPU's large matmuls sustain,
        measured (sustained.py), or the seed's datasheet peak."""
        return gpu.bf16_sustained() if self.sustained_matmul else gpu.bf16_tflops


ALL_REFINEMENTS = Refinements()
# What each refinement changes against seed 000's equations, in a line (docs/model.md,
# "Refined mode", gives the formulas and sources): the build page says why the modes differ.
REFINEMENT_EFFECTS = {
    "layer_shapes": "layers as transformers builds them (shared-expert and dense-layer widths)",
    "utilization_curve": "small micro-batches reach a lower share of peak",
    "partial_ram": "pinned RAM caches the streamed layers that fit, the rest come from NVMe",
    "timeline": "transfers and compute placed on a per-layer timeline instead of max(·,·)",
    "one_f_one_b": "1F1B schedule: the links keep streaming through the pipeline bubble",
    "frozen_base": "LoRA computes no weight gradients for the frozen base",
    "decimal_bandwidth": "GiB converted to GB before dividing by GB/s",
    "dequantization": "QLoRA dequantizes its NF4 base to BF16 on every use",
    "lm_head": "the output projection and the loss run once per token after the last layer",
    "causal_attention": "attention scores the S(S+1)/2 query-key pairs a causal mask keeps, not S²",
    "sustained_matmul": "compute at what the GPU's large matmuls sustain, measured, not its peak",
}
NO_REFINEMENTS = Refinements(
    layer_shapes=False, utilization_curve=False, partial_ram=False, timeline=False,
    one_f_one_b=False, frozen_base=False, decimal_bandwidth=False, dequantization=False,
    lm_head=False, causal_attention=False, sustained_matmul=False,
)  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class LayerPlan:
    """One layer of the simulated pipeline stage."""

    dense: bool
    gib: float
    lora_gib: float
    forward_flops_per_sequence: float
    backward_flops_per_sequence: float  # backward plus the checkpoint's recompute, if any
    gib_per_sequence: float
    params: int = 0  # the layer's weights (all experts), for its dequantization
    lora_params: int = 0  # its LoRA adapters' weights
    # Σ in + out features of its seven projections, for the eager traffic (EagerTraffic)
    layer_width: int = 0
    # what a sequence leaves in the layer run eagerly without checkpointing (eager_memory.py);
    # 0 for a layer the rule does not describe (MoE), whose working set stands for it
    eager_gib_per_sequence: float = 0.0


def stage_layers(workload: TrainWorkload, gpu_count: int, refine: Refinements) -> list[LayerPlan]:
    """The layers of the slowest stage: the last ceil(N/G) layers (all MoE when G > 1)."""
    # What the plans depend on, and nothing else: a fit varies the utilization of one
    # workload thousands of times, and its plans are the same each time.
    return list(
        _stage_plans(
            workload.model, workload.quant, workload.seq_len, workload.lora,
            workload.full_finetune, workload.activation_checkpointing, gpu_count, refine,
        )
    )  # fmt: skip


@functools.lru_cache(maxsize=256)
def _stage_plans(
    model: ModelShape,
    quant: QuantFormat,
    s: int,
    lora_config: LoraConfig,
    full_finetune: bool,
    checkpointing: bool,
    gpu_count: int,
    refine: Refinements,
) -> tuple[LayerPlan, ...]:
    per_gpu = layers_per_gpu(model.num_layers, gpu_count)
    first = model.num_layers - per_gpu
    # Causal kernels (FlashAttention, SDPA's is_causal) skip the masked half of the square;
    # sliding-window layers score at most their window (the mean over the model's layers).
    pairs = model.attended_pairs(0, s) if refine.causal_attention else None
    plans = []
    for index in range(first, model.num_layers):
        dense = refine.layer_shapes and is_dense_layer(model, index)
        if not refine.layer_shapes:
            shape = reference_layer(model)
        else:
            shape = dense_layer(model) if dense else moe_layer(model)
        slug = model.measured_sizes_slug if not (dense and model.is_moe) else ""  # dense: none
        lora = lora_params_per_layer(shape, lora_config)
        # full fine-tuning trains every weight: no adapters, every weight gradient
        adapters = lora if refine.frozen_base and not full_finetune else None
        plans.append(LayerPlan(
            dense=dense,
            gib=layer_gib(shape, quant, model_slug=slug),
            lora_gib=0.0 if full_finetune else lora_bytes_per_layer(shape, lora_config) / GIB,
            forward_flops_per_sequence=forward_flops_per_sequence(shape, s, pairs)
            if adapters is None
            else lora_forward_flops_per_sequence(shape, s, adapters, pairs),
            backward_flops_per_sequence=backward_flops_per_sequence(
                shape, s, lora_params=adapters, checkpointing=checkpointing, score_pairs=pairs
            ),
            gib_per_sequence=budget_gib_per_sequence(shape, s),
            params=total_params(shape),
            lora_params=0 if full_finetune else lora,
            layer_width=projection_width(shape),
            eager_gib_per_sequence=s * eager_saved_bytes_per_token(
                shape, None if full_finetune else lora_config, trained_base=full_finetune
            ) / GIB if dense and not model.is_moe else 0.0,
        ))  # fmt: skip
    return tuple(plans)


def activation_gib_per_sequence(plans: list[LayerPlan], checkpointing: bool) -> float:
    """With checkpointing one layer's working set at a time (§4); without, every layer of the
    stage keeps its activations for the backward, each about its working set."""
    sizes = [p.gib_per_sequence for p in plans]
    return max(sizes) if checkpointing else sum(sizes)


def sequence_gib(plans: list[LayerPlan], workload: TrainWorkload, refine: Refinements) -> float:
    """VRAM one more sequence of micro-batch takes: the layers' activations as checkpointing
    keeps them (without it, under the stacks whose eager traffic is counted, what autograd
    saves in each eager layer: eager_memory.py), and the unfused loss's logits
    (lm_head.loss_gib_per_sequence) under those stacks."""
    eager = workload.eager_traffic is not None
    if eager and not workload.activation_checkpointing:
        activations = sum(p.eager_gib_per_sequence or p.gib_per_sequence for p in plans)
    else:
        activations = activation_gib_per_sequence(plans, workload.activation_checkpointing)
    if not refine.lm_head:
        return activations
    return activations + loss_gib_per_sequence(workload.model, workload.seq_len, eager)


def resident_order(plans: list[LayerPlan]) -> list[int]:
    """Which layers become resident first: dense (small) ones, then evenly spaced others, so
    resident layers interleave with streamed ones and lend the link their compute time."""
    dense = [i for i, p in enumerate(plans) if p.dense]
    others = [i for i, p in enumerate(plans) if not p.dense]
    order: list[int] = []
    placed: set[int] = set()  # membership in O(1): a list made this O(L²) per split
    step = len(others)
    while len(order) < len(others):  # bit-reversal-like spreading: halves, quarters, ...
        for i in others[:: max(step, 1)]:
            if i not in placed:
                placed.add(i)
                order.append(i)
        step //= 2
    return dense + order


@dataclass(frozen=True, slots=True, kw_only=True)
class _Split:
    resident: frozenset[int]
    free_gib: float
    batch: int


def held_gib(plans: list[LayerPlan], resident: frozenset[int]) -> float:
    """VRAM a split holds before activations: resident weights, the double buffer (two of
    the largest streamed layer) if anything streams, LoRA of every layer, the context."""
    streamed = [p.gib for i, p in enumerate(plans) if i not in resident]
    buffer = double_buffer_gib(max(streamed)) if streamed else 0.0
    weights = sum(p.gib for i, p in enumerate(plans) if i in resident)
    fixed = fixed_vram_gib(sum(p.lora_gib for p in plans))
    return weights + buffer + fixed


def _free_gib(plans: list[LayerPlan], resident: frozenset[int], vram_gib: float) -> float:
    return vram_gib - held_gib(plans, resident)


def _transfer_s(
    plans: list[LayerPlan], streamed: list[int], hw: Hardware, refine: Refinements
) -> tuple[dict[int, float], str]:
    """Seconds to load each streamed layer once, and the source ("ram", "nvme" or "none")."""
    if not streamed:
        return {}, SOURCE_NONE
    g, pcie = hw.gpu_count, hw.require_gpu().pcie_gbps
    nvme_bw = min(pcie, hw.nvme_gbps / g)
    seconds = refine.transfer_seconds
    total = sum(plans[i].gib for i in streamed) * g
    if not refine.partial_ram or total <= hw.pinned_gib:
        bw = pcie if total <= hw.pinned_gib else nvme_bw
        return {i: seconds(plans[i].gib, bw) for i in streamed}, (
            SOURCE_RAM if total <= hw.pinned_gib else SOURCE_NVME)  # fmt: skip
    cached = _cached_layers(plans, streamed, hw.pinned_gib / g)
    times = {i: seconds(plans[i].gib, pcie if i in cached else nvme_bw) for i in streamed}
    return times, SOURCE_NVME


def _cached_layers(plans: list[LayerPlan], streamed: list[int], budget_gib: float) -> set[int]:
    """Spread the RAM-cached layers evenly among the streamed ones (smooths NVMe load)."""
    largest = max(plans[i].gib for i in streamed)  # sized by the largest: never overfills
    fit = min(len(streamed), int(budget_gib // largest))
    if fit == 0:
        return set()
    stride = len(streamed) / fit
    return {streamed[int(k * stride)] for k in range(fit)}


def build_timeline(
    compute_s: list[float],
    load_s: dict[int, float],
    *,
    backward_s: list[float] | None = None,
    record: bool = True,
) -> Timeline:
    """Forward 0..L−1 (`compute_s`) then backward L−1..0 (`backward_s`; by default 3× forward:
    backward + recompute). A streamed layer loads before each of its two computes; the load may
    start when the link is free and the buffer it reuses (two streamed loads back) has finished
    computing."""
    backward = backward_s or [BACKWARD_PASSES * c for c in compute_s]
    order = [(j, "forward", compute_s[j]) for j in range(len(compute_s))]
    order += [(j, "backward", backward[j]) for j in reversed(range(len(compute_s)))]
    events: list[LayerEvent] = []
    link_free, gpu_free = 0.0, 0.0
    buffer_free: list[float] = [0.0, 0.0]
    loads = 0
    for j, phase, seconds in order:
        start_t = end_t = None
        ready = gpu_free
        if j in load_s:
            start_t = max(link_free, buffer_free[loads % 2])
            end_t = start_t + load_s[j]
            link_free, ready = end_t, max(gpu_free, end_t)
        begin = ready
        gpu_free = begin + seconds
        if j in load_s:
            buffer_free[loads % 2] = gpu_free
            loads += 1
        if record:
            events.append(LayerEvent(layer=j, phase=phase, resident=j not in load_s,
                                     transfer_start_s=start_t, transfer_end_s=end_t,
                                     compute_start_s=begin, compute_end_s=gpu_free))  # fmt: skip
    busy = sum(compute_s) + sum(backward)
    return Timeline(events=tuple(events), micro_batch_s=gpu_free, compute_busy_s=busy,
                    transfer_busy_s=LOADS_PER_MICRO_BATCH * sum(load_s.values()))  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class RefinedSplit:
    row: SplitResult
    timeline: Timeline | None


def evaluate_refined(
    plans: list[LayerPlan],
    workload: TrainWorkload,
    hw: Hardware,
    resident_count: int,
    refine: Refinements,
    *,
    record: bool = False,
) -> RefinedSplit | None:
    """One split (the first `resident_count` layers of `resident_order` kept on the GPU)."""
    resident = frozenset(resident_order(plans)[:resident_count])
    free = _free_gib(plans, resident, hw.require_gpu().vram_gib)
    per_sequence = sequence_gib(plans, workload, refine)
    batch = micro_batch_for(free, per_sequence, workload.max_micro_batch)
    if batch < 1:
        return None
    util = refine.utilization(workload.utilization, batch * workload.seq_len)
    flops_per_s = effective_flops_per_s(
        refine.bf16_tflops(hw.require_gpu()), util, workload.quant.compute_speedup
    )
    mem_gbps = hw.require_gpu().mem_gbps
    dequant_s = layer_dequant_s(plans, workload, mem_gbps, refine)
    uses_fwd, uses_bwd = dequant_uses(workload.activation_checkpointing)
    traffic_fwd, traffic_bwd = layer_traffic_s(plans, workload, mem_gbps, batch * workload.seq_len)
    forward_s = [
        batch * p.forward_flops_per_sequence / flops_per_s + uses_fwd * dq + tf
        for p, dq, tf in zip(plans, dequant_s, traffic_fwd, strict=True)
    ]
    backward_s = [
        batch * p.backward_flops_per_sequence / flops_per_s + uses_bwd * dq + tb
        for p, dq, tb in zip(plans, dequant_s, traffic_bwd, strict=True)
    ]
    head_fwd, head_bwd = head_s(workload, refine, batch * workload.seq_len, flops_per_s, mem_gbps)
    forward_s[-1] += head_fwd  # the last layer's output goes through the head, whose
    backward_s[-1] += head_bwd  # gradient the last layer's backward waits for
    compute_mb = sum(forward_s) + sum(backward_s)
    streamed = [i for i in range(len(plans)) if i not in resident]
    load_s, source = _transfer_s(plans, streamed, hw, refine)
    transfer_mb = LOADS_PER_MICRO_BATCH * sum(load_s.values())
    timeline = None
    if refine.timeline or record:
        timeline = build_timeline(forward_s, load_s, backward_s=backward_s, record=record)
    makespan = (
        timeline.micro_batch_s if refine.timeline and timeline else max(compute_mb, transfer_mb)
    )
    row = _row(workload, hw, refine, resident_count, len(plans), free, batch,
               compute_mb, transfer_mb, makespan, source)  # fmt: skip
    return RefinedSplit(row=row, timeline=timeline if record else None)


def head_s(
    workload: TrainWorkload, refine: Refinements, tokens: Any, flops_per_s: Any, mem_gbps: Any
) -> tuple[Any, Any]:
    """(forward, backward) seconds of the LM head and the loss (lm_head.head_seconds) for
    `tokens` tokens: trained under full fine-tuning; the unfused FP32 loss under the stacks
    whose eager traffic is counted (the transformers ones). A pipeline's last stage carries
    them, and the stage evaluated stands for the slowest."""
    if not refine.lm_head:
        return 0.0, 0.0
    return head_seconds(
        workload.model,
        trained=workload.full_finetune,
        unfused_loss=workload.eager_traffic is not None,
        tokens=tokens,
        flops_per_s=flops_per_s,
        mem_gbps=mem_gbps,
    )


def layer_dequant_s(
    plans: list[LayerPlan], workload: TrainWorkload, mem_gbps: float | None, refine: Refinements
) -> list[float]:
    """Seconds of one dequantization of each layer (compute.dequant_seconds); none for a
    format computed as stored, with the switch off, or on a GPU whose bandwidth is unknown."""
    if not (refine.dequantization and workload.quant.dequantized_per_use) or not mem_gbps:
        return [0.0] * len(plans)
    return [dequant_seconds(p.gib * GIB, p.params, mem_gbps) for p in plans]


def adapter_width(plan: LayerPlan, workload: TrainWorkload) -> float:
    """Σ in + out features of the layer's adapted projections (its adapters' weights / r)."""
    return plan.lora_params / workload.lora.rank


def traffic_bytes(
    plans: list[LayerPlan], workload: TrainWorkload
) -> tuple[list[float], list[float]]:
    """Per layer, the bytes per token of the stack's eager traffic (compute.EagerTraffic):
    (forward, backward), the backward with the recomputed forward's when checkpointing."""
    traffic = workload.eager_traffic
    if traffic is None:
        return [0.0] * len(plans), [0.0] * len(plans)
    rank = workload.lora.rank
    forward = [
        traffic.forward_bytes(p.layer_width, adapter_width(p, workload), rank) for p in plans
    ]
    recompute = 1 if workload.activation_checkpointing else 0
    backward = [
        traffic.backward_bytes(p.layer_width, adapter_width(p, workload), rank) + recompute * f
        for p, f in zip(plans, forward, strict=True)
    ]
    return forward, backward


def layer_traffic_s(
    plans: list[LayerPlan], workload: TrainWorkload, mem_gbps: float | None, tokens: int
) -> tuple[list[float], list[float]]:
    """Seconds of the eager traffic (`traffic_bytes`) of `tokens` tokens through each layer:
    (forward, backward); zeros on a GPU of unknown bandwidth."""
    if not mem_gbps:
        return [0.0] * len(plans), [0.0] * len(plans)
    forward, backward = traffic_bytes(plans, workload)
    return (
        [eager_traffic_seconds(b, tokens, mem_gbps) for b in forward],
        [eager_traffic_seconds(b, tokens, mem_gbps) for b in backward],
    )


def _row(workload: TrainWorkload, hw: Hardware, refine: Refinements, resident: int,
         per_gpu: int, free: float, batch: int, compute_mb: float, transfer_mb: float,
         makespan: float, source: str) -> SplitResult:  # fmt: skip
    g = hw.gpu_count
    m = pipeline_micro_batches(g, workload.micro_batches)
    step, bubble = pipeline_step(
        refine.schedule, makespan_s=makespan, compute_s=compute_mb, micro_batches=m, stages=g
    )
    return split_row(
        hw, resident=resident, per_gpu=per_gpu, free_gib=free, batch=batch, micro_batches=m,
        compute_mb_s=compute_mb, transfer_mb_s=transfer_mb, makespan_s=makespan, step_s=step,
        bubble_s=bubble, tokens_per_s=m * batch * workload.seq_len / step, source=source,
    )  # fmt: skip


def split_row(
    hw: Hardware,
    *,
    resident: int,
    per_gpu: int,
    free_gib: float,
    batch: int,
    micro_batches: int,
    compute_mb_s: float,
    transfer_mb_s: float,
    makespan_s: float,
    step_s: float,
    bubble_s: float,
    tokens_per_s: float,
    source: str,
) -> SplitResult:
    """A refined split as a curve row, from one micro-batch's figures; the link is the
    bottleneck when waiting for weights stretches the micro-batch past STALL_TOLERANCE."""
    compute, transfer = micro_batches * compute_mb_s, micro_batches * transfer_mb_s
    link_bound = makespan_s > compute_mb_s * (1 + STALL_TOLERANCE)
    gpu = hw.require_gpu()
    return SplitResult(
        resident_layers=resident,
        streamed_layers=per_gpu - resident,
        free_vram_gib=free_gib,
        micro_batch=batch,
        micro_batches=micro_batches,
        compute_s=compute,
        transfer_s=transfer,
        bubble_s=bubble_s,
        step_s=step_s,
        overhead_pct=overhead_pct(step_s=step_s, bubble_s=bubble_s, compute_s=compute),
        tokens_per_s=tokens_per_s,
        bottleneck=limiting_link(
            source, pcie_gbps=gpu.pcie_gbps, nvme_gbps=hw.nvme_gbps, gpu_count=hw.gpu_count
        )
        if link_bound
        else "compute",
        transfer_source=source,
    )


def refined_curve(
    workload: TrainWorkload, hw: Hardware, refine: Refinements = ALL_REFINEMENTS
) -> tuple[SplitResult, ...]:
    plans = stage_layers(workload, hw.gpu_count, refine)
    rows = []
    for r in range(len(plans) + 1):
        check_cpu_limit()  # each split walks every layer: O(L²) for the curve
        split = evaluate_refined(plans, workload, hw, r, refine)
        if split is not None:
            rows.append(split.row)
    return tuple(rows)


def refined_greedy(
    workload: TrainWorkload, hw: Hardware, refine: Refinements = ALL_REFINEMENTS
) -> SplitResult | None:
    """§6's greedy rule on the refined layer sizes."""
    plans = stage_layers(workload, hw.gpu_count, refine)
    order = resident_order(plans)
    fits = [r for r in range(len(plans) + 1)
            if _free_gib(plans, frozenset(order[:r]), hw.require_gpu().vram_gib) >= 0]  # fmt: skip
    if not fits:
        return None
    r = max(fits)
    if (
        r < len(plans)
        and _free_gib(plans, frozenset(order[:r]), hw.require_gpu().vram_gib) < GREEDY_MIN_FREE_GIB
    ):
        r -= 1
    split = evaluate_refined(plans, workload, hw, r, refine) if r >= 0 else None
    return split.row if split else None


def refined_timeline(
    workload: TrainWorkload, hw: Hardware, resident_count: int,
    refine: Refinements = ALL_REFINEMENTS,
) -> Timeline | None:  # fmt: skip
    plans = stage_layers(workload, hw.gpu_count, refine)
    split = evaluate_refined(plans, workload, hw, resident_count, refine, record=True)
    return split.timeline if split else None


def resident_peak_gib(
    workload: TrainWorkload, hw: Hardware, refine: Refinements = ALL_REFINEMENTS
) -> float | None:
    """VRAM in use with every layer of the stage resident and a micro-batch of
    `max_micro_batch` sequences (activations as `activation_checkpointing` keeps them); None
    when that does not fit."""
    plans = stage_layers(workload, hw.gpu_count, refine)
    free = _free_gib(plans, frozenset(range(len(plans))), hw.require_gpu().vram_gib)
    per_sequence = sequence_gib(plans, workload, refine)
    activations = workload.max_micro_batch * per_sequence
    return None if activations > free else hw.require_gpu().vram_gib - free + activations


def without(refine: Refinements, name: str) -> Refinements:
    return replace(refine, **{name: False})


def only(name: str) -> Refinements:
    return replace(NO_REFINEMENTS, **{name: True})

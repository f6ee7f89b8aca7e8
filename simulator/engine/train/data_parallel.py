"""Data-parallel training: every GPU runs the whole model on its own micro-batches (DDP), or
holds a 1/G shard of it and gathers each layer when it needs it (FSDP, DeepSpeed ZeRO-3),
as torchtune, axolotl, accelerate and TRL train on several GPUs, or keeps the whole model
but only 1/G of the optimizer state (ZeRO-1, Megatron's distributed optimizer) or of the
state and the gradients (ZeRO-2); and full fine-tuning, whose every weight has a gradient and
Adam states. Refined mode only (docs/model.md, "Data-parallel training").

Per GPU, per micro-batch of B sequences:
- compute: the forward and backward of every layer (refined.LayerPlan's FLOPs at the
  utilization, plus QLoRA's dequantization), as on one GPU;
- communication over the GPU–GPU link, overlapped with compute (FSDP prefetches the next
  layer, DDP reduces gradient buckets as the backward produces them): FSDP all-gathers each
  layer's weights for every use (forward, backward, recompute) and reduce-scatters the trained
  gradients, each moving (G − 1)/G of the bytes through every GPU's link; DDP all-reduces the
  trained gradients, 2 (G − 1)/G of their bytes;
- memory: the trained weights' state (gradients and Adam's moments and FP32 master copy,
  `GRADIENT_BYTES` and `OPTIMIZER_BYTES`), the stored weights, the activations; ZeRO-1
  divides the optimizer's part by G, ZeRO-2 the gradients too (Rajbhandari et al. 2020,
  ZeRO §5.1: P_os, P_os+g), FSDP divides weights and state by G and adds two gathered layers
  (the one computing, the one arriving). ZeRO-1 and ZeRO-2 move DDP's bytes: the gradients
  reduce-scattered, the updated weights all-gathered (ZeRO §7.2.1).
A step of M micro-batches (gradient accumulation) ends with the optimizer's update, which
reads and writes each trained weight's state once (memory-bound).

Tensor parallelism (`workload.tensor_parallel` = T, Megatron-LM's column and row split with
sequence parallel; Shoeybi et al. 2019 §3, Korthikanti et al. 2022 §4.2.2): T GPUs split every
layer's weights, FLOPs and activations, so each holds and computes 1/T of them, and G/T groups
of T run data parallel (FSDP shards over the G/T groups). Each layer's forward ends its
attention and its MLP with an all-reduce of the B × S × hidden activations (under sequence
parallel an all-gather and a reduce-scatter, the same bytes), and its backward does the same
for their gradients (the recompute repeats the forward's): 2 × (forward passes + 1) per layer,
each moving 2 (T − 1)/T of the 2-byte activations through every GPU's link. These sit on the
critical path between the layer's GEMMs and are added to the compute; the data-parallel
traffic, as above, overlaps it.

Pipeline parallelism (`workload.pipeline_parallel` = P, Megatron-LM's; Narayanan et al. 2021
§2.2): P GPUs each hold a consecutive 1/P of the layers (the last also the LM head), and
G / (T × P) groups run data parallel. A step runs its M micro-batches through the stages
one-forward-one-backward, and the pipeline fills and drains once: the step takes
(M + (P − 1)/V) micro-batch times of the slowest stage, the last, where V is the chunks of
layers each GPU holds (`virtual_stages`, the interleaved schedule, which shrinks the bubble
V-fold). Between stages each micro-batch's B × S × hidden 2-byte activations go forward and
their gradients back, V times per GPU, split over the T GPUs of a stage, over the GPU–GPU
link and overlapped with compute as the data-parallel traffic is. Memory: each GPU holds its
stage's weights and state; the first stage keeps P micro-batches in flight, and under the
interleaved schedule P (1 + (P − 1)/(P V)) (Korthikanti et al. 2022 §4.2.3), capped at M:
the one computing takes the working set above, each waiting one the stage's activations, or
with checkpointing only each stage layer's input (S × hidden × 2 bytes a sequence), which
the last stage, with one micro-batch in flight, holds beside the loss's logits.
"""

from __future__ import annotations

from dataclasses import replace

from simulator.engine.errors import EngineInputError
from simulator.engine.hardware import Hardware
from simulator.engine.model.layers import embedding_params
from simulator.engine.train.compute import (
    ACTIVATION_GRAD_PASSES,
    dequant_uses,
    effective_flops_per_s,
    forward_passes,
)
from simulator.engine.train.memory import fixed_vram_gib, micro_batch_for
from simulator.engine.train.offload import (
    host_update_s,
    offloads,
    offloads_parameters,
    pcie_s,
    require_host_ram,
    require_offload,
)
from simulator.engine.train.reference import SplitResult, overhead_pct
from simulator.engine.train.refined import (
    ALL_REFINEMENTS,
    LayerPlan,
    Refinements,
    head_s,
    layer_dequant_s,
    layer_traffic_s,
    sequence_gib,
    stage_layers,
)
from simulator.engine.train.workload import (
    DDP,
    FSDP,
    ZERO1,
    ZERO2,
    TrainWorkload,
    pipeline_micro_batches,
    require_data_parallelism,
)
from simulator.engine.units import GB, GIB

BF16_BYTES = 2
# Bytes each trained weight holds beside its stored BF16 copy, by optimizer
# (workload.optimizer):
# - "adamw": mixed precision (Rajbhandari et al. 2020, ZeRO §3.1, "16Ψ"): gradient (2 B), FP32
#   master copy (4 B) and the two FP32 moments (8 B);
# - "adamw-bf16": pure BF16 training as torchtune's `dtype: bf16` recipes run it: gradient
#   and both moments in BF16 (2 + 4 B);
# - "adamw8bit-in-backward": bitsandbytes' PagedAdamW8bit (two 1-byte moments) applied in the
#   backward (`optimizer_in_bwd: True`), so no gradient is kept (torchtune's
#   llama3_1/8B_full_single_device.yaml).
GRADIENT_BYTES = {"adamw": 2, "adamw-bf16": 2, "adamw8bit-in-backward": 0}
OPTIMIZER_BYTES = {"adamw": 12, "adamw-bf16": 4, "adamw8bit-in-backward": 2}
OPTIMIZER_STATE_BYTES = {
    name: GRADIENT_BYTES[name] + OPTIMIZER_BYTES[name] for name in GRADIENT_BYTES
}
STREAM_EFFICIENCY = 0.8  # as compute.DEQUANT_BANDWIDTH_EFFICIENCY
GATHERED_LAYERS = 2  # FSDP: the layer computing and the next one arriving
ALL_REDUCES_PER_LAYER_PASS = 2  # Megatron: after attention's and after the MLP's row split


def edge_params(workload: TrainWorkload) -> float:
    """The weights outside the decoder layers a GPU holds: the token embedding and the LM head
    (one matrix when tied), or under pipeline stages the last stage's LM head (Megatron keeps
    a tied embedding's copy there)."""
    model = workload.model
    if workload.pipeline_parallel > 1:
        return float(model.vocab_size * model.hidden_size)
    return float(embedding_params(model))


def trained_params(workload: TrainWorkload, plans: list[LayerPlan]) -> float:
    """Weights with gradients: every weight (full fine-tuning, the embedding and LM head
    included) or the LoRA adapters."""
    if workload.full_finetune:
        return float(sum(p.params for p in plans)) + edge_params(workload)
    return float(sum(p.lora_params for p in plans))


def link_gbps(hw: Hardware) -> float:
    """The GPU–GPU link: NVLink where the hardware states it, else the GPUs' PCIe."""
    return hw.interconnect_gbps or hw.require_gpu().pcie_gbps


def replicas(workload: TrainWorkload, hw: Hardware) -> int:
    """The data-parallel groups: G / (T × P) GPUs, each group holding a whole model split
    over its T × P GPUs."""
    return hw.gpu_count // (workload.tensor_parallel * workload.pipeline_parallel)


def micro_batches_per_step(workload: TrainWorkload) -> int:
    """M, the micro-batches each data-parallel group runs per step: as the request fixes, or
    through pipeline stages the seed's pipeline rule (max(2P, 4), reference-model.md §8), or
    1 (the update after every micro-batch)."""
    if workload.pipeline_parallel > 1:
        return pipeline_micro_batches(workload.pipeline_parallel, workload.micro_batches)
    return workload.micro_batches or 1


def in_flight_micro_batches(workload: TrainWorkload) -> float:
    """Micro-batches whose activations the first stage holds at once (module docstring)."""
    p, v = workload.pipeline_parallel, workload.virtual_stages
    if p == 1:
        return 1.0
    held = p * (1 + (p - 1) / (p * v)) if v > 1 else float(p)
    return min(held, float(micro_batches_per_step(workload)))


def _shards(workload: TrainWorkload, hw: Hardware, sharded: tuple[str, ...]) -> int:
    """Pieces a GPU's copy of something is cut into: T (tensor parallel) times the
    data-parallel groups when the parallelism shards it."""
    groups = replicas(workload, hw) if workload.parallelism in sharded else 1
    return groups * workload.tensor_parallel


def _weight_shards(workload: TrainWorkload, hw: Hardware) -> int:
    return _shards(workload, hw, (FSDP,))


def _gradient_shards(workload: TrainWorkload, hw: Hardware) -> int:
    return _shards(workload, hw, (ZERO2, FSDP))


def _optimizer_shards(workload: TrainWorkload, hw: Hardware) -> int:
    return _shards(workload, hw, (ZERO1, ZERO2, FSDP))


def _held_gib(workload: TrainWorkload, hw: Hardware, plans: list[LayerPlan]) -> float:
    """What a GPU holds before activations: its share of the stored weights, of the trained
    weights' gradients and of their optimizer state, FSDP's gathered layers (their 1/T), the
    stack's reserve. Offloaded state (train/offload.py) is in host RAM instead: the gradients
    and optimizer state, and with the weights' offload every stored weight but the layers in
    flight."""
    trained = trained_params(workload, plans)
    stored_gib = sum(p.gib for p in plans) + edge_params(workload) * BF16_BYTES / GIB
    weights_gib = stored_gib / _weight_shards(workload, hw)
    gradients_gib = trained * GRADIENT_BYTES[workload.optimizer] / GIB
    optimizer_gib = trained * OPTIMIZER_BYTES[workload.optimizer] / GIB
    if offloads(workload):
        gradients_gib = optimizer_gib = 0.0
    if offloads_parameters(workload):
        weights_gib = 0.0
    fsdp = workload.parallelism == FSDP and (replicas(workload, hw) > 1 or weights_gib == 0.0)
    gathered = GATHERED_LAYERS * max(p.gib for p in plans) / workload.tensor_parallel
    return (
        weights_gib
        + gradients_gib / _gradient_shards(workload, hw)
        + optimizer_gib / _optimizer_shards(workload, hw)
        + (gathered if fsdp else 0.0)
        + fixed_vram_gib(0.0)
    )


def offloaded_gib(workload: TrainWorkload, plans: list[LayerPlan]) -> float:
    """Host RAM the offloaded state takes: every trained weight's gradient and optimizer
    state, and with the weights' offload the stored weights, once for all ranks (each holds
    its shard)."""
    if not offloads(workload):
        return 0.0
    state = trained_params(workload, plans) * OPTIMIZER_STATE_BYTES[workload.optimizer] / GIB
    if not offloads_parameters(workload):
        return state
    return state + sum(p.gib for p in plans) + edge_params(workload) * BF16_BYTES / GIB


def _sequence_gib(plans: list[LayerPlan], workload: TrainWorkload, refine: Refinements) -> float:
    """A sequence's activations on one GPU, sequence parallel splitting them over the T GPUs:
    the stage's (the whole model's without pipeline stages), or under pipeline stages the
    larger of the first stage's, with its micro-batches in flight, and the last's, with the
    loss (module docstring)."""
    last = sequence_gib(plans, workload, refine)
    waiting = in_flight_micro_batches(workload) - 1
    if waiting <= 0:
        return last / workload.tensor_parallel
    computing = sequence_gib(plans, workload, replace(refine, lm_head=False))
    if workload.activation_checkpointing:
        stored = len(plans) * workload.seq_len * workload.model.hidden_size * BF16_BYTES / GIB
    else:
        stored = computing
    first = computing + waiting * stored
    return max(first, last) / workload.tensor_parallel


def data_parallel_need_gib(
    workload: TrainWorkload,
    hw: Hardware,
    refine: Refinements = ALL_REFINEMENTS,
    sequences: int = 1,
) -> float:
    """What one GPU needs for a micro-batch of `sequences`: its share of the weights and
    trained state, FSDP's gathered layers, the stack's reserve, and the activations."""
    plans = stage_layers(workload, workload.pipeline_parallel, refine)
    return _held_gib(workload, hw, plans) + sequences * _sequence_gib(plans, workload, refine)


def data_parallel_peak_gib(
    workload: TrainWorkload, hw: Hardware, refine: Refinements = ALL_REFINEMENTS
) -> float | None:
    """Peak GPU memory at `max_micro_batch` sequences (None when that does not fit)."""
    peak = data_parallel_need_gib(workload, hw, refine, workload.max_micro_batch)
    return peak if peak <= hw.require_gpu().vram_gib else None


def require_model_parallel(workload: TrainWorkload, hw: Hardware) -> None:
    """T GPUs split each layer and P stages split the layers: data parallel only (not the
    seed's layer pipeline); T × P dividing the GPUs, T the attention heads (Megatron's column
    split gives each GPU whole heads), P × V chunks at most the layers, V > 1 only with
    pipeline stages."""
    t, p, v = workload.tensor_parallel, workload.pipeline_parallel, workload.virtual_stages
    if t > 1:
        require_data_parallelism(
            workload, field="workload.tensor_parallel", what="tensor parallelism"
        )
        if hw.gpu_count % t:
            raise EngineInputError(
                field="workload.tensor_parallel",
                message=f"must divide hardware.gpu_count ({hw.gpu_count})",
            )
        heads = workload.model.attention.num_heads
        if heads % t:
            raise EngineInputError(
                field="workload.tensor_parallel",
                message=f"must divide the model's {heads} attention heads (each GPU holds whole "
                "heads)",
            )
    if p > 1:
        field = "workload.pipeline_parallel"
        require_data_parallelism(workload, field=field, what="Megatron's pipeline stages")
        if hw.gpu_count % (t * p):
            raise EngineInputError(
                field=field,
                message=f"times workload.tensor_parallel ({t}) must divide hardware.gpu_count "
                f"({hw.gpu_count})",
            )
    if v > 1 and p == 1:
        raise EngineInputError(
            field="workload.virtual_stages",
            message="interleaves pipeline stages: set workload.pipeline_parallel above 1",
        )
    layers = workload.model.num_layers
    if p * v > layers:
        raise EngineInputError(
            field="workload.pipeline_parallel",
            message=f"times workload.virtual_stages ({v}) must be at most the model's {layers} "
            "layers (each chunk holds at least one)",
        )


def tensor_parallel_s(
    workload: TrainWorkload, hw: Hardware, batch: int, layers: int | None = None
) -> float:
    """A micro-batch's tensor-parallel all-reduces (module docstring) in `layers` layers (the
    whole model by default): 2 per layer per forward pass and 2 in its backward, of
    B × S × hidden 2-byte activations, each moving 2 (T − 1)/T of them through every GPU's
    link."""
    t = workload.tensor_parallel
    if t == 1:
        return 0.0
    activations = batch * workload.seq_len * workload.model.hidden_size * BF16_BYTES
    passes = forward_passes(workload.activation_checkpointing) + ACTIVATION_GRAD_PASSES
    count = workload.model.num_layers if layers is None else layers
    all_reduces = ALL_REDUCES_PER_LAYER_PASS * passes * count
    moved = all_reduces * 2 * (t - 1) / t * activations
    return moved / (link_gbps(hw) * GB)


def stage_handoff_s(workload: TrainWorkload, hw: Hardware, batch: int) -> float:
    """A micro-batch's hand-offs between pipeline stages on one GPU (module docstring): its
    activations forward and their gradients back, B × S × hidden × 2 bytes each, once per
    chunk of layers the GPU holds, split over the stage's T GPUs."""
    if workload.pipeline_parallel == 1:
        return 0.0
    activations = batch * workload.seq_len * workload.model.hidden_size * BF16_BYTES
    moved = 2 * workload.virtual_stages * activations / workload.tensor_parallel
    return moved / (link_gbps(hw) * GB)


def data_parallel_split(
    workload: TrainWorkload, hw: Hardware, refine: Refinements = ALL_REFINEMENTS
) -> SplitResult | None:
    """The data-parallel run of `workload` on `hw` (None: not one sequence fits a GPU); with
    pipeline stages, of the slowest stage (the last: its layers and the LM head)."""
    gpu, t, p = hw.require_gpu(), workload.tensor_parallel, workload.pipeline_parallel
    g = replicas(workload, hw)  # data-parallel groups
    plans = stage_layers(workload, p, refine)
    weights_gib = sum(p.gib for p in plans) / t
    # the embedding and LM head sit in FSDP's root unit, which stays gathered from the forward
    # to the backward (`reshard_after_forward=False` for the root): one gather a micro-batch
    edge_bytes = edge_params(workload) * BF16_BYTES / t
    trained = trained_params(workload, plans)
    state_bytes = OPTIMIZER_STATE_BYTES[workload.optimizer]
    free = gpu.vram_gib - _held_gib(workload, hw, plans)
    per_sequence = _sequence_gib(plans, workload, refine)
    batch = micro_batch_for(free, per_sequence, workload.max_micro_batch)
    if batch < 1:
        return None
    util = refine.utilization(workload.utilization, batch * workload.seq_len)
    speedup = workload.quant.compute_speedup
    flops_per_s = effective_flops_per_s(refine.bf16_tflops(gpu), util, speedup)
    dequant = layer_dequant_s(plans, workload, gpu.mem_gbps, refine)
    uses_fwd, uses_bwd = dequant_uses(workload.activation_checkpointing)
    traffic_fwd, traffic_bwd = layer_traffic_s(
        plans, workload, gpu.mem_gbps, batch * workload.seq_len
    )
    compute = sum(
        batch * (p.forward_flops_per_sequence + p.backward_flops_per_sequence) / flops_per_s
        + (uses_fwd + uses_bwd) * dq
        + tf
        + tb
        for p, dq, tf, tb in zip(plans, dequant, traffic_fwd, traffic_bwd, strict=True)
    ) + sum(head_s(workload, refine, batch * workload.seq_len, flops_per_s, gpu.mem_gbps))
    compute = compute / t + tensor_parallel_s(workload, hw, batch, len(plans))
    share = (g - 1) / g
    grad_bytes = trained / t * BF16_BYTES
    if workload.parallelism == FSDP:
        moved = ((uses_fwd + uses_bwd) * weights_gib * GIB + edge_bytes + grad_bytes) * share
    else:  # DDP's all-reduce = reduce-scatter + all-gather; ZeRO-1/2 all-gather the weights
        moved = 2 * grad_bytes * share
    comm = moved / (link_gbps(hw) * GB) if g > 1 else 0.0
    comm += stage_handoff_s(workload, hw, batch)
    # offload's PCIe traffic per micro-batch, overlapped with compute as the interconnect's is:
    # the GPU's share of the trained weights in BF16 (its gradients out each micro-batch, the
    # updated weights back each step), and with the weights' offload its shard of every
    # stored weight for each use
    bf16_share_s = pcie_s(grad_bytes / g, hw) if offloads(workload) else 0.0
    to_host = bf16_share_s
    if offloads_parameters(workload):
        to_host += pcie_s(((uses_fwd + uses_bwd) * weights_gib * GIB + edge_bytes) / g, hw)
    micro_batch_s = max(compute, comm, to_host)
    m = micro_batches_per_step(workload)
    bubble = (p - 1) / workload.virtual_stages * micro_batch_s
    # the update reads and writes every trained weight's state and its BF16 copy once
    update_bytes = 2 * (state_bytes + BF16_BYTES) * trained
    cpu = require_offload(workload, hw)
    if cpu is None:  # each GPU its shard, from its own memory
        optimizer_bytes = update_bytes / _optimizer_shards(workload, hw)
        optimizer_s = (
            optimizer_bytes / (gpu.mem_gbps * GB * STREAM_EFFICIENCY) if gpu.mem_gbps else 0.0
        )
    else:  # on the host, every rank's share at once, then the updated BF16 weights back
        require_host_ram(offloaded_gib(workload, plans), hw)
        optimizer_s = host_update_s(update_bytes / t, cpu) + bf16_share_s
    step = m * micro_batch_s + bubble + optimizer_s
    return SplitResult(
        resident_layers=len(plans),
        streamed_layers=0,
        free_vram_gib=free,
        micro_batch=batch,
        micro_batches=m,
        compute_s=m * compute,
        transfer_s=m * comm,
        bubble_s=bubble,
        step_s=step,
        overhead_pct=overhead_pct(step_s=step, bubble_s=bubble, compute_s=m * compute),
        tokens_per_s=g * m * batch * workload.seq_len / step,
        bottleneck=_bottleneck(compute, comm, to_host),
        transfer_source="interconnect" if hw.gpu_count > 1 else "none",
    )


def _bottleneck(compute: float, comm: float, to_host: float) -> str:
    """What a micro-batch waits on: compute, the GPU–GPU link, or the PCIe link to host RAM."""
    slowest = max(compute, comm, to_host)
    if slowest == compute:
        return "compute"
    return "interconnect" if slowest == comm else "pcie"


__all__ = [
    "DDP",
    "FSDP",
    "ZERO1",
    "ZERO2",
    "data_parallel_need_gib",
    "data_parallel_split",
    "require_model_parallel",
]

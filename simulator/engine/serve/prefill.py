"""Prefill: a prompt of `prompt_tokens` on an empty cache, bounded by arithmetic.

FLOPs: 2 per active weight per token (the LM head only for the last token) plus causal
attention, 2·nh·(d_qk + d_v) per query–key pair over P(P+1)/2 pairs per layer. The prompt runs
in micro-batches of `ubatch` tokens, each reading the weights once, so time is
max(FLOPs / FLOPS, micro-batches × weight bytes / bandwidth) on the computing device, plus a
fixed cost per layer per micro-batch. Hybrid computes on the GPU: llama.cpp copies each
CPU-resident expert tensor over the link for every micro-batch of ≥ 32 tokens
(GGML_OP_OFFLOAD_MIN_BATCH), so those bytes cross the link once per micro-batch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from simulator.engine.model.config import AttentionShape
from simulator.engine.model.layers import score_flops_per_token_per_position
from simulator.engine.serve.decode import FLOPS_PER_MAC
from simulator.engine.serve.hardware import CPU, Device
from simulator.engine.serve.placement import HOME, Placement


@dataclass(frozen=True, slots=True, kw_only=True)
class PrefillRun:
    tokens: int
    flops: float
    compute_s: float
    weight_read_s: float
    overhead_s: float
    link_bytes: float
    link_s: float

    @property
    def time_s(self) -> float:
        return max(self.compute_s, self.weight_read_s) + self.overhead_s + self.link_s

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.time_s


def prefill_flops(placement: Placement, attention: AttentionShape, tokens: int) -> float:
    parts = placement.parts
    per_token = (
        parts.attention + parts.dense + parts.moe_layers * (parts.experts_per_token * parts.expert)
    )
    linear = FLOPS_PER_MAC * (per_token * tokens + parts.output)
    pairs = tokens * (tokens + 1) / 2
    return linear + score_flops_per_token_per_position(attention) * parts.num_layers * pairs


def offloaded_expert_flops(placement: Placement, tokens: int) -> float:
    """FLOPs of the routed experts that live in CPU RAM (hybrid), over the whole prompt."""
    parts = placement.parts
    per_token = placement.offloaded_expert_layers * parts.experts_per_token * parts.expert
    return float(FLOPS_PER_MAC * per_token * tokens)


def prefill_run(
    placement: Placement,
    attention: AttentionShape,
    *,
    tokens: int,
    ubatch: int,
    devices: dict[str, Device],
    link_gbps: float,
    experts_compute_on_cpu: bool = False,
) -> PrefillRun:
    """`experts_compute_on_cpu`: hybrid runtimes that run the offloaded experts' prefill GEMMs
    on the CPU (KTransformers) instead of copying them to the GPU (llama.cpp); the CPU's
    share then runs after the GPU's at the CPU class's FLOPS efficiency."""
    device = devices[HOME[placement.name]]
    cls = device.device_class
    micro_batches = math.ceil(tokens / ubatch)
    flops = prefill_flops(placement, attention, tokens)
    stored = sum(share.stored_bytes for share in placement.shares)
    offloaded = placement.share(CPU) if placement.name == "hybrid" else None
    cpu_s = 0.0
    if offloaded is not None and experts_compute_on_cpu:
        cpu = devices[CPU]
        cpu_flops = offloaded_expert_flops(placement, tokens)
        cpu_s = cpu_flops / (cpu.peak_flops * cpu.device_class.flops_efficiency)
        flops, stored, offloaded = flops - cpu_flops, stored - offloaded.stored_bytes, None
    link_bytes = micro_batches * offloaded.stored_bytes if offloaded else 0.0
    return PrefillRun(
        tokens=tokens,
        flops=flops,
        compute_s=flops / (device.peak_flops * cls.flops_efficiency) + cpu_s,
        weight_read_s=micro_batches * stored / (device.bandwidth_bps * cls.bandwidth_efficiency),
        overhead_s=micro_batches * placement.parts.num_layers * cls.layer_overhead_s,
        link_bytes=link_bytes,
        link_s=link_bytes / (link_gbps * 1e9) if link_bytes else 0.0,
    )

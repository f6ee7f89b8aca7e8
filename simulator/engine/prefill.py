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

from .decode import FLOPS_PER_MAC
from .infer_hardware import CPU, Device
from .layers import score_flops_per_token_per_position
from .model_config import AttentionShape
from .placement import HOME, Placement


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


def prefill_run(
    placement: Placement,
    attention: AttentionShape,
    *,
    tokens: int,
    ubatch: int,
    devices: dict[str, Device],
    link_gbps: float,
) -> PrefillRun:
    device = devices[HOME[placement.name]]
    cls = device.device_class
    micro_batches = math.ceil(tokens / ubatch)
    flops = prefill_flops(placement, attention, tokens)
    stored = sum(share.stored_bytes for share in placement.shares)
    offloaded = placement.share(CPU) if placement.name == "hybrid" else None
    link_bytes = micro_batches * offloaded.stored_bytes if offloaded else 0.0
    return PrefillRun(
        tokens=tokens,
        flops=flops,
        compute_s=flops / (device.peak_flops * cls.flops_efficiency),
        weight_read_s=micro_batches * stored / (device.bandwidth_bps * cls.bandwidth_efficiency),
        overhead_s=micro_batches * placement.parts.num_layers * cls.layer_overhead_s,
        link_bytes=link_bytes,
        link_s=link_bytes / (link_gbps * 1e9) if link_bytes else 0.0,
    )

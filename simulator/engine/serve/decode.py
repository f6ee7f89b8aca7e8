"""Decode: one step of `batch` tokens, bounded per operation by memory traffic or arithmetic.

Each location reads its active weights (attention, dense/shared MLPs, LM head and the routed
experts the batch picks from an effective pool of f·E, f fitted) once per step; the KV
cache's location reads `context` positions per sequence. A location's step is its memory
time plus its arithmetic time, bytes / bandwidth + FLOPs / FLOPS at its device class's
efficiencies (no overlap: llama.cpp's batched decode runs each matmul's weight reads and
multiply-adds in one kernel per operation, and the batch sweep of benches/dgx-spark.md grows
by the FLOPs term on top of the weight reads; docs/model.md, "Decode"), plus a fixed cost per
layer; hybrid adds the activations crossing the CPU–GPU link at every offloaded layer.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulator.engine.model.config import AttentionShape
from simulator.engine.serve.hardware import Device
from simulator.engine.serve.placement import Placement, Share

FLOPS_PER_MAC = 2
ACTIVATION_BYTES = 4  # f32 hidden state copied each way per offloaded layer (ggml backend copy)
LINK_DIRECTIONS = 2


def distinct_experts(
    num_experts: int, per_token: int, batch: int, pool_fraction: float = 1.0
) -> float:
    """Expected routed experts a batch touches per layer when each token picks k of an
    effective pool of P = f·E experts independently: P·(1 − (1 − k/P)^b), with P ≥ k. Exactly
    k at batch 1 whatever f; f = 1 is uniform routing over all E (E as the batch grows), a
    smaller f the overlap of real routers, which favour some experts (docs/model.md,
    "Decode")."""
    if num_experts == 0:
        return 0.0
    if batch <= 1:
        return float(per_token)
    pool = max(pool_fraction * num_experts, float(per_token))
    return float(pool * (1.0 - (1.0 - per_token / pool) ** batch))


def decode_attention_flops_per_position(attention: AttentionShape) -> int:
    """Per layer per cached position for one query token. GQA: QKᵀ and PV over every query head
    (4·nh·d). MLA with absorbed projections (DeepSeek-V2 §2.1.2, FlashMLA): scores over the
    latent plus rope key and values over the latent, 2·nh·(2·d_c + d_rope)."""
    if attention.kind == "mla":
        latent = attention.kv_lora_rank
        return FLOPS_PER_MAC * attention.num_heads * (2 * latent + attention.qk_rope_head_dim)
    return 2 * FLOPS_PER_MAC * attention.num_heads * attention.head_dim


@dataclass(frozen=True, slots=True, kw_only=True)
class LocationStep:
    """One location's share of a decode step: bytes and FLOPs, and the seconds they take."""

    location: str
    weight_bytes: float
    kv_bytes: float
    flops: float
    memory_s: float  # weight and KV bytes / (bandwidth · η_bw)
    compute_s: float  # FLOPs / (peak FLOPS · η_flops), added to the memory time
    overhead_s: float

    @property
    def time_s(self) -> float:
        return self.memory_s + self.compute_s + self.overhead_s


@dataclass(frozen=True, slots=True, kw_only=True)
class DecodeStep:
    batch: int
    locations: tuple[LocationStep, ...]
    link_bytes: float
    link_s: float

    @property
    def step_s(self) -> float:
        return sum(step.time_s for step in self.locations) + self.link_s

    @property
    def tokens_per_s(self) -> float:
        return self.batch / self.step_s

    @property
    def bottleneck(self) -> str:
        """The largest single term: a location's memory, compute or per-layer overhead, or
        the link."""
        terms = {"link": self.link_s}
        for step in self.locations:
            terms[f"{step.location} memory bandwidth"] = step.memory_s
            terms[f"{step.location} compute"] = step.compute_s
            terms[f"{step.location} per-layer overhead"] = step.overhead_s
        return max(terms, key=lambda name: terms[name])


def _memory_and_compute(bytes_: float, flops: float, device: Device) -> tuple[float, float]:
    """(seconds reading `bytes_`, seconds computing `flops`): both count, one after the other."""
    cls = device.device_class
    memory = bytes_ / (device.bandwidth_bps * cls.bandwidth_efficiency)
    compute = flops / (device.peak_flops * cls.flops_efficiency)
    return memory, compute


@dataclass(frozen=True, slots=True, kw_only=True)
class DecodeInputs:
    placement: Placement
    attention: AttentionShape
    kv_bytes_per_token: float
    context: int
    batch: int
    # Effective share of the routed experts a batch draws from (distinct_experts); 1.0 =
    # uniform routing, the fitted value comes with the efficiency table.
    routing_pool_fraction: float = 1.0


def location_step(share: Share, device: Device, inputs: DecodeInputs) -> LocationStep:
    p, b = inputs.placement, inputs.batch
    parts = p.parts
    picked = distinct_experts(
        parts.num_experts, parts.experts_per_token, b, inputs.routing_pool_fraction
    )
    weight_bytes = share.dense_read_bytes + share.expert_layers * picked * p.expert_bytes
    active = share.dense_params + share.expert_layers * parts.experts_per_token * parts.expert
    weight_flops = FLOPS_PER_MAC * b * active
    kv_bytes = kv_flops = 0.0
    if share.location == p.kv_location:
        kv_bytes = inputs.kv_bytes_per_token * inputs.context * b
        per_position = decode_attention_flops_per_position(inputs.attention)
        kv_flops = float(per_position * parts.num_layers * inputs.context * b)
    memory_s, compute_s = _memory_and_compute(
        weight_bytes + kv_bytes, weight_flops + kv_flops, device
    )
    return LocationStep(
        location=share.location,
        weight_bytes=weight_bytes,
        kv_bytes=kv_bytes,
        flops=weight_flops + kv_flops,
        memory_s=memory_s,
        compute_s=compute_s,
        overhead_s=share.layers * device.device_class.layer_overhead_s,
    )


def decode_step(inputs: DecodeInputs, devices: dict[str, Device], link_gbps: float) -> DecodeStep:
    """One decode step of `inputs.batch` sequences at `inputs.context` cached tokens each."""
    p = inputs.placement
    steps = tuple(location_step(s, devices[s.location], inputs) for s in p.shares)
    crossings = p.offloaded_expert_layers * LINK_DIRECTIONS
    link_bytes = float(crossings * p.parts.hidden_size * ACTIVATION_BYTES * inputs.batch)
    link_s = link_bytes / (link_gbps * 1e9) if link_bytes else 0.0
    return DecodeStep(batch=inputs.batch, locations=steps, link_bytes=link_bytes, link_s=link_s)

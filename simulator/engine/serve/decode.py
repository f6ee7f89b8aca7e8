"""Decode: one step of `batch` tokens, bounded per operation by memory traffic or arithmetic.

Each location reads its active weights (attention, dense/shared MLPs, LM head and the routed
experts the batch picks from an effective pool of f·E, f fitted) once per step; the KV
cache's location reads `context` positions per sequence. A location's step is its memory
time plus its arithmetic time, bytes / bandwidth + FLOPs / FLOPS at its device class's
efficiencies (no overlap: llama.cpp's batched decode runs each matmul's weight reads and
multiply-adds in one kernel per operation, and the batch sweep of benches/dgx-spark.md grows
by the FLOPs term on top of the weight reads; docs/model.md, "Decode"), plus a fixed cost per
layer; hybrid adds the activations crossing the CPU–GPU link at every offloaded layer.

Each term is a rule of `DECODE_RULES` (costs.py) that counts bytes and FLOPs (`decode_work`);
`location_step` alone turns the summed counts into seconds on the location's device.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulator.engine.costs import ZERO, Cost, CostRules
from simulator.engine.model.config import AttentionShape, ModelShape
from simulator.engine.model.layers import delta_rule_decode_flops, indexer_flops_per_position
from simulator.engine.serve.hardware import CPU, Device, link_seconds, memory_and_compute_s
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
    link_bytes: float = 0.0  # what this location's layers send over the CPU–GPU link

    @property
    def time_s(self) -> float:
        return self.memory_s + self.compute_s + self.overhead_s


@dataclass(frozen=True, slots=True, kw_only=True)
class DecodeStep:
    batch: int
    locations: tuple[LocationStep, ...]
    link_bytes: float
    link_s: float
    allreduce_s: float = 0.0  # tensor parallelism's all-reduces between the GPUs
    network_s: float = 0.0  # the boundaries between machines (network.py)

    @property
    def shared_terms(self) -> dict[str, float]:
        """The step's seconds outside any one location, by name: the CPU–GPU link, the
        tensor-parallel all-reduces and the network between machines."""
        return {
            "link": self.link_s,
            "tensor-parallel all-reduce": self.allreduce_s,
            "network between machines": self.network_s,
        }

    @property
    def step_s(self) -> float:
        total = sum(step.time_s for step in self.locations)
        for seconds in self.shared_terms.values():  # added in turn, as they always were
            total += seconds
        return total

    @property
    def tokens_per_s(self) -> float:
        return self.batch / self.step_s

    @property
    def bottleneck(self) -> str:
        """The largest single term: a location's memory, compute or per-layer overhead, or
        one of the shared terms."""
        terms = self.shared_terms
        for step in self.locations:
            terms[f"{step.location} memory bandwidth"] = step.memory_s
            terms[f"{step.location} compute"] = step.compute_s
            terms[f"{step.location} per-layer overhead"] = step.overhead_s
        return max(terms, key=lambda name: terms[name])


@dataclass(frozen=True, slots=True, kw_only=True)
class DecodeInputs:
    placement: Placement
    model: ModelShape
    kv_bytes_per_token: float
    context: int
    batch: int
    # Effective share of the routed experts a batch draws from (distinct_experts); 1.0 =
    # uniform routing, the fitted value comes with the efficiency table.
    routing_pool_fraction: float = 1.0
    # The runtime's attention kernels read only a sparse-attention indexer's top-k tokens
    # (efficiency.SPARSE_ATTENTION_RUNTIMES); False: a dense attention over every cached
    # token, whatever the model's indexer picks.
    sparse_attention: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class ShareStep:
    """What a decode rule sees: one location's share of the model, in one step."""

    share: Share
    inputs: DecodeInputs


# The work of one decode step at one location, rule by rule.
DECODE_RULES: CostRules[ShareStep] = CostRules("decode")


@DECODE_RULES.register("dense_weights")
def dense_weights(x: ShareStep) -> Cost:
    """Attention, dense and shared MLPs, router, LM head and one embedding row: read once per
    step, one multiply-add per weight per token."""
    share = x.share
    return Cost(
        weight_bytes=share.dense_read_bytes,
        flops=FLOPS_PER_MAC * x.inputs.batch * share.dense_params,
    )


@DECODE_RULES.register("routed_experts")
def routed_experts(x: ShareStep) -> Cost:
    """The experts the batch picks at each MoE layer held here: each read once per step,
    k experts' multiply-adds per token."""
    p, b, layers = x.inputs.placement, x.inputs.batch, x.share.expert_layers
    parts = p.parts
    picked = distinct_experts(
        parts.num_experts, parts.experts_per_token, b, x.inputs.routing_pool_fraction
    )
    return Cost(
        weight_bytes=layers * picked * p.expert_bytes,
        flops=FLOPS_PER_MAC * b * layers * parts.experts_per_token * parts.expert,
    )


@DECODE_RULES.register("kv_cache")
def kv_cache(x: ShareStep) -> Cost:
    """Where the KV cache lives: every cached position a layer attends to read once per
    sequence (a sliding layer at most its window; with a sparse-attention indexer run by
    sparse kernels, the latent of at most its top-k and the indexer's keys of all; DeepSeek
    V4's window and compressed entries), and attention's FLOPs over them, an indexer's
    scores over every position or entry it ranks too (model.indexer_positions)."""
    inputs = x.inputs
    held = inputs.placement.kv_share(x.share.location)
    if not held:
        return ZERO
    model, context, sparse = inputs.model, inputs.context, inputs.sparse_attention
    positions = model.read_positions(context, sparse=sparse) * inputs.batch
    attended = model.attention_positions(context, sparse=sparse) * inputs.batch
    per_position = decode_attention_flops_per_position(model.attention)
    indexer = indexer_flops_per_position(model.attention)
    layers = inputs.placement.parts.num_layers
    cost = Cost(
        kv_bytes=inputs.kv_bytes_per_token * positions,
        # One query per sequence: matrix–vector work like the weights' GEMVs, not the
        # prompt's attention kernels, so it runs at the GEMM efficiency (costs.cache_flops).
        cache_flops=float(
            layers * per_position * attended
            + indexer * model.indexer_positions(context) * inputs.batch
        ),
    )
    return cost if held == 1.0 else cost * held


@DECODE_RULES.register("recurrent_state")
def recurrent_state(x: ShareStep) -> Cost:
    """Where the KV cache lives, linear-attention layers read and write each sequence's
    fixed state once per step (model.recurrent_state_bytes) and update it: its bytes twice,
    and the delta rule's FLOPs (delta_rule_decode_flops) at the GEMV efficiency, like the
    cache's matrix–vector work."""
    inputs = x.inputs
    lin = inputs.model.linear_attention
    held = inputs.placement.kv_share(x.share.location)
    if lin is None or not held:
        return ZERO
    flops = inputs.model.linear_layers * delta_rule_decode_flops(lin) * inputs.batch
    cost = Cost(
        kv_bytes=2 * inputs.model.recurrent_state_bytes * inputs.batch,
        cache_flops=float(flops),
    )
    return cost if held == 1.0 else cost * held


@DECODE_RULES.register("layer_overhead")
def layer_overhead(x: ShareStep) -> Cost:
    """A fixed cost per layer run here (kernel launches, thread barriers), and per layer whose
    routed experts are here the kernels a dense FFN does not run (router, top-k, the experts'
    gather and the weighted sum of their outputs: llama.cpp's build_moe_ffn)."""
    share = x.share
    return Cost(
        layer_visits=float(share.layers),
        moe_layer_visits=float(min(share.expert_layers, share.layers)),
    )


@DECODE_RULES.register("offloaded_activations")
def offloaded_activations(x: ShareStep) -> Cost:
    """Hybrid: the hidden state crosses the link both ways at every layer whose experts sit in
    CPU RAM (ggml's backend copy, f32)."""
    p = x.inputs.placement
    if x.share.location != CPU or not p.offloaded_expert_layers:
        return ZERO
    crossings = p.offloaded_expert_layers * LINK_DIRECTIONS
    return Cost(
        link_bytes=float(crossings * p.parts.hidden_size * ACTIVATION_BYTES * x.inputs.batch)
    )


@DECODE_RULES.register("layer_split_boundary")
def layer_split_boundary(x: ShareStep) -> Cost:
    """A layer split between the CPU and the GPU (placement.split_layers): each token's hidden
    state crosses the link once, from the CPU's last layer to the GPU's first (f32, ggml's
    backend copy)."""
    p = x.inputs.placement
    if x.share.location != CPU or not p.cpu_layers:
        return ZERO
    return Cost(link_bytes=float(p.parts.hidden_size * ACTIVATION_BYTES * x.inputs.batch))


def attention_crossing_bytes(model: ModelShape) -> int:
    """What crosses the CPU–GPU link per layer per token when the CPU attends over a KV cache
    in host RAM (llama.cpp -nkvo): the query and the new token's cache entry (its keys and
    values) to the CPU, the attention's output back, in f32 as ggml's backend copies them."""
    attention = model.attention
    return ACTIVATION_BYTES * (2 * attention.score_width + attention.cache_width)


@DECODE_RULES.register("attention_crossings")
def attention_crossings(x: ShareStep) -> Cost:
    """KV cache in host RAM: each layer's query and new cache entry cross to the CPU and the
    attention's output crosses back, for every sequence of the batch."""
    inputs = x.inputs
    if x.share.location != CPU or not inputs.placement.attends_on_cpu:
        return ZERO
    layers = inputs.placement.parts.num_layers
    per_token = attention_crossing_bytes(inputs.model)
    return Cost(link_bytes=float(layers * per_token * inputs.batch))


@dataclass(frozen=True, slots=True, kw_only=True)
class DecodeWork:
    """One decode step's counts, before any device: what `DECODE_RULES` add up for each share
    of the placement, by location. The same on every machine, so a batch of machines counts
    it once."""

    batch: int
    costs: tuple[tuple[str, Cost], ...]


def decode_work(inputs: DecodeInputs) -> DecodeWork:
    shares = inputs.placement.shares
    costs = tuple(
        (s.location, DECODE_RULES.total(ShareStep(share=s, inputs=inputs))) for s in shares
    )
    return DecodeWork(batch=inputs.batch, costs=costs)


def location_step(location: str, cost: Cost, device: Device) -> LocationStep:
    memory_s, compute_s = memory_and_compute_s(cost, device)
    return LocationStep(
        location=location,
        weight_bytes=cost.weight_bytes,
        kv_bytes=cost.kv_bytes,
        flops=cost.all_flops,
        memory_s=memory_s,
        compute_s=compute_s,
        overhead_s=device.device_class.overhead_s(cost.layer_visits, cost.moe_layer_visits),
        link_bytes=cost.link_bytes,
    )


def decode_time(work: DecodeWork, devices: dict[str, Device], link_gbps: float) -> DecodeStep:
    """The counted step on these devices and this CPU–GPU link."""
    steps = tuple(location_step(where, cost, devices[where]) for where, cost in work.costs)
    link_bytes = float(sum(step.link_bytes for step in steps))
    link_s = link_seconds(link_bytes, link_gbps)
    return DecodeStep(batch=work.batch, locations=steps, link_bytes=link_bytes, link_s=link_s)


def decode_step(inputs: DecodeInputs, devices: dict[str, Device], link_gbps: float) -> DecodeStep:
    """One decode step of `inputs.batch` sequences at `inputs.context` cached tokens each."""
    return decode_time(decode_work(inputs), devices, link_gbps)

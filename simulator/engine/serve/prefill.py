"""Prefill: a prompt of `prompt_tokens` appended after `depth` tokens already in the KV cache,
bounded by arithmetic.

FLOPs: 2 per active weight per token (the LM head only for the last token) plus causal
attention, 2·nh·(d_qk + d_v) per query–key pair over P·D + P(P+1)/2 pairs per layer at depth D
(a sliding layer's queries see at most its window). The prompt runs in micro-batches of
`ubatch` tokens, each reading the weights and the cache so far once, so time is
max(FLOPs / FLOPS, micro-batches × (weight + cache bytes) / bandwidth) on the computing
device, plus a fixed cost per layer per micro-batch. Hybrid computes on the GPU: llama.cpp
copies each CPU-resident expert tensor over the link for every micro-batch of ≥ 32 tokens
(GGML_OP_OFFLOAD_MIN_BATCH), so those bytes cross the link once per micro-batch.

Each term is a rule of `PREFILL_RULES` (costs.py); `prefill_work` counts, `prefill_time` turns
the counts into seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from simulator.engine.costs import ZERO, Cost, CostRules
from simulator.engine.model.config import ModelShape
from simulator.engine.model.layers import (
    delta_rule_prefill_flops_per_token,
    indexer_flops_per_position,
    score_flops_per_token_per_position,
)
from simulator.engine.serve.decode import (
    FLOPS_PER_MAC,
    attention_crossing_bytes,
)
from simulator.engine.serve.hardware import CPU, Device, link_seconds, memory_and_compute_s
from simulator.engine.serve.placement import HOME, HYBRID, Placement, Share
from simulator.engine.serve.workload import DEFAULT_UBATCH


@dataclass(frozen=True, slots=True, kw_only=True)
class PrefillRun:
    tokens: int
    flops: float
    compute_s: float
    weight_read_s: float
    overhead_s: float
    link_bytes: float
    link_s: float
    allreduce_s: float = 0.0  # tensor parallelism's all-reduces between the GPUs
    # The layer split's pipeline: the prompt's GPU time on G GPUs over its time at one GPU's
    # pace (layer_split_pipeline_factor); 1 on one GPU.
    pipeline_factor: float = 1.0
    network_s: float = 0.0  # the boundaries between machines (network.py)
    # the KV cache in host RAM: the CPU's attention (its FLOPs, cache reads and per-layer
    # cost), between the GPU's kernels of each layer
    cpu_attention_s: float = 0.0

    @property
    def time_s(self) -> float:
        return (
            (max(self.compute_s, self.weight_read_s) + self.overhead_s) * self.pipeline_factor
            + self.link_s
            + self.allreduce_s
            + self.network_s
            + self.cpu_attention_s
        )

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.time_s


# llama.cpp's pipeline parallelism (ggml-org/llama.cpp PR #6017, default since March 2024):
# with layers split over G GPUs, a batch of n_batch prompt tokens is cut into micro-batches of
# n_ubatch that flow through the GPUs one after another, at most GGML_SCHED_MAX_COPIES in
# flight, so the GPUs work on different micro-batches at once.
LLAMA_CPP_N_BATCH = 2048  # llama.cpp's default logical batch (common.h, n_batch)
SCHED_MAX_COPIES = 4  # ggml-backend's GGML_SCHED_MAX_COPIES default


def layer_split_pipeline_factor(tokens: int, ubatch: int, gpus: int) -> float:
    """The prompt's time on `gpus` pipelined stages over its time at one GPU's pace. m
    micro-batches of one batch take m + G − 1 stage times (a stage is 1/G of the layers);
    with fewer copies in flight than stages, at least m·G/copies. One micro-batch (a prompt
    no longer than n_ubatch) gains nothing: the factor is 1."""
    if gpus <= 1:
        return 1.0
    micro_batches = math.ceil(min(tokens, LLAMA_CPP_N_BATCH) / ubatch)
    stage_times = max(micro_batches + gpus - 1, micro_batches * gpus / min(SCHED_MAX_COPIES, gpus))
    return stage_times / (micro_batches * gpus)


@dataclass(frozen=True, slots=True, kw_only=True)
class PrefillInputs:
    """What a prefill rule sees. `experts_compute_on_cpu`: hybrid runtimes that run the
    offloaded experts' GEMMs on the CPU (KTransformers) instead of copying them to the GPU
    (llama.cpp)."""

    placement: Placement
    model: ModelShape
    tokens: int
    micro_batches: int
    experts_compute_on_cpu: bool
    depth: int = 0  # tokens already in the cache
    kv_bytes_per_token: float = 0.0
    ubatch: int = 0  # tokens per micro-batch (0: the whole prompt at once)
    sequences: int = 1  # prompts computed together, each of `tokens`
    # Sparse attention kernels run a sparse-attention indexer's choice (decode.DecodeInputs).
    sparse_attention: bool = False

    @property
    def offloaded(self) -> Share | None:
        """The CPU share of a hybrid placement (its routed experts), if any."""
        return self.placement.share(CPU) if self.placement.name == HYBRID else None

    @property
    def experts_stay_on_cpu(self) -> bool:
        return self.offloaded is not None and self.experts_compute_on_cpu


# The work of a whole prompt on the device that computes it (the placement's home), rule by
# rule; `CPU_PREFILL_RULES`: what the CPU computes itself.
PREFILL_RULES: CostRules[PrefillInputs] = CostRules("prefill")
CPU_PREFILL_RULES: CostRules[PrefillInputs] = CostRules("prefill on the CPU")


@PREFILL_RULES.register("weight_gemms")
def weight_gemms(x: PrefillInputs) -> Cost:
    """2 FLOPs per active weight per prompt token (routed experts: k per token), those of
    experts computed on the CPU aside."""
    parts = x.placement.parts
    per_token = (
        parts.attention + parts.dense + parts.moe_layers * (parts.experts_per_token * parts.expert)
    )
    if x.experts_stay_on_cpu:
        per_token -= x.placement.offloaded_expert_layers * parts.experts_per_token * parts.expert
    return Cost(flops=float(FLOPS_PER_MAC * per_token * x.tokens))


def rows_per_expert(tokens: int, ubatch: int, experts: int, experts_per_token: int) -> float:
    """m: the mean number of token rows each routed expert's GEMM gets in one micro-batch,
    min(P, ubatch)·k/E (each token picks k of E experts)."""
    per_micro_batch = min(tokens, ubatch) if ubatch else tokens
    return per_micro_batch * experts_per_token / experts


@PREFILL_RULES.register("expert_gemm_underfill")
def expert_gemm_underfill(x: PrefillInputs) -> Cost:
    """A routed expert's GEMM gets only m rows per micro-batch (rows_per_expert), and a GPU
    GEMM tile wants far more (CUTLASS and llama.cpp's MMQ tile 64–128 rows, Metal's
    simdgroup kernels 32): with few rows the tensor cores idle on padding and each expert's
    weights are re-read per tile. The GEMM then runs at m/(m + m½) of the dense efficiency,
    i.e. its FLOPs cost as (1 + m½/m) times as many: this rule counts the expert FLOPs over
    m, which the device multiplies by its runtime's m½ (`DeviceClass.expert_gemm_half_rows`,
    fitted per runtime and device class: the tile is the kernel's; docs/model.md,
    "Prefill"). CPUs, which compute a row at a time, pay none."""
    parts = x.placement.parts
    if not parts.num_experts or HOME[x.placement.name] == CPU:
        return ZERO
    layers = parts.moe_layers
    if x.experts_stay_on_cpu:
        layers -= x.placement.offloaded_expert_layers
    m = rows_per_expert(x.tokens, x.ubatch, parts.num_experts, parts.experts_per_token)
    expert_flops = FLOPS_PER_MAC * layers * parts.experts_per_token * parts.expert * x.tokens
    return Cost(underfill_flops=float(expert_flops / m))


# llama.cpp computes a batch of at most this many rows with its matrix-vector kernels
# (ggml-cuda/mmvq.cuh: MMVQ_MAX_BATCH_SIZE 8), which stream the weights: no GEMM tile to fill.
MATVEC_MAX_ROWS = 8
# The micro-batch the FLOPS efficiencies are fitted at: llama-bench's pp512 and llama.cpp's
# default n_ubatch (workload.DEFAULT_UBATCH), whose GEMMs already pay that tile's share.
FULL_MICRO_BATCH_ROWS = DEFAULT_UBATCH


def dense_rows(x: PrefillInputs) -> int:
    """m: the token rows of one micro-batch's dense GEMMs, every prompt's tokens together
    up to the micro-batch."""
    rows = x.tokens * x.sequences
    return min(rows, x.ubatch) if x.ubatch else rows


@PREFILL_RULES.register("dense_gemm_underfill")
def dense_gemm_underfill(x: PrefillInputs) -> Cost:
    """The dense GEMMs (attention projections, dense and shared FFN) of a micro-batch of m rows
    fill a GEMM tile as the routed experts' do (`expert_gemm_underfill`, same m½ of the
    device's runtime): they run at m/(m + m½) of the GEMMs' peak. The FLOPS efficiency is
    fitted on 512-row micro-batches, which already pay m½/512, so a shorter one costs
    m½·(1/m − 1/512) times its dense FLOPs more: this rule counts the dense FLOPs times
    (1/m − 1/512), which the device multiplies by m½ (docs/model.md, "Prefill"). None on
    CPUs (a row at a time), at m ≤ MATVEC_MAX_ROWS (matrix-vector kernels, bound by the
    weights' reads) or at m ≥ 512."""
    m = dense_rows(x)
    if HOME[x.placement.name] == CPU or m <= MATVEC_MAX_ROWS or m >= FULL_MICRO_BATCH_ROWS:
        return ZERO
    parts = x.placement.parts
    dense_flops = FLOPS_PER_MAC * (parts.attention + parts.dense) * x.tokens
    return Cost(underfill_flops=float(dense_flops * (1 / m - 1 / FULL_MICRO_BATCH_ROWS)))


@PREFILL_RULES.register("lm_head")
def lm_head(x: PrefillInputs) -> Cost:
    """The LM head runs for the last prompt token only."""
    return Cost(flops=float(FLOPS_PER_MAC * x.placement.parts.output))


def _attention_pairs_cost(x: PrefillInputs) -> Cost:
    model = x.model
    attended = model.attention_pairs(x.depth, x.tokens, sparse=x.sparse_attention)
    per_pair = score_flops_per_token_per_position(model.attention)
    indexer = indexer_flops_per_position(model.attention)
    flops = x.placement.parts.num_layers * per_pair * attended + indexer * model.indexer_pairs(
        x.depth, x.tokens
    )
    return Cost(attention_flops=flops)


def _cpu_share(x: PrefillInputs) -> float:
    """The share of the layers whose attention the CPU computes (Placement.cpu_attention_layers)."""
    return x.placement.cpu_attention_layers / x.placement.parts.num_layers


def _on_gpu(x: PrefillInputs, cost: Cost) -> Cost:
    share = 1.0 - _cpu_share(x)
    return cost if share == 1.0 else cost * share


def _on_cpu(x: PrefillInputs, cost: Cost) -> Cost:
    share = _cpu_share(x)
    return ZERO if not share else cost * share


def _cache_reads_cost(x: PrefillInputs) -> Cost:
    if not x.kv_bytes_per_token:
        return ZERO
    mean_positions = x.model.attended_positions(x.depth + x.tokens / 2)
    return Cost(kv_bytes=x.micro_batches * x.kv_bytes_per_token * mean_positions)


@PREFILL_RULES.register("causal_attention")
def causal_attention(x: PrefillInputs) -> Cost:
    """QKᵀ and score·V over the query–key pairs of a causal prompt after `depth` cached tokens,
    P·D + P(P+1)/2 per full-attention layer (model.attended_pairs), every layer; with a
    sparse-attention indexer, its scores over all those pairs and, where sparse kernels run
    its choice, the attention over at most its top-k keys per query (model.attention_pairs).
    Over a KV cache in host RAM the CPU computes it (`CPU_ATTENTION_RULES`): every layer's
    under -nkvo, its own layers' under a layer split."""
    return _on_gpu(x, _attention_pairs_cost(x))


@PREFILL_RULES.register("delta_rule")
def delta_rule(x: PrefillInputs) -> Cost:
    """Linear-attention layers run the chunked gated delta rule over the prompt: a fixed
    count of FLOPs per token whatever the depth (delta_rule_prefill_flops_per_token), in
    attention-like kernels; the state they carry between chunks is a few MB a layer, left
    out of the bytes."""
    lin = x.model.linear_attention
    if lin is None:
        return ZERO
    per_token = delta_rule_prefill_flops_per_token(lin)
    return Cost(attention_flops=x.model.linear_layers * x.tokens * per_token)


@PREFILL_RULES.register("cache_reads")
def cache_reads(x: PrefillInputs) -> Cost:
    """Each micro-batch's attention reads the cache written before it once: on average the
    depth and half the prompt (a sliding layer at most its window); from host RAM, by the
    CPU, for the layers whose cache lives there (`CPU_ATTENTION_RULES`)."""
    return _on_gpu(x, _cache_reads_cost(x))


@PREFILL_RULES.register("weight_reads")
def weight_reads(x: PrefillInputs) -> Cost:
    """Each micro-batch reads every weight the computing device uses once."""
    stored = sum(share.stored_bytes for share in x.placement.shares)
    if x.experts_stay_on_cpu:
        assert x.offloaded is not None
        stored -= x.offloaded.stored_bytes
    return Cost(weight_bytes=x.micro_batches * stored)


@PREFILL_RULES.register("layer_overhead")
def layer_overhead(x: PrefillInputs) -> Cost:
    """A fixed cost per layer per micro-batch, and per routed-expert layer its extra kernels
    (decode.py, "layer_overhead")."""
    parts = x.placement.parts
    return Cost(
        layer_visits=float(x.micro_batches * parts.num_layers),
        moe_layer_visits=float(x.micro_batches * parts.moe_layers),
    )


@PREFILL_RULES.register("expert_copies")
def expert_copies(x: PrefillInputs) -> Cost:
    """llama.cpp copies each CPU-resident expert tensor to the GPU for every micro-batch of
    ≥ 32 tokens (GGML_OP_OFFLOAD_MIN_BATCH)."""
    if x.offloaded is None or x.experts_compute_on_cpu:
        return ZERO
    return Cost(link_bytes=x.micro_batches * x.offloaded.stored_bytes)


@PREFILL_RULES.register("layer_copies")
def layer_copies(x: PrefillInputs) -> Cost:
    """A layer split (placement.split_layers): llama.cpp computes the CPU's layers' weight
    GEMMs on the GPU for micro-batches of ≥ 32 tokens as it does offloaded experts
    (GGML_OP_OFFLOAD_MIN_BATCH), copying their tensors over the link for every micro-batch;
    the token embedding, a row lookup, stays on the CPU."""
    cpu = x.placement.share(CPU) if x.placement.cpu_layers else None
    if cpu is None:
        return ZERO
    return Cost(link_bytes=x.micro_batches * (cpu.stored_bytes - x.placement.cpu_table_bytes))


@CPU_PREFILL_RULES.register("offloaded_expert_gemms")
def offloaded_expert_gemms(x: PrefillInputs) -> Cost:
    """The routed experts in CPU RAM, computed there (KTransformers)."""
    if not x.experts_stay_on_cpu:
        return ZERO
    parts = x.placement.parts
    per_token = x.placement.offloaded_expert_layers * parts.experts_per_token * parts.expert
    return Cost(flops=float(FLOPS_PER_MAC * per_token * x.tokens))


# The KV cache in host RAM (llama.cpp -nkvo): the prompt's attention on the CPU, between the
# GPU's projections of each layer, so its time adds to the GPU's.
CPU_ATTENTION_RULES: CostRules[PrefillInputs] = CostRules("prefill attention on the CPU")


@CPU_ATTENTION_RULES.register("causal_attention")
def cpu_causal_attention(x: PrefillInputs) -> Cost:
    """The causal attention's FLOPs (as on the GPU) of the CPU's layers, on the CPU."""
    return _on_cpu(x, _attention_pairs_cost(x))


@CPU_ATTENTION_RULES.register("cache_reads")
def cpu_cache_reads(x: PrefillInputs) -> Cost:
    """Each micro-batch's reads of the CPU's layers' cache so far, from host RAM."""
    return _on_cpu(x, _cache_reads_cost(x))


@CPU_ATTENTION_RULES.register("attention_crossings")
def cpu_attention_crossings(x: PrefillInputs) -> Cost:
    """Every prompt token's query and cache entry to the CPU and its output back, each layer
    (decode.attention_crossing_bytes); a CPU graph segment per layer per micro-batch."""
    layers = x.placement.cpu_attention_layers
    if not layers:
        return ZERO
    return Cost(
        link_bytes=float(layers * x.tokens * attention_crossing_bytes(x.model)),
        layer_visits=float(x.micro_batches * layers),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class PrefillWork:
    """A prompt's counts, before any device: on the device that computes it (`home`) and what
    the CPU computes itself. The same on every machine, so a batch of machines counts it once."""

    home: str
    tokens: int
    micro_batches: int  # of `ubatch` tokens each
    cost: Cost
    cpu_cost: Cost
    cpu_attention_cost: Cost = ZERO  # the KV cache in host RAM: the CPU's attention


def prefill_work(
    placement: Placement,
    model: ModelShape,
    *,
    tokens: int,
    ubatch: int,
    experts_compute_on_cpu: bool = False,
    depth: int = 0,
    kv_bytes_per_token: float = 0.0,
    sparse_attention: bool = False,
    sequences: int = 1,
) -> PrefillWork:
    inputs = PrefillInputs(
        placement=placement, model=model, tokens=tokens,
        micro_batches=math.ceil(tokens / ubatch), experts_compute_on_cpu=experts_compute_on_cpu,
        depth=depth, kv_bytes_per_token=kv_bytes_per_token, ubatch=ubatch,
        sparse_attention=sparse_attention, sequences=sequences,
    )  # fmt: skip
    return PrefillWork(
        home=HOME[placement.name],
        tokens=tokens,
        micro_batches=inputs.micro_batches,
        cost=PREFILL_RULES.total(inputs),
        cpu_cost=CPU_PREFILL_RULES.total(inputs),
        cpu_attention_cost=CPU_ATTENTION_RULES.total(inputs),
    )


def prefill_time(work: PrefillWork, devices: dict[str, Device], link_gbps: float) -> PrefillRun:
    """The counted prompt on these devices: the home device's work, then the CPU's own share
    at the CPU class's FLOPS efficiency."""
    cost, home = work.cost, devices[work.home]
    weight_read_s, compute_s = memory_and_compute_s(cost, home)
    if work.cpu_cost.flops:
        compute_s += memory_and_compute_s(work.cpu_cost, devices[CPU])[1]
    attention, cpu_attention_s = work.cpu_attention_cost, 0.0
    if attention != ZERO:
        cpu = devices[CPU]
        cpu_attention_s = sum(memory_and_compute_s(attention, cpu))
        cpu_attention_s += cpu.device_class.overhead_s(attention.layer_visits, 0.0)
    link_bytes = cost.link_bytes + attention.link_bytes
    return PrefillRun(
        tokens=work.tokens,
        flops=cost.all_flops + attention.all_flops,
        compute_s=compute_s,
        weight_read_s=weight_read_s,
        overhead_s=home.device_class.overhead_s(cost.layer_visits, cost.moe_layer_visits),
        link_bytes=link_bytes,
        link_s=link_seconds(link_bytes, link_gbps),
        cpu_attention_s=cpu_attention_s,
    )

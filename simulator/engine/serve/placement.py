"""Where each part of a model lives for inference, in bytes per location.

Placements (seed 003): "gpu" and "cpu" put everything in one place; "unified" puts everything
in unified memory; "hybrid" keeps attention, router, shared experts, dense layers, embeddings
and the KV cache on the GPU and the routed experts in CPU RAM (`-ot exps=CPU`), optionally only
from one layer on (seed 002: `blk.(29|[3-9][0-9]).ffn_*_exps=CPU`). "gpu" with fewer GPU
layers than the model's (`split_layers`, llama.cpp's `-ngl N`) keeps the first layers whole in
host RAM: their weights, their KV cache and their compute are the CPU's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from simulator.engine.errors import EngineInputError
from simulator.engine.formats.weights import WeightScheme
from simulator.engine.model.config import ModelShape
from simulator.engine.model.layers import (
    always_on_mlp_params,
    dense_layer,
    model_attention_params,
    moe_layer,
    one_expert_params,
    router_params,
)
from simulator.engine.serve.hardware import CPU, GPU, UNIFIED

PLACEMENTS = (GPU, "hybrid", CPU, UNIFIED)
HYBRID = "hybrid"
HOME = {GPU: GPU, CPU: CPU, UNIFIED: UNIFIED, HYBRID: GPU}
"""Where everything but offloaded experts (and the KV cache) lives, per placement."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelParts:
    """Parameter counts by part, summed over layers unless named per expert."""

    num_layers: int
    first_moe_layer: int
    moe_layers: int
    num_experts: int
    experts_per_token: int
    hidden_size: int
    attention: int
    dense: int  # dense-layer MLPs, shared experts and routers
    expert: int  # one routed expert
    embeddings: int
    output: int  # the LM head, read every token even when tied to the embeddings
    tied: bool
    dense_layer_mlp: int = 0  # one dense layer's MLP
    moe_always_on: int = 0  # one MoE layer's shared experts and router


def model_parts(model: ModelShape) -> ModelParts:
    moe = moe_layer(model)
    dense_layers = model.num_layers - model.moe_layers
    moe_always_on = always_on_mlp_params(moe) + router_params(moe) if model.is_moe else 0
    table = model.vocab_size * model.hidden_size
    return ModelParts(
        num_layers=model.num_layers,
        first_moe_layer=model.first_dense_layers,
        moe_layers=model.moe_layers,
        num_experts=model.num_experts,
        experts_per_token=model.experts_per_token,
        hidden_size=model.hidden_size,
        attention=model_attention_params(model),
        dense=dense_layers * always_on_mlp_params(dense_layer(model))
        + model.moe_layers * moe_always_on,
        expert=one_expert_params(moe) if model.is_moe else 0,
        embeddings=table,
        output=table,
        tied=model.tie_word_embeddings,
        dense_layer_mlp=always_on_mlp_params(dense_layer(model)) if dense_layers else 0,
        moe_always_on=moe_always_on,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Share:
    """What one location holds and reads per decode step (before the routed experts)."""

    location: str
    stored_bytes: float
    dense_read_bytes: float  # attention, dense/shared MLPs, router, LM head, one embedding row
    dense_params: float  # multiply-adds per token of those
    expert_layers: int  # MoE layers whose routed experts live here
    layers: int  # layers this location runs per token


@dataclass(frozen=True, slots=True, kw_only=True)
class Placement:
    name: str
    shares: tuple[Share, ...]
    kv_location: str
    offloaded_expert_layers: int  # MoE layers whose experts sit across the CPU–GPU link
    expert_bytes: float  # one routed expert
    parts: ModelParts
    # Whole layers in host RAM (`split_layers`): the first `cpu_layers`, their KV cache too,
    # and the token embedding (`cpu_table_bytes`), which the CPU looks rows up in.
    cpu_layers: int = 0
    cpu_table_bytes: float = 0.0

    def share(self, location: str) -> Share | None:
        return next((s for s in self.shares if s.location == location), None)

    def kv_share(self, location: str) -> float:
        """The share of the KV cache (and of a linear-attention state) held, read and attended
        over at `location`: under a layer split the CPU's layers' share, by count; else all of
        it where the placement keeps it."""
        in_ram = self.cpu_layers / self.parts.num_layers  # 0 without a layer split
        if location == CPU and in_ram:
            return in_ram
        return 1.0 - in_ram if location == self.kv_location else 0.0

    @property
    def attends_on_cpu(self) -> bool:
        """The KV cache in host RAM with the weights on a GPU (`kv_in_host_ram`, -nkvo): the
        CPU runs every layer's attention."""
        return self.kv_location == CPU and HOME[self.name] == GPU

    @property
    def cpu_attention_layers(self) -> int:
        """Layers whose attention the CPU computes over a KV cache in host RAM, the weights'
        home being a GPU: every layer under -nkvo, the CPU's layers under a layer split."""
        return self.parts.num_layers if self.attends_on_cpu else self.cpu_layers


def _home_share(parts: ModelParts, scheme: WeightScheme, location: str, experts: int) -> Share:
    """Everything but the routed experts of MoE layers at or after the offload layer."""
    bpw = scheme.bytes_per_weight
    output = parts.output * bpw("output")
    table = parts.embeddings * bpw("embeddings")
    always = parts.attention * bpw("attention") + parts.dense * bpw("dense")
    expert_bytes = parts.expert * bpw("experts")
    return Share(
        location=location,
        stored_bytes=always
        + table
        + (0.0 if parts.tied else output)
        + experts * parts.num_experts * expert_bytes,
        dense_read_bytes=always + output + parts.hidden_size * bpw("embeddings"),
        dense_params=parts.attention + parts.dense + parts.output,
        expert_layers=experts,
        layers=parts.num_layers,
    )


def _offload_from(parts: ModelParts, offload_from_layer: int | None) -> int:
    first = parts.first_moe_layer if offload_from_layer is None else offload_from_layer
    if parts.moe_layers == 0:
        raise EngineInputError(
            field="workload.placement", message="hybrid offloads routed experts: needs a MoE model"
        )
    if not parts.first_moe_layer <= first <= parts.num_layers:
        raise EngineInputError(
            field="workload.offload_from_layer",
            message=f"must be between {parts.first_moe_layer} and {parts.num_layers}",
        )
    return first


def place(
    parts: ModelParts,
    scheme: WeightScheme,
    name: str,
    *,
    offload_from_layer: int | None = None,
    kv_cache_on_cpu: bool = False,
    gpu_layers: int | None = None,
) -> Placement:
    """The bytes each location holds under placement `name` (one of `PLACEMENTS`);
    `kv_cache_on_cpu` moves the KV cache to host RAM (`kv_in_host_ram`); `gpu_layers` keeps
    only the last layers on the GPU (`split_layers`)."""
    placement = _place(parts, scheme, name, offload_from_layer=offload_from_layer)
    if gpu_layers is not None:
        if kv_cache_on_cpu:
            raise EngineInputError(
                field="workload.gpu_layers",
                message="keeps each layer's KV cache beside it: not with workload.kv_cache_on_cpu",
            )
        placement = split_layers(placement, scheme, gpu_layers)
    return kv_in_host_ram(placement) if kv_cache_on_cpu else placement


def kv_in_host_ram(placement: Placement) -> Placement:
    """llama.cpp's --no-kv-offload (-nkvo): the KV cache lives in host RAM and the attention
    over it (QKᵀ, softmax, score·V) runs on the CPU, every layer; the weights stay where the
    placement put them. The CPU's share runs a segment of each layer, so it visits every
    layer."""
    if HOME[placement.name] != GPU:
        raise EngineInputError(
            field="workload.kv_cache_on_cpu",
            message=f"keeps the weights on a GPU: placement 'gpu' or 'hybrid', not "
            f"{placement.name!r}",
        )
    parts = placement.parts
    cpu = placement.share(CPU) or Share(
        location=CPU,
        stored_bytes=0.0,
        dense_read_bytes=0.0,
        dense_params=0.0,
        expert_layers=0,
        layers=0,
    )
    cpu = replace(cpu, layers=parts.num_layers)
    gpu = tuple(share for share in placement.shares if share.location != CPU)
    return replace(placement, shares=(*gpu, cpu), kv_location=CPU)


def split_layers(placement: Placement, scheme: WeightScheme, gpu_layers: int) -> Placement:
    """llama.cpp's `-ngl`: the last `gpu_layers` layers and the LM head on the GPU, the first
    L − `gpu_layers` (with the token embedding, which llama.cpp keeps in host RAM) on the CPU,
    each layer's KV cache beside it. Each layer's attention weights are the model's over its
    layers (a linear-attention model's in proportion); the dense MLPs are the first layers'."""
    parts = placement.parts
    cpu_layers = parts.num_layers - gpu_layers
    if placement.name != GPU or placement.kv_location != GPU:
        raise EngineInputError(
            field="workload.gpu_layers",
            message="splits whole layers between the GPU and the CPU: placement 'gpu', with "
            "the KV cache beside its layers (not workload.kv_cache_on_cpu)",
        )
    if not 1 <= gpu_layers <= parts.num_layers:
        raise EngineInputError(
            field="workload.gpu_layers",
            message=f"must be between 1 and the model's {parts.num_layers} layers",
        )
    if cpu_layers == 0:
        return placement
    bpw = scheme.bytes_per_weight
    # a dense model's layers are all dense; a MoE model's first `first_moe_layer` are
    dense_layers = min(cpu_layers, parts.first_moe_layer) if parts.moe_layers else cpu_layers
    moe_layers = cpu_layers - dense_layers
    attention = parts.attention * cpu_layers / parts.num_layers
    dense = dense_layers * parts.dense_layer_mlp + moe_layers * parts.moe_always_on
    always = attention * bpw("attention") + dense * bpw("dense")
    table = parts.embeddings * bpw("embeddings")
    experts = moe_layers * parts.num_experts * parts.expert * bpw("experts")
    row = parts.hidden_size * bpw("embeddings")
    cpu = Share(
        location=CPU,
        stored_bytes=always + table + experts,
        dense_read_bytes=always + row,
        dense_params=attention + dense,
        expert_layers=moe_layers,
        layers=cpu_layers,
    )
    home = placement.shares[0]
    # a tied embedding stays on the GPU as the LM head too (llama.cpp duplicates the tensor)
    moved = always + experts + (0.0 if parts.tied else table)
    gpu = replace(
        home,
        stored_bytes=home.stored_bytes - moved,
        dense_read_bytes=home.dense_read_bytes - cpu.dense_read_bytes,
        dense_params=home.dense_params - cpu.dense_params,
        expert_layers=home.expert_layers - moe_layers,
        layers=gpu_layers,
    )
    return replace(placement, shares=(gpu, cpu), cpu_layers=cpu_layers, cpu_table_bytes=table)


def _place(
    parts: ModelParts, scheme: WeightScheme, name: str, *, offload_from_layer: int | None = None
) -> Placement:
    expert_bytes = parts.expert * scheme.bytes_per_weight("experts")
    if name != HYBRID:
        home = _home_share(parts, scheme, HOME[name], parts.moe_layers)
        return Placement(
            name=name,
            shares=(home,),
            kv_location=HOME[name],
            offloaded_expert_layers=0,
            expert_bytes=expert_bytes,
            parts=parts,
        )
    offloaded = parts.num_layers - _offload_from(parts, offload_from_layer)
    experts_cpu = Share(
        location=CPU,
        stored_bytes=offloaded * parts.num_experts * expert_bytes,
        dense_read_bytes=0.0,
        dense_params=0.0,
        expert_layers=offloaded,
        layers=offloaded,
    )
    return Placement(
        name=name,
        shares=(_home_share(parts, scheme, GPU, parts.moe_layers - offloaded), experts_cpu),
        kv_location=GPU,
        offloaded_expert_layers=offloaded,
        expert_bytes=expert_bytes,
        parts=parts,
    )

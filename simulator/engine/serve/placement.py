"""Where each part of a model lives for inference, in bytes per location.

Placements (seed 003): "gpu" and "cpu" put everything in one place; "unified" puts everything
in unified memory; "hybrid" keeps attention, router, shared experts, dense layers, embeddings
and the KV cache on the GPU and the routed experts in CPU RAM (`-ot exps=CPU`), optionally only
from one layer on (seed 002: `blk.(29|[3-9][0-9]).ffn_*_exps=CPU`).
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

    def share(self, location: str) -> Share | None:
        return next((s for s in self.shares if s.location == location), None)


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
) -> Placement:
    """The bytes each location holds under placement `name` (one of `PLACEMENTS`);
    `kv_cache_on_cpu` moves the KV cache to host RAM (`kv_in_host_ram`)."""
    placement = _place(parts, scheme, name, offload_from_layer=offload_from_layer)
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

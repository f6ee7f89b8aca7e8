"""One transformer layer as the cost rules see it, and its parameter counts.

Formulas: reference-model.md §1 (GQA); MLA follows DeepSeek-V2/V3's projections
(q_a/q_b, kv_a_proj_with_mqa, kv_b, o).
"""

from __future__ import annotations

from dataclasses import dataclass

from simulator.engine.model.config import (
    CSA,
    CSA_RATIO,
    HCA_RATIO,
    AttentionShape,
    LinearAttentionShape,
    ModelShape,
)

GATED_MLP_MATRICES = 3  # gate, up and down projections of a SwiGLU MLP


@dataclass(frozen=True, slots=True, kw_only=True)
class LayerShape:
    """`mlp_intermediate_size` is the MLP every token runs (dense MLP or shared experts)."""

    hidden_size: int
    attention: AttentionShape
    mlp_intermediate_size: int
    expert_intermediate_size: int = 0
    num_experts: int = 0
    experts_per_token: int = 0


def reference_layer(model: ModelShape) -> LayerShape:
    """The reference's reading (reference-model.md §1): every layer is the MoE layer, and the
    shared expert is as wide as `intermediate_size` (Is = 12288 for GLM-4.7), as seed 000 reads
    config.json. Dense models are one dense layer repeated."""
    if not model.is_moe:
        return dense_layer(model)
    return LayerShape(
        hidden_size=model.hidden_size,
        attention=model.attention,
        mlp_intermediate_size=model.dense_intermediate_size * model.shared_expert_count,
        expert_intermediate_size=model.expert_intermediate_size,
        num_experts=model.num_experts,
        experts_per_token=model.experts_per_token,
    )


def moe_layer(model: ModelShape) -> LayerShape:
    """A MoE layer as transformers builds it: shared experts are `n_shared_experts` ×
    `moe_intermediate_size` wide (Glm4MoeMoE, DeepseekV3MoE)."""
    return LayerShape(
        hidden_size=model.hidden_size,
        attention=model.attention,
        mlp_intermediate_size=model.shared_expert_intermediate_size,
        expert_intermediate_size=model.expert_intermediate_size,
        num_experts=model.num_experts,
        experts_per_token=model.experts_per_token,
    )


def is_dense_layer(model: ModelShape, index: int) -> bool:
    """Whether layer `index` has a dense MLP: every layer of a dense model, a MoE model's
    first `first_dense_layers`."""
    return not model.is_moe or index < model.first_dense_layers


def dense_layer(model: ModelShape) -> LayerShape:
    return LayerShape(
        hidden_size=model.hidden_size,
        attention=model.attention,
        mlp_intermediate_size=model.dense_intermediate_size,
    )


def attention_params(att: AttentionShape, hidden: int) -> int:
    """GQA: `h·nh·d + 2·h·kv·d + nh·d·h` (§1). MLA: q (optionally through a low-rank
    q_lora), the joint KV latent plus the shared rope key, the KV up-projection and o, and
    the sparse-attention indexer where it has one (`indexer_params`)."""
    if att.kind == "mla":
        q_out = att.num_heads * att.head_dim
        q = hidden * q_out if not att.q_lora_rank else att.q_lora_rank * (hidden + q_out)
        kv_down = hidden * (att.kv_lora_rank + att.qk_rope_head_dim)
        kv_up = att.kv_lora_rank * att.num_heads * (att.qk_nope_head_dim + att.v_head_dim)
        out = att.num_heads * att.v_head_dim * hidden
        return q + kv_down + kv_up + out + indexer_params(att, hidden)
    if att.kind == CSA:
        return compressed_attention_params(att, hidden)
    q_width = att.num_heads * att.head_dim
    q_out = 2 * q_width if att.output_gate else q_width  # gated attention: query and gate
    kv_projections = 1 if att.shared_kv_projection else 2  # keys as values: no v_proj
    return (
        hidden * q_out
        + kv_projections * hidden * att.num_kv_heads * att.head_dim
        + (q_width * hidden)
    )


def compressed_attention_params(att: AttentionShape, hidden: int) -> int:
    """DeepSeek V4's attention in every layer (its reference inference/model.py, class
    Attention, as the ports quoted in docs/model.md transcribe it): `wq_a` h × q_lora and its
    norm, `wq_b` q_lora × heads·d, `wkv` h × d (one KV head) and its norm, the grouped output
    projection `wo_a` (heads·d / g) × g·o_lora and `wo_b` g·o_lora × h, and one attention
    sink per head."""
    heads_width = att.num_heads * att.head_dim
    q = hidden * att.q_lora_rank + att.q_lora_rank + att.q_lora_rank * heads_width
    kv = hidden * att.head_dim + att.head_dim
    out = (heads_width // att.o_groups) * att.o_groups * att.o_lora_rank
    out += att.o_groups * att.o_lora_rank * hidden
    return q + kv + out + att.num_heads


def compressor_params(hidden: int, width: int, ratio: int) -> int:
    """One compressor (class Compressor): `wkv` and `wgate` h × c·w, a learned position
    embedding `ape` ratio × c·w and a norm w, c = 2 where consecutive groups overlap (ratio
    CSA_RATIO) and 1 otherwise."""
    coff = 2 if ratio == CSA_RATIO else 1
    return 2 * hidden * coff * width + ratio * coff * width + width


def compressed_layers_params(model: ModelShape) -> int:
    """What DeepSeek V4's compressed layers add to their attention: each CSA layer a
    compressor of its KV (`head_dim` wide) and an indexer (`wq_b` q_lora × heads·d_I,
    `weights_proj` h × heads and a compressor of its keys, d_I wide); each HCA layer a
    compressor of its KV."""
    att, hidden = model.attention, model.hidden_size
    indexer = att.q_lora_rank * att.index_heads * att.index_head_dim + hidden * att.index_heads
    indexer += compressor_params(hidden, att.index_head_dim, CSA_RATIO)
    csa = compressor_params(hidden, att.head_dim, CSA_RATIO) + indexer
    hca = compressor_params(hidden, att.head_dim, HCA_RATIO)
    return model.csa_layers * csa + model.hca_layers * hca


HC_SCALES = 3  # hc_scale: the pre, post and combination mixes' scales


def hyper_connection_params(model: ModelShape) -> int:
    """Hyper-connections (hc_mult copies of the residual stream, DeepSeek V4's class Block):
    before the attention and before the MoE, `hc_fn` mix × hc·h, `hc_base` mix and
    `hc_scale` 3, mix = (2 + hc)·hc; after the last layer `hc_head_fn` hc × hc·h, its base hc
    and scale 1."""
    hc = model.hc_mult
    if not hc:
        return 0
    mix, width = (2 + hc) * hc, hc * model.hidden_size
    per_layer = 2 * (mix * width + mix + HC_SCALES)
    return model.num_layers * per_layer + hc * width + hc + 1


def indexer_params(att: AttentionShape, hidden: int) -> int:
    """DeepSeek sparse attention's lightning indexer (DeepSeek-V3.2-Exp's inference/model.py,
    class Indexer): its queries from the q latent `wq_b` (q_lora_rank × heads·d_I, the hidden
    size where q has no latent), one key `wk` (h × d_I) with its LayerNorm (2·d_I), and the
    per-head weights `weights_proj` (h × heads). 0 without an indexer."""
    if not att.index_topk:
        return 0
    query_in = att.q_lora_rank or hidden
    heads, dim = att.index_heads, att.index_head_dim
    return query_in * heads * dim + hidden * dim + 2 * dim + hidden * heads


def indexer_flops_per_position(att: AttentionShape) -> int:
    """The indexer's scores per query token per cached position: each of its heads takes a
    d_I-wide dot product with the position's key, 2·heads·d_I FLOPs (the ReLU and the
    weighted sum over heads are a few more per head). 0 without an indexer."""
    return 2 * att.index_heads * att.index_head_dim


def linear_attention_params(lin: LinearAttentionShape, hidden: int) -> int:
    """A Gated DeltaNet layer (transformers' Qwen3_5GatedDeltaNet / Qwen3NextGatedDeltaNet):
    the q, k, v and output-gate z projections `h·(2·nk·dk + 2·nv·dv)`, the per-head β and
    decay inputs `h·2·nv`, the depthwise convolution over q, k, v (channels × kernel), the
    output projection `nv·dv·h`, and the per-head decay parameters and the gated norm."""
    qk = 2 * lin.num_key_heads * lin.key_head_dim
    vz = 2 * lin.num_value_heads * lin.value_head_dim
    projections = hidden * (qk + vz + 2 * lin.num_value_heads)
    conv = lin.conv_channels * lin.conv_kernel
    out = lin.num_value_heads * lin.value_head_dim * hidden
    return projections + conv + out + 2 * lin.num_value_heads + lin.value_head_dim


def model_attention_params(model: ModelShape) -> int:
    """Attention parameters summed over the layers: softmax-attention layers at
    `attention_params` (full-attention layers of their own shape at theirs), Gated DeltaNet
    layers at `linear_attention_params`."""
    own_shape = 0 if model.full_attention is None else model.full_layers
    softmax = (model.num_layers - model.linear_layers - own_shape) * attention_params(
        model.attention, model.hidden_size
    )
    if model.full_attention is not None:
        softmax += own_shape * attention_params(model.full_attention, model.hidden_size)
    # layers that share an earlier layer's indexer choice have no indexer weights
    softmax -= model.shared_indexer_layers * indexer_params(model.attention, model.hidden_size)
    # DeepSeek V4: its compressors and indexers, and the hyper-connections' mixing weights
    softmax += compressed_layers_params(model) + hyper_connection_params(model)
    if model.linear_attention is None:
        return softmax
    return softmax + model.linear_layers * linear_attention_params(
        model.linear_attention, model.hidden_size
    )


def qkv_width(att: AttentionShape) -> int:
    """Per-token width of the q, k and v tensors kept for backward (§4: nh·d + 2·kv·d)."""
    if att.kind == "mla":
        return att.num_heads * (2 * att.head_dim + att.v_head_dim)
    return att.num_heads * att.head_dim + 2 * att.num_kv_heads * att.head_dim


def score_flops_per_token_per_position(att: AttentionShape) -> int:
    """QKᵀ and score·V per query token per key position: 2·nh·d_qk + 2·nh·d_v (§5: 4·nh·d)."""
    v_dim = att.v_head_dim if att.kind == "mla" else att.head_dim
    return 2 * att.num_heads * (att.head_dim + v_dim)


# Tokens per chunk of the chunked gated delta rule (flash-linear-attention's
# chunk_gated_delta_rule, BT = 64; the kernels vLLM, SGLang and transformers call).
DELTA_RULE_CHUNK = 64


def delta_rule_decode_flops(lin: LinearAttentionShape) -> int:
    """One token's step of the gated delta rule per layer, S ← α·S + β·(v − α·S·k)·kᵀ and
    o = S·q (Gated Delta Networks eq. 10): S·k, the decay, the rank-one update and S·q are
    2 + 1 + 2 + 2 = 7 FLOPs per state element, per value head (q and k are repeated over
    the value heads that share them)."""
    return 7 * lin.num_value_heads * lin.key_head_dim * lin.value_head_dim


def delta_rule_prefill_flops_per_token(lin: LinearAttentionShape) -> float:
    """One prompt token's share of the chunked gated delta rule per layer (Yang et al.,
    "Parallelizing Linear Transformers with the Delta Rule over Sequence Length", §3.2;
    chunk C, key dim dk, value dim dv, per value head). Per chunk: KKᵀ, QKᵀ 2·C²·dk each;
    the triangular solve for T ≈ (2/3)·C³; W = T·K 2·C²·dk, U = T·V 2·C²·dv; W·S, Q·S and
    the state update Kᵀ·(U − W·S) 2·C·dk·dv each; the intra-chunk (QKᵀ)·(U − W·S) 2·C²·dv.
    Divided by C: 6·dk·dv + 6·C·dk + 4·C·dv + (2/3)·C²."""
    c, dk, dv = DELTA_RULE_CHUNK, lin.key_head_dim, lin.value_head_dim
    per_head = 6 * dk * dv + 6 * c * dk + 4 * c * dv + 2 * c * c / 3
    return lin.num_value_heads * per_head


def always_on_mlp_params(layer: LayerShape) -> int:
    return GATED_MLP_MATRICES * layer.hidden_size * layer.mlp_intermediate_size


def one_expert_params(layer: LayerShape) -> int:
    return GATED_MLP_MATRICES * layer.hidden_size * layer.expert_intermediate_size


def router_params(layer: LayerShape) -> int:
    return layer.hidden_size * layer.num_experts


def expert_params(layer: LayerShape) -> int:
    """All routed experts: the part the mixed formats quantize at the expert rate."""
    return layer.num_experts * one_expert_params(layer)


def total_params(layer: LayerShape) -> int:
    return (
        attention_params(layer.attention, layer.hidden_size)
        + always_on_mlp_params(layer)
        + expert_params(layer)
        + router_params(layer)
    )


def active_params(layer: LayerShape) -> int:
    return (
        attention_params(layer.attention, layer.hidden_size)
        + always_on_mlp_params(layer)
        + layer.experts_per_token * one_expert_params(layer)
        + router_params(layer)
    )


def dense_params(layer: LayerShape) -> int:
    """Everything but the routed experts (attention, shared/dense MLP, router)."""
    return total_params(layer) - expert_params(layer)


def embedding_params(model: ModelShape) -> int:
    matrices = 1 if model.tie_word_embeddings else 2
    return matrices * model.vocab_size * model.hidden_size


def model_params(model: ModelShape, *, include_mtp: bool = False) -> int:
    """Total parameters with transformers' layer widths (refined reading), embeddings included.
    `include_mtp` adds the multi-token-prediction layers that ship with some checkpoints."""
    moe = model.moe_layers + (model.mtp_layers if include_mtp and model.is_moe else 0)
    dense = model.num_layers - model.moe_layers
    params = dense * total_params(dense_layer(model)) + embedding_params(model)
    # Each layer above counts softmax attention; linear-attention layers have their own.
    layer_attention = model.num_layers * attention_params(model.attention, model.hidden_size)
    params += model_attention_params(model) - layer_attention
    return params + (moe * total_params(moe_layer(model)) if moe else 0)


def reference_model_params(model: ModelShape) -> int:
    """The reference's total: N identical reference layers, no embeddings (seed: 377 B)."""
    return model.num_layers * total_params(reference_layer(model))

"""Llama 4: chunked attention in its RoPE layers, MoE layers interleaved with dense ones, a
shared expert beside the routed one (docs/model.md, "Chunked attention")."""

import pytest

from simulator.engine.errors import EngineInputError
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.model.config import parse_model_config
from simulator.engine.model.layers import model_params, score_flops_per_token_per_position
from simulator.engine.model.registry import load_model
from simulator.engine.serve.kv_cache import kv_bytes_per_token, max_context
from simulator.engine.serve.placement import model_parts, place
from simulator.engine.serve.prefill import PREFILL_RULES, PrefillInputs

SCOUT = load_model("llama-4-scout")
MAVERICK = load_model("llama-4-maverick")
CHUNK = 8192
HIDDEN, EXPERT, MLP = 5120, 8192, 16384
ATTENTION = HIDDEN * 40 * 128 * 2 + 2 * HIDDEN * 8 * 128  # q, o; k, v
FFN = 3  # gate, up, down


def test_three_of_four_layers_attend_within_chunks_of_8192() -> None:
    """no_rope_layers [1, 1, 1, 0] × 12: the 36 RoPE layers are chunked, 12 attend fully."""
    for model in (SCOUT, MAVERICK):
        assert (model.chunked_layers, model.attention_chunk, model.full_layers) == (36, CHUNK, 12)


def test_scout_is_all_moe_and_maverick_alternates_with_dense_layers() -> None:
    assert (SCOUT.num_experts, SCOUT.experts_per_token, SCOUT.moe_layers) == (16, 1, 48)
    assert (MAVERICK.num_experts, MAVERICK.moe_layers, MAVERICK.first_dense_layers) == (128, 24, 24)
    assert MAVERICK.dense_intermediate_size == MLP  # intermediate_size_mlp
    for model in (SCOUT, MAVERICK):
        assert (model.shared_expert_count, model.shared_expert_intermediate_size) == (1, EXPERT)


def test_parameter_counts_follow_from_the_shapes_and_match_the_cards() -> None:
    """Scout: 48 layers × (16 routed + 1 shared) experts; Maverick: 24 × 129 experts and 24
    dense MLPs 16,384 wide; both with 48 attention blocks and untied 202,048-token
    embeddings. The cards say 109 B and 400 B (Scout's with its vision encoder)."""
    embeddings = 2 * 202_048 * HIDDEN
    norms = 48 * 2 * HIDDEN + HIDDEN
    expert = FFN * HIDDEN * EXPERT
    scout = 48 * (ATTENTION + 17 * expert) + embeddings + 48 * 16 * HIDDEN  # + routers
    maverick = 48 * ATTENTION + 24 * (129 * expert + 128 * HIDDEN) + 24 * FFN * HIDDEN * MLP
    maverick += embeddings
    assert model_params(SCOUT) == pytest.approx(scout + norms, rel=1e-4)
    assert model_params(MAVERICK) == pytest.approx(maverick + norms, rel=1e-4)
    assert model_params(SCOUT) / 1e9 == pytest.approx(109, rel=0.02)
    assert model_params(MAVERICK) / 1e9 == pytest.approx(400, rel=0.01)


def _attention_flops(model, *, tokens, depth):
    placement = place(model_parts(model), weight_scheme("Q4_K"), "gpu")
    inputs = PrefillInputs(
        placement=placement, model=model, tokens=tokens, micro_batches=-(-tokens // 512),
        experts_compute_on_cpu=False, depth=depth, kv_bytes_per_token=kv_bytes_per_token(model),
    )  # fmt: skip
    return PREFILL_RULES.breakdown(inputs)["causal_attention"].attention_flops


def test_a_prompt_inside_the_first_chunk_attends_causally_in_every_layer() -> None:
    """Up to 8,192 positions a chunk is the whole context: P(P+1)/2 pairs in all 48 layers."""
    p = 4096
    assert SCOUT.attended_pairs(0, p) == pytest.approx(p * (p + 1) / 2)


def test_a_prompt_past_the_chunk_boundary_sees_only_its_chunk_in_chunked_layers() -> None:
    """pp512 at depth 32,768: positions 32,769 … 33,280 open the fifth chunk, so a chunked
    layer scores 1 + … + 512 pairs while a full layer scores 512 · 32,768 + 512 · 513 / 2."""
    p, d = 512, 32_768
    full = p * d + p * (p + 1) / 2
    chunked = p * (p + 1) / 2
    assert SCOUT.attended_pairs(d, p) == pytest.approx((12 * full + 36 * chunked) / 48)
    # QKᵀ and score·V, 4 · 40 heads · 128 FLOPs a pair: 3.9× fewer than 48 full layers'
    per_pair = score_flops_per_token_per_position(SCOUT.attention)
    assert per_pair == 4 * 40 * 128
    at_depth = _attention_flops(SCOUT, tokens=p, depth=d)
    assert at_depth == pytest.approx(per_pair * (12 * full + 36 * chunked))
    assert per_pair * 48 * full / at_depth == pytest.approx(3.9, abs=0.05)


def test_a_prompt_spanning_chunks_restarts_the_count_at_each_boundary() -> None:
    """pp8192 at depth 4,096: positions 4,097 … 8,192 see 4,097 … 8,192 keys, positions
    8,193 … 12,288 see 1 … 4,096."""
    p, d = 8192, 4096
    chunked = sum(range(d + 1, CHUNK + 1)) + sum(range(1, p - (CHUNK - d) + 1))
    full = p * d + p * (p + 1) / 2
    assert SCOUT.attended_pairs(d, p) == pytest.approx((12 * full + 36 * chunked) / 48)


def test_the_cache_keeps_at_most_a_chunk_in_chunked_layers() -> None:
    """At 32k the 12 full layers hold 32,768 positions and the 36 chunked ones 8,192; the
    largest context inverts the same sum."""
    per_token = kv_bytes_per_token(SCOUT) / 48  # one layer's bytes per position
    cached = kv_bytes_per_token(SCOUT) * SCOUT.attended_positions(32_768)
    assert cached == pytest.approx(per_token * (12 * 32_768 + 36 * CHUNK))
    assert max_context(cached, kv_bytes_per_token(SCOUT), model=SCOUT) == 32_768
    below = kv_bytes_per_token(SCOUT) * 4096  # inside the first chunk every layer grows
    assert max_context(below, kv_bytes_per_token(SCOUT), model=SCOUT) == 4096


def test_without_the_lists_the_defaults_of_transformers_apply() -> None:
    """No no_rope_layers: every 4th layer is NoPE (no_rope_layer_interval 4); no moe_layers:
    every interleave_moe_layer_step-th layer is MoE."""
    config = {
        "model_type": "llama4_text", "hidden_size": 256, "num_hidden_layers": 8,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64,
        "intermediate_size": 128, "intermediate_size_mlp": 512, "vocab_size": 100,
        "num_local_experts": 4, "num_experts_per_tok": 1, "interleave_moe_layer_step": 2,
        "attention_chunk_size": 64,
    }  # fmt: skip
    model = parse_model_config(config, slug="t")
    assert (model.chunked_layers, model.moe_layers, model.dense_intermediate_size) == (6, 4, 512)
    with pytest.raises(EngineInputError) as error:
        parse_model_config(config | {"no_rope_layers": [1, 0]}, slug="t")
    assert error.value.field == "model.config.no_rope_layers"

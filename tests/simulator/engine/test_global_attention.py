"""Gemma 4: five of every six layers attend over a 1,024-token window with 256-wide heads;
every sixth attends to the whole context with heads of its own (`global_head_dim` 512, fewer
KV heads, keys that double as values). Each figure is derived here from the config's named
quantities and compared with what the engine computes."""

import pytest

from simulator.engine import EngineInputError
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.io.train_request import parse_train_workload
from simulator.engine.model.config import parse_model_config
from simulator.engine.model.layers import model_attention_params, model_params
from simulator.engine.model.registry import load_model
from simulator.engine.serve.decode import (
    DECODE_RULES,
    DecodeInputs,
    ShareStep,
    decode_attention_flops_per_position,
)
from simulator.engine.serve.kv_cache import kv_bytes_per_token, max_context
from simulator.engine.serve.placement import model_parts, place
from simulator.engine.serve.prefill import PREFILL_RULES, PrefillInputs

# google/gemma-4-31B-it's text_config (simulator/engine/data/models/gemma-4-31b.json).
HIDDEN, LAYERS, FULL, WINDOW = 5376, 60, 10, 1024
HEADS, KV, DIM = 32, 16, 256  # sliding layers
GLOBAL_KV, GLOBAL_DIM = 4, 512  # full-attention layers, keys as values
F16 = 2


def test_full_layers_take_their_own_heads_and_keys_double_as_values() -> None:
    model = load_model("gemma-4-31b")
    assert (model.full_layers, model.sliding_layers, model.sliding_window) == (FULL, 50, WINDOW)
    full = model.full_attention
    assert full is not None
    assert (full.num_heads, full.num_kv_heads, full.head_dim) == (HEADS, GLOBAL_KV, GLOBAL_DIM)
    assert full.shared_kv_projection
    assert (model.attention.num_kv_heads, model.attention.head_dim) == (KV, DIM)


def test_attention_parameters_count_no_value_projection_in_full_layers() -> None:
    """Sliding: q, k, v and o; full: q, k and o only (attention_k_eq_v)."""
    sliding = HIDDEN * HEADS * DIM + 2 * HIDDEN * KV * DIM + HEADS * DIM * HIDDEN
    full = (
        HIDDEN * HEADS * GLOBAL_DIM + HIDDEN * GLOBAL_KV * GLOBAL_DIM + HEADS * GLOBAL_DIM * HIDDEN
    )
    assert model_attention_params(load_model("gemma-4-31b")) == 50 * sliding + FULL * full


@pytest.mark.parametrize(("slug", "billions"), [("gemma-4-31b", 30.7), ("gemma-4-26b-a4b", 25.2)])
def test_the_shipped_configs_total_the_size_their_cards_give(slug: str, billions: float) -> None:
    assert model_params(load_model(slug)) / 1e9 == pytest.approx(billions, abs=0.05)


def test_the_moe_model_runs_a_dense_mlp_beside_its_routed_experts() -> None:
    """gemma-4-26B-A4B: enable_moe_block, intermediate_size 2,112 always on, 128 experts of
    704, top_k_experts 8."""
    model = load_model("gemma-4-26b-a4b")
    assert (model.num_experts, model.experts_per_token, model.expert_intermediate_size) == (
        128,
        8,
        704,
    )
    assert (model.shared_expert_count, model.shared_expert_intermediate_size) == (1, 2112)
    assert model.first_dense_layers == 0


def test_the_cache_holds_the_window_in_sliding_layers_and_everything_in_full_layers() -> None:
    """Per token: sliding layers 2 × 16 × 256, full layers 2 × 4 × 512 elements, f16."""
    model = load_model("gemma-4-31b")
    context = 32_768
    expected = F16 * (50 * WINDOW * 2 * KV * DIM + FULL * context * 2 * GLOBAL_KV * GLOBAL_DIM)
    cached = kv_bytes_per_token(model) * model.attended_positions(context)
    assert cached == pytest.approx(expected)
    # the largest context inverts it: past the window only the full layers grow
    assert max_context(expected, kv_bytes_per_token(model), model=model) == context


def test_decode_reads_each_layers_cache_and_scores_at_its_own_head_width() -> None:
    model = load_model("gemma-4-31b")
    placement = place(model_parts(model), weight_scheme("Q8_0"), "gpu")
    context, batch = 8192, 2
    inputs = DecodeInputs(
        placement=placement, model=model, kv_bytes_per_token=kv_bytes_per_token(model),
        context=context, batch=batch,
    )  # fmt: skip
    cost = DECODE_RULES.breakdown(ShareStep(share=placement.shares[0], inputs=inputs))["kv_cache"]
    cache = F16 * (50 * WINDOW * 2 * KV * DIM + FULL * context * 2 * GLOBAL_KV * GLOBAL_DIM)
    assert cost.kv_bytes == pytest.approx(cache * batch)
    # QKᵀ and score·V: 4 FLOPs per head per head-dim element per position
    flops = 4 * HEADS * (50 * WINDOW * DIM + FULL * context * GLOBAL_DIM) * batch
    assert cost.cache_flops == pytest.approx(flops)
    assert decode_attention_flops_per_position(model.attention) == 4 * HEADS * DIM


def test_prefill_scores_full_layers_pairs_at_their_head_width() -> None:
    model = load_model("gemma-4-31b")
    placement = place(model_parts(model), weight_scheme("Q8_0"), "gpu")
    tokens = 4096
    x = PrefillInputs(
        placement=placement, model=model, tokens=tokens, micro_batches=1,
        experts_compute_on_cpu=False, depth=0,
    )  # fmt: skip
    full_pairs = tokens * (tokens + 1) / 2
    sliding_pairs = WINDOW * (WINDOW + 1) / 2 + (tokens - WINDOW) * WINDOW
    per_pair = 2 * HEADS * (DIM + DIM)  # QKᵀ and score·V, 2 FLOPs a multiply–add
    expected = per_pair * (50 * sliding_pairs + FULL * full_pairs * GLOBAL_DIM / DIM)
    assert PREFILL_RULES.breakdown(x)["causal_attention"].attention_flops == pytest.approx(expected)


@pytest.mark.parametrize(
    "key", ["hidden_size_per_layer_input", "num_kv_shared_layers", "use_double_wide_mlp"]
)
def test_the_small_gemma_4s_layer_sharing_is_refused_naming_the_key(key: str) -> None:
    config = {"hidden_size": 512, "num_hidden_layers": 4, "num_attention_heads": 4,
              "intermediate_size": 1024, "vocab_size": 1000, key: 256}  # fmt: skip
    with pytest.raises(EngineInputError) as error:
        parse_model_config(config, slug="gemma-4-e2b")
    assert error.value.field == f"model.config.{key}"


def test_training_refuses_a_model_whose_full_layers_have_their_own_attention() -> None:
    with pytest.raises(EngineInputError) as caught:
        parse_train_workload({"model": "gemma-4-31b", "quant": "NF4"})
    assert caught.value.field == "workload.model"
    assert "attention shape of their own" in caught.value.message

"""Gated DeltaNet layers (Qwen3-Next, Qwen3.5/3.6): three of every four layers keep a fixed
recurrent state instead of a KV cache. Each figure is derived here from the config's named
quantities and compared with what the engine computes."""

import math
from dataclasses import replace

import pytest

from simulator.engine import EngineInputError
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.io.train_request import parse_train_workload
from simulator.engine.model.config import parse_model_config
from simulator.engine.model.layers import (
    DELTA_RULE_CHUNK,
    attention_params,
    delta_rule_decode_flops,
    delta_rule_prefill_flops_per_token,
    linear_attention_params,
    model_params,
)
from simulator.engine.model.registry import load_model
from simulator.engine.serve.decode import DECODE_RULES, DecodeInputs, ShareStep
from simulator.engine.serve.kv_cache import kv_bytes_per_token, max_context
from simulator.engine.serve.placement import model_parts, place
from simulator.engine.serve.prefill import PREFILL_RULES, PrefillInputs

# Qwen3.5-35B-A3B's text_config (ai-dynamo/aiconfigurator@095f58a5, Qwen--Qwen3.5-35B-A3B).
HIDDEN, LAYERS, LINEAR = 2048, 40, 30
NK, NV, DK, DV, KERNEL = 16, 32, 128, 128, 4
HEADS, KV_HEADS, HEAD_DIM = 16, 2, 256


def _config(**overrides: object) -> dict[str, object]:
    config: dict[str, object] = {
        "model_type": "qwen3_5_moe_text",
        "hidden_size": HIDDEN, "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS, "num_key_value_heads": KV_HEADS, "head_dim": HEAD_DIM,
        "attn_output_gate": True,
        "linear_num_key_heads": NK, "linear_num_value_heads": NV,
        "linear_key_head_dim": DK, "linear_value_head_dim": DV, "linear_conv_kernel_dim": KERNEL,
        "num_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 512,
        "shared_expert_intermediate_size": 512, "vocab_size": 248320,
        "max_position_embeddings": 262144,
    }  # fmt: skip
    config["layer_types"] = (["linear_attention"] * 3 + ["full_attention"]) * (LAYERS // 4)
    return {**config, **overrides}


def test_layer_types_mark_three_of_every_four_layers_linear() -> None:
    model = parse_model_config(_config(), slug="t")

    assert model.linear_layers == LINEAR
    assert model.full_layers == LAYERS - LINEAR
    assert model.attention.output_gate


def test_without_layer_types_every_interval_th_layer_is_full_attention() -> None:
    config = _config(full_attention_interval=4)
    del config["layer_types"]

    assert parse_model_config(config, slug="t").linear_layers == LAYERS - LAYERS // 4


def test_linear_heads_without_layer_types_or_interval_are_refused_naming_the_key() -> None:
    config = _config()
    del config["layer_types"]

    with pytest.raises(EngineInputError) as caught:
        parse_model_config(config, slug="t")
    assert caught.value.field.endswith("full_attention_interval")


def test_a_linear_layer_keeps_a_fixed_state_of_the_delta_rule_and_the_convolution() -> None:
    model = parse_model_config(_config(), slug="t")

    state = NV * DK * DV * 4  # float32 (mamba_ssm_dtype's default)
    conv = (2 * NK * DK + NV * DV) * (KERNEL - 1) * 2  # last kernel − 1 inputs, 16-bit
    assert model.recurrent_state_bytes == LINEAR * (state + conv)
    half = parse_model_config(_config(mamba_ssm_dtype="bfloat16"), slug="t")
    assert half.recurrent_state_bytes == LINEAR * (NV * DK * DV * 2 + conv)


def test_parameters_count_gated_attention_and_delta_net_projections() -> None:
    model = parse_model_config(_config(), slug="t")

    q = HEADS * HEAD_DIM
    gated = HIDDEN * 2 * q + 2 * HIDDEN * KV_HEADS * HEAD_DIM + q * HIDDEN
    assert attention_params(model.attention, HIDDEN) == gated
    delta = (
        HIDDEN * (2 * NK * DK + 2 * NV * DV + 2 * NV)  # q, k, v, z; β and decay inputs
        + (2 * NK * DK + NV * DV) * KERNEL  # depthwise convolution
        + NV * DV * HIDDEN  # out_proj
        + 2 * NV
        + DV  # A_log, dt_bias, the gated norm
    )
    assert model.linear_attention is not None
    assert linear_attention_params(model.linear_attention, HIDDEN) == delta
    assert model_parts(model).attention == (LAYERS - LINEAR) * gated + LINEAR * delta


@pytest.mark.parametrize(
    ("slug", "billions"),
    [("qwen3.5-35b-a3b", 35), ("qwen3.5-27b", 27), ("qwen3.5-122b-a10b", 122),
     ("qwen3.5-397b-a17b", 397), ("qwen3-next-80b-a3b", 80)],
)  # fmt: skip
def test_the_shipped_configs_total_the_size_their_names_give(slug: str, billions: int) -> None:
    assert model_params(load_model(slug)) / 1e9 == pytest.approx(billions, rel=0.02)


def test_qwen3_next_is_gated_everywhere_and_linear_in_three_of_four_layers() -> None:
    """Qwen3-Next's config.json has no layer_types and no attn_output_gate: all but every
    full_attention_interval-th layer is linear, and its attention is gated (q_proj twice as
    wide, transformers' Qwen3NextAttention); its card: 79B parameters without embeddings."""
    model = load_model("qwen3-next-80b-a3b")
    assert (model.num_layers, model.linear_layers) == (48, 36)
    assert model.attention.output_gate
    parts = model_parts(model)
    non_embedding = model_params(model) - parts.embeddings - parts.output
    assert non_embedding / 1e9 == pytest.approx(79, rel=0.01)


def test_only_full_attention_layers_cache_positions() -> None:
    model = parse_model_config(_config(), slug="t")

    assert model.attended_positions(8192) == pytest.approx(8192 * (LAYERS - LINEAR) / LAYERS)
    full_pairs = 512 * 1024 + 512 * 513 / 2
    assert model.attended_pairs(1024, 512) == pytest.approx(full_pairs * 10 / LAYERS)


def test_the_largest_context_counts_the_state_and_only_the_full_layers_cache() -> None:
    model = replace(parse_model_config(_config(), slug="t"), trained_context=None)
    per_token = kv_bytes_per_token(model)
    free = 4e9

    got = max_context(free, per_token, sequences=2, model=model)

    per_position = per_token * (LAYERS - LINEAR) / LAYERS
    expected = (free - 2 * model.recurrent_state_bytes) / (per_position * 2)
    assert got == math.floor(expected)
    assert max_context(2 * model.recurrent_state_bytes, per_token, sequences=2, model=model) == 0


def _decode_rule(name: str, model_slug: str, batch: int) -> tuple[float, float, float]:
    model = load_model(model_slug)
    placement = place(model_parts(model), weight_scheme("Q8_0"), "gpu")
    inputs = DecodeInputs(
        placement=placement, model=model, kv_bytes_per_token=kv_bytes_per_token(model),
        context=4096, batch=batch,
    )  # fmt: skip
    share = placement.shares[0]
    cost = DECODE_RULES.breakdown(ShareStep(share=share, inputs=inputs))[name]
    return cost.kv_bytes, cost.cache_flops, model.recurrent_state_bytes


def test_decode_reads_and_writes_each_sequences_state_and_runs_the_delta_rule() -> None:
    kv_bytes, flops, state = _decode_rule("recurrent_state", "qwen3.5-35b-a3b", batch=3)

    assert kv_bytes == 2 * state * 3
    assert flops == LINEAR * 7 * NV * DK * DV * 3
    lin = load_model("qwen3.5-35b-a3b").linear_attention
    assert lin is not None
    assert delta_rule_decode_flops(lin) == 7 * NV * DK * DV


def test_a_model_without_linear_layers_has_no_recurrent_state_cost() -> None:
    assert _decode_rule("recurrent_state", "qwen3-30b-a3b", batch=3) == (0.0, 0.0, 0.0)


def test_prefill_runs_the_chunked_delta_rule_per_prompt_token_whatever_the_depth() -> None:
    model = load_model("qwen3.5-35b-a3b")
    placement = place(model_parts(model), weight_scheme("Q8_0"), "gpu")

    def flops(depth: int) -> float:
        x = PrefillInputs(
            placement=placement, model=model, tokens=2048, micro_batches=1,
            experts_compute_on_cpu=False, depth=depth,
        )  # fmt: skip
        return PREFILL_RULES.breakdown(x)["delta_rule"].attention_flops

    c = DELTA_RULE_CHUNK
    per_head = 6 * DK * DV + 6 * c * DK + 4 * c * DV + 2 * c * c / 3
    assert flops(0) == pytest.approx(LINEAR * 2048 * NV * per_head)
    assert flops(32768) == flops(0)
    lin = model.linear_attention
    assert lin is not None
    assert delta_rule_prefill_flops_per_token(lin) == pytest.approx(NV * per_head)


def test_training_refuses_a_linear_attention_model_naming_the_model_field() -> None:
    with pytest.raises(EngineInputError) as caught:
        parse_train_workload({"model": "qwen3.5-27b", "quant": "NF4"})
    assert caught.value.field == "workload.model"
    assert "linear-attention" in caught.value.message

"""Parsing Hugging Face config.json files into model shapes."""

import json

import pytest
from numpy.testing import assert_allclose

from simulator.engine import parse_request, result_to_json, simulate, workload_model
from simulator.engine.errors import EngineInputError
from simulator.engine.model.config import parse_model_config
from simulator.engine.model.layers import (
    attention_params,
    dense_layer,
    model_params,
    reference_layer,
)
from simulator.engine.model.registry import load_model, model_slugs
from tests.conftest import REPO_ROOT

SHIPPED = [
    "deepseek-v3", "glm-4.7", "glm-4.7-flash", "llama-3.1-70b", "llama-3.1-8b",
    "mixtral-8x7b", "qwen3-235b-a22b",
]  # fmt: skip


def test_it_ships_the_seven_models_of_the_issue():
    assert set(SHIPPED) <= set(model_slugs())


@pytest.mark.parametrize("slug", SHIPPED)
def test_every_shipped_model_lands_within_3_percent_of_its_card(slug):
    # transformers' widths, embeddings and multi-token-prediction layers included
    model = load_model(slug)
    assert model.card_params_b is not None
    assert_allclose(model_params(model, include_mtp=True) / 1e9, model.card_params_b, rtol=0.03)


def test_glm_reads_three_dense_layers_and_one_shared_expert():
    glm = load_model("glm-4.7")
    assert (glm.first_dense_layers, glm.moe_layers, glm.shared_expert_count) == (3, 89, 1)
    assert glm.shared_expert_intermediate_size == 1536  # n_shared_experts × moe_intermediate_size


def test_reference_reading_of_glm_uses_the_seeds_12288_wide_shared_expert():
    assert reference_layer(load_model("glm-4.7")).mlp_intermediate_size == 12288


def test_deepseek_v3_uses_latent_attention():
    attention = load_model("deepseek-v3").attention
    assert (attention.kind, attention.kv_lora_rank, attention.q_lora_rank) == ("mla", 512, 1536)


def test_mla_attention_params_count_the_low_rank_projections():
    h, nh, q_rank, kv_rank, nope, rope, v = 7168, 128, 1536, 512, 128, 64, 128
    q = q_rank * (h + nh * (nope + rope))  # q_a then q_b
    kv = h * (kv_rank + rope) + kv_rank * nh * (nope + v)  # joint latent, then per-head up
    o = nh * v * h
    assert attention_params(load_model("deepseek-v3").attention, h) == q + kv + o


def test_mixtral_reads_its_experts_from_num_local_experts():
    mixtral = load_model("mixtral-8x7b")
    assert (mixtral.num_experts, mixtral.experts_per_token, mixtral.expert_intermediate_size) == (
        8, 2, 14336)  # fmt: skip
    assert mixtral.shared_expert_intermediate_size == 0


def test_a_dense_model_has_no_experts():
    llama = load_model("llama-3.1-8b")
    assert not llama.is_moe
    assert reference_layer(llama) == dense_layer(llama)


def test_it_names_a_missing_field():
    with pytest.raises(EngineInputError) as error:
        parse_model_config({"hidden_size": 4096}, slug="broken")
    assert error.value.field == "model.config.num_hidden_layers"


def test_it_rejects_a_moe_config_without_experts_per_token():
    config = {
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_local_experts": 8,
        "intermediate_size": 128,
        "vocab_size": 100,
    }
    with pytest.raises(EngineInputError, match="num_experts_per_tok"):
        parse_model_config(config, slug="broken")


def test_it_rejects_a_boolean_where_a_count_belongs():
    with pytest.raises(EngineInputError, match="integer"):
        parse_model_config({"hidden_size": True}, slug="broken")


def test_it_rejects_an_unknown_model_slug():
    with pytest.raises(EngineInputError) as error:
        load_model("gpt-5")
    assert error.value.field == "workload.model"


def test_an_inline_config_is_sized_by_its_shape_whatever_slug_it_is_given() -> None:
    """Seed-measured layer sizes belong to the shipped model: an inline config.json named
    like it (here GLM-4.7 with half the hidden size) is sized from its own shape."""
    shipped = json.loads(
        (REPO_ROOT / "simulator/engine/data/models/glm-4.7.json").read_text(encoding="utf-8")
    )
    half = {k: v for k, v in shipped.items() if not k.startswith("_")} | {"hidden_size": 2560}
    hardware = {"gpu": "RTX 4090", "ram_gb": 256}

    def layer_gb(name: str, config: dict[str, object] | None) -> float:
        workload: dict[str, object] = {"model": name, "quant": "NF4d+NF2e", "seq_len": 1024}
        if config is not None:
            workload["model_config"] = config
        result = result_to_json(
            simulate(parse_request({"workload": workload, "hardware": hardware}))
        )
        return float(result["model_facts"]["layer_gb"])

    assert layer_gb("glm-4.7", half) == layer_gb("my-glm", half)
    assert layer_gb("glm-4.7", half) < 0.7 * layer_gb("glm-4.7", None)
    assert load_model("glm-4.7").shipped
    assert not workload_model({"model": "glm-4.7", "model_config": half}).shipped


# Configs added for the public measurements' models, each with its card's parameter count.
ADDED_FOR_THE_CORPUS = [
    "gemma-3-27b", "minimax-m2.5", "mistral-small-3.1-24b", "qwen3-0.6b", "tinyllama-1.1b",
]  # fmt: skip


@pytest.mark.parametrize("slug", ADDED_FOR_THE_CORPUS)
def test_each_config_added_for_the_corpus_lands_within_3_percent_of_its_card(slug: str) -> None:
    model = load_model(slug)
    assert model.card_params_b is not None
    assert_allclose(model_params(model, include_mtp=True) / 1e9, model.card_params_b, rtol=0.03)


def test_a_multimodal_config_is_read_from_its_text_config() -> None:
    config = {
        "architectures": ["Gemma3ForConditionalGeneration"],
        "vision_config": {"hidden_size": 1152, "num_hidden_layers": 27},
        "text_config": {"hidden_size": 512, "num_hidden_layers": 4, "num_attention_heads": 4,
                        "head_dim": 64, "intermediate_size": 1024, "vocab_size": 1000},
    }  # fmt: skip
    model = parse_model_config(config, slug="mm")
    assert (model.hidden_size, model.num_layers, model.attention.head_dim) == (512, 4, 64)


def test_a_missing_text_config_field_is_named_under_text_config() -> None:
    with pytest.raises(EngineInputError) as error:
        parse_model_config({"text_config": {"hidden_size": 512}}, slug="mm")
    assert error.value.field == "model.config.text_config.num_hidden_layers"


def test_gemma_3_keeps_one_full_attention_layer_in_six() -> None:
    # 62 layers, every 6th global (sliding_window_pattern 6): 10 global, 52 sliding
    gemma = load_model("gemma-3-27b")
    full_layers = gemma.num_layers // 6
    assert (gemma.sliding_layers, gemma.sliding_window) == (gemma.num_layers - full_layers, 1024)
    assert gemma.tie_word_embeddings


PLAIN = {"hidden_size": 512, "num_hidden_layers": 4, "num_attention_heads": 4,
         "intermediate_size": 1024, "vocab_size": 1000}  # fmt: skip


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("hybrid_override_pattern", "MEM*"),
        ("compress_ratios", [0, 4, 128, 4]),
        ("hidden_size_per_layer_input", 256),
    ],
)
def test_a_config_with_layers_the_engine_cannot_model_is_refused_naming_the_key(
    key: str, value: object
) -> None:
    with pytest.raises(EngineInputError) as error:
        parse_model_config(PLAIN | {key: value}, slug="hybrid")
    assert error.value.field == f"model.config.{key}"


def test_linear_attention_layers_without_their_heads_are_refused_naming_the_key() -> None:
    layer_types = ["linear_attention", "linear_attention", "linear_attention", "full_attention"]
    with pytest.raises(EngineInputError) as error:
        parse_model_config(PLAIN | {"layer_types": layer_types}, slug="qwen-next")
    assert error.value.field == "model.config.linear_num_value_heads"
    assert "linear_attention" in error.value.message


def test_a_null_chunk_size_is_not_a_chunked_model() -> None:
    assert parse_model_config(PLAIN | {"attention_chunk_size": None}, slug="plain").num_layers == 4


def test_first_generation_qwen_counts_both_halves_of_its_mlp_in_intermediate_size():
    """Qwen-7B's config.json says 22016; QWenMLP's w1 and w2 are each 11008 wide, so a layer
    holds 3 · 4096 · 11008 MLP weights and Qwen-1.8B lands within 3 % of its card's 1.8 B."""
    qwen7b = load_model("qwen-7b")
    assert qwen7b.dense_intermediate_size == 11008
    assert dense_layer(qwen7b).mlp_intermediate_size == 11008
    qwen18 = load_model("qwen-1.8b")
    assert qwen18.dense_intermediate_size == 5504
    assert qwen18.card_params_b is not None
    assert_allclose(model_params(qwen18) / 1e9, qwen18.card_params_b, rtol=0.03)
    # The same keys under another model_type keep the width as written.
    text = (REPO_ROOT / "simulator/engine/data/models/qwen-7b.json").read_text()
    llama_like = parse_model_config({**json.loads(text), "model_type": "llama"}, slug="x")
    assert llama_like.dense_intermediate_size == 22016

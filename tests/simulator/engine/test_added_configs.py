"""Sizes of shipped configs derived from their shapes: each layer's attention projections
and gated MLP, and the embeddings (norms and biases, under 0.1 %, are not counted)."""

import pytest

from simulator.engine.errors import EngineInputError
from simulator.engine.model.config import parse_model_config
from simulator.engine.model.layers import model_params
from simulator.engine.model.registry import load_model


@pytest.mark.parametrize(
    ("slug", "hidden", "layers", "heads", "kv_heads", "ffn", "vocab", "card_b"),
    [
        # config.json: 28 layers, 28/4 heads of 128, an 18,944-wide MLP, an untied head
        ("deepseek-r1-distill-qwen-7b", 3584, 28, 28, 4, 18944, 152064, 7.0),
        # 88 layers, 96/8 heads of 128, a 28,672-wide MLP, an untied head; named "123B"
        ("devstral-2-123b", 12288, 88, 96, 8, 28672, 131072, 123.0),
    ],
)  # fmt: skip
def test_a_shipped_config_counts_the_parameters_its_shape_gives(
    slug: str, hidden: int, layers: int, heads: int, kv_heads: int, ffn: int, vocab: int,
    card_b: float,
) -> None:  # fmt: skip
    head_dim = 128
    attention = hidden * head_dim * (heads + 2 * kv_heads) + heads * head_dim * hidden
    expected = layers * (attention + 3 * hidden * ffn) + 2 * vocab * hidden
    counted = model_params(load_model(slug))
    assert counted == expected
    assert counted / 1e9 == pytest.approx(card_b, rel=0.1)


def test_hunyuans_per_layer_lists_read_as_the_value_every_layer_has() -> None:
    model = load_model("hunyuan-a13b")
    assert (model.num_experts, model.experts_per_token) == (64, 8)
    # each layer: 64 routed experts 3,072 wide and one shared MLP intermediate_size (3,072) wide
    assert model.expert_intermediate_size == model.shared_expert_intermediate_size == 3072
    hidden, layers, vocab = 4096, 32, 128167
    attention = hidden * 128 * (32 + 2 * 8) + 32 * 128 * hidden
    mlps = (64 + 1) * 3 * hidden * 3072 + hidden * 64  # and the router
    assert model_params(model) == layers * (attention + mlps) + vocab * hidden  # tied embeddings


def test_a_hunyuan_config_whose_layers_differ_is_refused_naming_the_list() -> None:
    config = {"model_type": "hunyuan", "hidden_size": 64, "num_hidden_layers": 2,
              "num_attention_heads": 4, "num_key_value_heads": 4, "intermediate_size": 32,
              "num_experts": 4, "moe_topk": [2, 1], "vocab_size": 100}  # fmt: skip
    with pytest.raises(EngineInputError) as error:
        parse_model_config(config, slug="x")
    assert error.value.field == "model.config.moe_topk"

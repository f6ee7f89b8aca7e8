"""Sizes of shipped configs derived from their shapes: each layer's attention projections
and gated MLP, and the embeddings (norms and biases, under 0.1 %, are not counted)."""

import pytest

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

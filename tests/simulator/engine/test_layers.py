"""Model facts of seed 000 ("Model Architecture" table) from GLM-4.7's config.json."""

from numpy.testing import assert_allclose

from simulator.engine.model.layers import (
    active_params,
    attention_params,
    dense_params,
    expert_params,
    reference_layer,
    total_params,
)
from simulator.engine.model.registry import load_model

H, NH, KV, D = 5120, 96, 8, 128  # hidden, query heads, KV heads, head dim (GLM-4.7)
IS, IE, E, K = 12288, 1536, 160, 8  # shared and routed widths, experts, active experts


def glm_layer():
    return reference_layer(load_model("glm-4.7"))


def test_attention_params_follow_the_gqa_formula():
    # q (h→nh·d) + k and v (h→kv·d each) + o (nh·d→h)
    expected = H * NH * D + 2 * H * KV * D + NH * D * H
    assert attention_params(glm_layer().attention, H) == expected


def test_total_params_per_layer_are_the_seeds_4_10_billion():
    attention = H * NH * D + 2 * H * KV * D + NH * D * H
    shared = 3 * H * IS  # gate, up, down of the shared expert
    routed = E * 3 * H * IE  # every routed expert is stored
    router = H * E
    assert total_params(glm_layer()) == attention + shared + routed + router
    assert_allclose(total_params(glm_layer()) / 1e9, 4.10, rtol=0.005)


def test_active_params_per_layer_are_the_seeds_515_million():
    assert_allclose(active_params(glm_layer()) / 1e6, 515, rtol=0.005)


def test_routed_experts_are_92_1_percent_of_the_layer():
    assert_allclose(expert_params(glm_layer()) / total_params(glm_layer()), 0.921, atol=5e-4)


def test_dense_params_are_everything_but_the_routed_experts():
    layer = glm_layer()
    assert dense_params(layer) + expert_params(layer) == total_params(layer)

"""Seed 000 "LoRA Configuration": 6.36 M params, 101.7 MB per layer, 9.36 GB in all."""

from numpy.testing import assert_allclose

from simulator.engine.model.layers import reference_layer
from simulator.engine.model.lora import LoraConfig, lora_bytes_per_layer, lora_params_per_layer
from simulator.engine.model.registry import load_model

H, Q_OUT, KV_OUT, IS, R = 5120, 96 * 128, 8 * 128, 12288, 64
GLM_LAYERS = 92


def glm_layer():
    return reference_layer(load_model("glm-4.7"))


def test_lora_params_sum_r_in_plus_out_r_over_seven_projections():
    pairs = [(H, Q_OUT), (H, KV_OUT), (H, KV_OUT), (Q_OUT, H), (H, IS), (H, IS), (IS, H)]
    expected = sum(R * fan_in + fan_out * R for fan_in, fan_out in pairs)
    assert lora_params_per_layer(glm_layer(), LoraConfig()) == expected
    assert_allclose(expected / 1e6, 6.36, atol=0.005)


def test_lora_memory_is_16_bytes_per_param_printed_in_decimal_mb():
    # the seed prints LoRA sizes in decimal MB/GB (101.7 MB, 9.36 GB), unlike layer sizes
    per_layer = lora_bytes_per_layer(glm_layer(), LoraConfig())
    assert_allclose(per_layer / 1e6, 101.7, atol=0.05)
    assert_allclose(per_layer * GLM_LAYERS / 1e9, 9.36, atol=0.005)


def test_lora_params_scale_linearly_with_rank():
    layer = glm_layer()
    assert lora_params_per_layer(layer, LoraConfig(rank=16)) * 4 == lora_params_per_layer(
        layer, LoraConfig(rank=64)
    )


def test_fewer_targets_mean_fewer_params():
    layer = glm_layer()
    attention_only = LoraConfig(targets=("q", "k", "v", "o"))
    assert lora_params_per_layer(layer, attention_only) < lora_params_per_layer(layer, LoraConfig())

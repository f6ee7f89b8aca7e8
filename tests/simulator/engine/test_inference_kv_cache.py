"""KV cache bytes per token for GQA and MLA, cache types, and the longest context that fits."""

import pytest

from simulator.engine.model.registry import load_model
from simulator.engine.serve.kv_cache import kv_bytes_per_token, max_context

F16 = 2


def test_gqa_caches_a_key_and_a_value_per_kv_head_per_layer():
    layers, kv_heads, head_dim = 32, 8, 128  # Llama-3.1-8B config.json
    expected = layers * 2 * kv_heads * head_dim * F16  # the well-known 128 KiB per token
    assert kv_bytes_per_token(load_model("llama-3.1-8b")) == expected == 128 * 1024


def test_glm_4_7_caches_8_kv_heads_of_128_in_92_layers():
    assert kv_bytes_per_token(load_model("glm-4.7")) == 92 * 2 * 8 * 128 * F16


def test_mla_caches_the_latent_and_the_rope_key_only():
    layers, kv_lora_rank, rope_dim = 47, 512, 64  # GLM-4.7-Flash config.json
    expected = layers * (kv_lora_rank + rope_dim) * F16
    assert kv_bytes_per_token(load_model("glm-4.7-flash")) == expected


def test_q8_0_cache_stores_34_bytes_per_32_elements():
    model = load_model("llama-3.1-8b")
    ratio = kv_bytes_per_token(model, "q8_0") / kv_bytes_per_token(model, "f16")
    assert ratio == pytest.approx((34 / 32) / F16)


def test_max_context_divides_free_bytes_among_sequences():
    per_token = 1000.0
    assert max_context(4_000_500.0, per_token, sequences=2) == 2000
    assert max_context(-1.0, per_token) == 0

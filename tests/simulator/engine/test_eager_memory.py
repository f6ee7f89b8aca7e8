"""What an eager transformers layer keeps for its backward without checkpointing
(train/eager_memory.py), derived from the layer's widths."""

import pytest

from simulator.engine.model.layers import dense_layer
from simulator.engine.model.lora import LoraConfig
from simulator.engine.model.registry import load_model
from simulator.engine.train.eager_memory import eager_saved_bytes_per_token

LLAMA_8B = dense_layer(load_model("llama-3.1-8b"))  # h 4,096; q 4,096; kv 1,024; i 14,336


def test_a_frozen_layer_keeps_its_norms_fp32_inputs_attention_and_mlp_intermediates() -> None:
    h, q, kv, i = 4096, 4096, 1024, 14336
    frozen = 2 * 4 * h + 2 * (q + 2 * kv + q) + 3 * 2 * i
    assert eager_saved_bytes_per_token(LLAMA_8B, None, trained_base=False) == frozen


def test_peft_adds_an_fp32_copy_of_each_adapted_projections_input() -> None:
    frozen = eager_saved_bytes_per_token(LLAMA_8B, None, trained_base=False)
    q_and_v = eager_saved_bytes_per_token(
        LLAMA_8B, LoraConfig(rank=16, targets=("q", "v")), trained_base=False
    )
    every = eager_saved_bytes_per_token(LLAMA_8B, LoraConfig(rank=16), trained_base=False)
    assert q_and_v == frozen + 2 * 4 * (4096 + 16)
    assert every == frozen + 4 * (6 * 4096 + 14336) + 7 * 4 * 16
    assert every / 1024 == pytest.approx(288, abs=1)  # C001 measured 286 KB a token and layer


def test_training_the_base_keeps_each_projections_input_and_the_normalized_tensors() -> None:
    frozen = eager_saved_bytes_per_token(LLAMA_8B, None, trained_base=False)
    trained = eager_saved_bytes_per_token(LLAMA_8B, None, trained_base=True)
    assert trained == frozen + 2 * 2 * 4096 + 2 * (4096 + 4096 + 4096 + 14336)

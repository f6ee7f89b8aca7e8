"""Refined mode's LoRA-aware backward (`frozen_base`) and activation checkpointing."""

import pytest
from numpy.testing import assert_allclose

from simulator.engine import parse_request
from simulator.engine.errors import EngineInputError
from simulator.engine.formats.training import quant_format
from simulator.engine.model.layers import (
    active_params,
    dense_layer,
    score_flops_per_token_per_position,
)
from simulator.engine.model.lora import LoraConfig, lora_params_per_layer
from simulator.engine.model.registry import load_model
from simulator.engine.train.compute import (
    FLOP_OVERHEAD,
    backward_flops_per_sequence,
    forward_flops_per_sequence,
)
from simulator.engine.train.reference import optimal_split
from simulator.engine.train.refined import (
    ALL_REFINEMENTS,
    refined_curve,
    resident_peak_gib,
    stage_layers,
    without,
)
from simulator.engine.train.workload import MODE_REFINED, TrainWorkload

from .seed_setups import rig
from .test_request import with_value

S = 2048
RTOL = 1e-12


def llama_8b(*, checkpointing: bool = True) -> TrainWorkload:
    return TrainWorkload(
        model=load_model("llama-3.1-8b"), quant=quant_format("BF16"), lora=LoraConfig(rank=8),
        seq_len=S, max_micro_batch=2, mode=MODE_REFINED,
        activation_checkpointing=checkpointing,
    )  # fmt: skip


def test_full_training_backward_is_twice_the_forward_plus_the_recompute():
    layer = dense_layer(load_model("llama-3.1-8b"))
    forward = forward_flops_per_sequence(layer, S)
    on = backward_flops_per_sequence(layer, S, lora_params=None, checkpointing=True)
    off = backward_flops_per_sequence(layer, S, lora_params=None, checkpointing=False)
    assert_allclose([on, off], [3 * forward, 2 * forward], rtol=RTOL)


def test_a_frozen_base_computes_activation_gradients_only():
    layer = dense_layer(load_model("llama-3.1-8b"))
    adapters = lora_params_per_layer(layer, LoraConfig(rank=8))
    matmuls = 2 * S * active_params(layer)  # 2 FLOPs per weight per token
    scores = S * S * score_flops_per_token_per_position(layer.attention)
    lora = 2 * S * adapters
    # base dX (1×), scores' two operand gradients (2×), adapters' dX and dW (2×)
    expected = FLOP_OVERHEAD * (matmuls + 2 * scores + 2 * lora)
    got = backward_flops_per_sequence(layer, S, lora_params=adapters, checkpointing=False)
    assert_allclose(got, expected, rtol=RTOL)


def test_checkpointing_adds_the_forward_with_its_adapters():
    layer = dense_layer(load_model("llama-3.1-8b"))
    adapters = lora_params_per_layer(layer, LoraConfig(rank=8))
    off = backward_flops_per_sequence(layer, S, lora_params=adapters, checkpointing=False)
    on = backward_flops_per_sequence(layer, S, lora_params=adapters, checkpointing=True)
    recompute = forward_flops_per_sequence(layer, S) + FLOP_OVERHEAD * 2 * S * adapters
    assert_allclose(on - off, recompute, rtol=1e-9)


def test_a_frozen_base_trains_faster_than_the_reference_pass_count():
    workload, hardware = llama_8b(), rig("RTX 4090")
    plain = optimal_split(
        refined_curve(workload, hardware, without(ALL_REFINEMENTS, "frozen_base"))
    )
    frozen = optimal_split(refined_curve(workload, hardware, ALL_REFINEMENTS))
    assert plain is not None
    assert frozen is not None
    # matmuls go from 4 passes to 3; scores stay at 4 and adapters add a little
    assert 1.25 < frozen.tokens_per_s / plain.tokens_per_s < 4 / 3


def test_without_checkpointing_every_layer_keeps_its_activations():
    hardware = rig("RTX PRO 6000")
    plans = stage_layers(llama_8b(), 1, ALL_REFINEMENTS)
    on = resident_peak_gib(llama_8b(checkpointing=True), hardware)
    off = resident_peak_gib(llama_8b(checkpointing=False), hardware)
    assert on is not None
    assert off is not None
    per_layer = plans[0].gib_per_sequence  # Llama's layers are alike
    assert_allclose(off - on, 2 * (len(plans) - 1) * per_layer, rtol=1e-9)


def test_reference_mode_refuses_to_turn_checkpointing_off():
    body = with_value("workload.activation_checkpointing", False)
    with pytest.raises(EngineInputError) as error:
        parse_request(body)
    assert error.value.field == "workload.activation_checkpointing"


def test_refined_mode_may_turn_checkpointing_off():
    body = with_value("workload.activation_checkpointing", False)
    body["workload"]["mode"] = "refined"
    assert parse_request(body).workload.activation_checkpointing is False

"""Causal attention in training (refinement `causal_attention`): a layer's QKᵀ and score·V
cost the S(S+1)/2 query–key pairs a causal mask keeps (sliding-window layers at most their
window), forward, backward and recompute alike; reference mode keeps §5's S × S square."""

from __future__ import annotations

import pytest

from simulator.engine.model.layers import (
    active_params,
    dense_layer,
    reference_layer,
    score_flops_per_token_per_position,
)
from simulator.engine.model.registry import load_model
from simulator.engine.train.compute import (
    FLOP_OVERHEAD,
    MATMUL_FLOPS_PER_PARAM,
    backward_flops_per_sequence,
    forward_flops_per_sequence,
)
from simulator.engine.train.refined import (
    ALL_REFINEMENTS,
    NO_REFINEMENTS,
    refined_curve,
    stage_layers,
    without,
)
from tests.simulator.engine.peft_workloads import h200, peft_workload

LLAMA_8B = load_model("llama-3.1-8b")
GEMMA_3_1B = load_model("gemma-3-1b")


def test_a_causal_layer_scores_half_the_square_plus_the_diagonal() -> None:
    """Llama 3.1 8B, S = 4,096: 32 heads × 128 → 4·32·128 = 16,384 FLOPs a pair; the forward
    scores 4096·4097/2 pairs instead of 4096²."""
    layer, s = dense_layer(LLAMA_8B), 4096
    per_pair = score_flops_per_token_per_position(layer.attention)
    assert per_pair == 4 * 32 * 128
    matmuls = MATMUL_FLOPS_PER_PARAM * s * active_params(layer)
    causal = forward_flops_per_sequence(layer, s, s * (s + 1) / 2)
    assert causal == pytest.approx(FLOP_OVERHEAD * (matmuls + s * (s + 1) / 2 * per_pair))
    assert forward_flops_per_sequence(layer, s) == pytest.approx(
        FLOP_OVERHEAD * (matmuls + s * s * per_pair)
    )


def test_the_plans_forward_and_backward_use_the_causal_count_only_in_refined_mode() -> None:
    """Full fine-tuning's backward without checkpointing is 2 × the forward (scores: both
    operands' gradients), causal or not; the difference between the modes is exactly the
    masked pairs' FLOPs, 1.05 · (S² − S(S+1)/2) · per pair, forward and 2× backward."""
    s = 4096
    workload = peft_workload(LLAMA_8B, seq_len=s)
    causal = stage_layers(workload, 1, ALL_REFINEMENTS)[-1]
    square = stage_layers(workload, 1, without(ALL_REFINEMENTS, "causal_attention"))[-1]
    masked = FLOP_OVERHEAD * (s * s - s * (s + 1) / 2) * 4 * 32 * 128
    assert square.forward_flops_per_sequence - causal.forward_flops_per_sequence == (
        pytest.approx(masked)
    )
    assert square.backward_flops_per_sequence - causal.backward_flops_per_sequence == (
        pytest.approx(2 * masked)
    )
    layer = dense_layer(LLAMA_8B)
    assert causal.backward_flops_per_sequence == pytest.approx(
        backward_flops_per_sequence(
            layer, s, lora_params=None if causal.lora_params == 0 else causal.lora_params,
            checkpointing=False, score_pairs=s * (s + 1) / 2,
        )
    )  # fmt: skip


def test_sliding_window_layers_score_at_most_their_window() -> None:
    """Gemma 3 1B: 5 of each 6 layers attend to the last 512 positions; at S = 4,096 the
    mean over its 26 layers is (full · S(S+1)/2 + sliding · (512·513/2 + 3584·512)) / 26."""
    s = 4096
    model = GEMMA_3_1B
    assert model.sliding_window == 512
    full, sliding = model.full_layers, model.sliding_layers
    assert full + sliding == model.num_layers == 26
    expected = (full * s * (s + 1) / 2 + sliding * (512 * 513 / 2 + (s - 512) * 512)) / 26
    assert model.attended_pairs(0, s) == pytest.approx(expected)
    layer = dense_layer(model)
    plan = stage_layers(peft_workload(model, seq_len=s), 1, ALL_REFINEMENTS)[-1]
    lora = plan.lora_params
    square = stage_layers(
        peft_workload(model, seq_len=s), 1, without(ALL_REFINEMENTS, "causal_attention")
    )[-1]
    per_pair = score_flops_per_token_per_position(layer.attention)
    assert square.forward_flops_per_sequence - plan.forward_flops_per_sequence == pytest.approx(
        FLOP_OVERHEAD * (s * s - expected) * per_pair
    )
    assert lora > 0


def test_causal_attention_speeds_up_long_sequences_more_than_short_ones() -> None:
    """The scores' share grows with S: the same LoRA run gains more at 16,384 tokens than at
    1,024, and reference mode (the seed's square) does not move."""

    def gain(s: int) -> float:
        workload = peft_workload(
            LLAMA_8B, seq_len=s, max_micro_batch=1, activation_checkpointing=True
        )
        causal = max(r.tokens_per_s for r in refined_curve(workload, h200(), ALL_REFINEMENTS))
        square = max(
            r.tokens_per_s
            for r in refined_curve(workload, h200(), without(ALL_REFINEMENTS, "causal_attention"))
        )
        return causal / square

    assert 1.0 < gain(1024) < gain(16384)
    s = 4096
    reference = stage_layers(peft_workload(LLAMA_8B, seq_len=s), 1, NO_REFINEMENTS)[-1]
    layer = reference_layer(LLAMA_8B)
    matmuls = MATMUL_FLOPS_PER_PARAM * s * active_params(layer)
    scores = s * s * score_flops_per_token_per_position(layer.attention)
    assert reference.forward_flops_per_sequence == pytest.approx(FLOP_OVERHEAD * (matmuls + scores))

"""FLOPs and seconds of one layer (reference-model.md §5), and refined mode's LoRA-aware
backward (`backward_flops_per_sequence`)."""

from __future__ import annotations

from simulator.engine.model.layers import (
    LayerShape,
    active_params,
    score_flops_per_token_per_position,
)

FLOP_OVERHEAD = 1.05  # §5: norms, softmax, activation functions on top of the matmuls
MATMUL_FLOPS_PER_PARAM = 2  # one multiply-add per weight per token
TRAIN_PASSES = 4  # §5: forward, backward (2× forward) and the checkpoint recompute
# Backward of a matmul Y = X·W costs two matmuls of the forward's size: dX = dY·Wᵀ (the
# activation gradient) and dW = Xᵀ·dY (the weight gradient); Kaplan et al. 2020 §2.1, Narayanan
# et al. 2021 §5.1 (6 FLOPs per parameter per token = 2 forward + 4 backward). A frozen weight
# (LoRA's base) needs dX only.
ACTIVATION_GRAD_PASSES = 1
WEIGHT_GRAD_PASSES = 1
# QKᵀ and score·V multiply two activations: both operands need gradients (2× forward).
SCORE_BACKWARD_PASSES = 2
BACKWARD_PASSES_FULL = ACTIVATION_GRAD_PASSES + WEIGHT_GRAD_PASSES  # §5's 2 × forward
TERA = 1e12


def forward_flops_per_sequence(layer: LayerShape, seq_len: int) -> float:
    """§5 for B = 1: 1.05·[2·S·active_params + S²·(4·nh·d)]; linear in B, so × B for B."""
    matmuls = MATMUL_FLOPS_PER_PARAM * seq_len * active_params(layer)
    scores = seq_len * seq_len * score_flops_per_token_per_position(layer.attention)
    return FLOP_OVERHEAD * (matmuls + scores)


def train_flops_per_sequence(layer: LayerShape, seq_len: int) -> float:
    return TRAIN_PASSES * forward_flops_per_sequence(layer, seq_len)


def backward_flops_per_sequence(
    layer: LayerShape,
    seq_len: int,
    *,
    lora_params: int | None,
    checkpointing: bool,
) -> float:
    """Backward FLOPs of one layer for one sequence, plus the checkpoint's recomputed forward.

    `lora_params` None: every weight is trained (§5's rule, backward = 2 × forward). A count:
    LoRA on a frozen base: the base matmuls need dX only (1 × their forward), the scores
    2 × theirs, the adapters (trainable, `lora_params` weights) dX and dW; the recompute is the
    forward with the adapters (`lora_forward_flops_per_sequence`)."""
    forward = forward_flops_per_sequence(layer, seq_len)
    if lora_params is None:
        return (BACKWARD_PASSES_FULL + int(checkpointing)) * forward
    matmuls = MATMUL_FLOPS_PER_PARAM * seq_len * active_params(layer)
    scores = seq_len * seq_len * score_flops_per_token_per_position(layer.attention)
    adapters = MATMUL_FLOPS_PER_PARAM * seq_len * lora_params
    backward = FLOP_OVERHEAD * (
        ACTIVATION_GRAD_PASSES * matmuls
        + SCORE_BACKWARD_PASSES * scores
        + (ACTIVATION_GRAD_PASSES + WEIGHT_GRAD_PASSES) * adapters
    )
    recompute = lora_forward_flops_per_sequence(layer, seq_len, lora_params)
    return backward + (recompute if checkpointing else 0.0)


def lora_forward_flops_per_sequence(layer: LayerShape, seq_len: int, lora_params: int) -> float:
    """The forward with the adapters' own matmuls (2 FLOPs per adapter weight per token)."""
    adapters = FLOP_OVERHEAD * MATMUL_FLOPS_PER_PARAM * seq_len * lora_params
    return forward_flops_per_sequence(layer, seq_len) + adapters


def score_flops_fraction(layer: LayerShape, seq_len: int) -> float:
    """Share of a layer's FLOPs in QKᵀ and score·V (seed: 4.7 % for GLM-4.7 at S = 1024)."""
    scores = seq_len * score_flops_per_token_per_position(layer.attention)
    return scores / (MATMUL_FLOPS_PER_PARAM * active_params(layer) + scores)


def effective_flops_per_s(bf16_tflops: float, utilization: float, speedup: float) -> float:
    return bf16_tflops * TERA * utilization * speedup

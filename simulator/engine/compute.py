"""FLOPs and seconds of one layer (reference-model.md §5)."""

from __future__ import annotations

from .layers import LayerShape, active_params, score_flops_per_token_per_position

FLOP_OVERHEAD = 1.05  # §5: norms, softmax, activation functions on top of the matmuls
MATMUL_FLOPS_PER_PARAM = 2  # one multiply-add per weight per token
TRAIN_PASSES = 4  # §5: forward, backward (2× forward) and the checkpoint recompute
TERA = 1e12


def forward_flops_per_sequence(layer: LayerShape, seq_len: int) -> float:
    """§5 for B = 1: 1.05·[2·S·active_params + S²·(4·nh·d)]; linear in B, so × B for B."""
    matmuls = MATMUL_FLOPS_PER_PARAM * seq_len * active_params(layer)
    scores = seq_len * seq_len * score_flops_per_token_per_position(layer.attention)
    return FLOP_OVERHEAD * (matmuls + scores)


def train_flops_per_sequence(layer: LayerShape, seq_len: int) -> float:
    return TRAIN_PASSES * forward_flops_per_sequence(layer, seq_len)


def score_flops_fraction(layer: LayerShape, seq_len: int) -> float:
    """Share of a layer's FLOPs in QKᵀ and score·V (seed: 4.7 % for GLM-4.7 at S = 1024)."""
    scores = seq_len * score_flops_per_token_per_position(layer.attention)
    return scores / (MATMUL_FLOPS_PER_PARAM * active_params(layer) + scores)


def effective_flops_per_s(bf16_tflops: float, utilization: float, speedup: float) -> float:
    return bf16_tflops * TERA * utilization * speedup

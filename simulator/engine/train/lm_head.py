"""The output projection and the loss: once per token, after the last decoder layer.

- The LM head's product, hidden → vocabulary: `2·h·V` FLOPs per token forward; backward the
  activation gradient (`2·h·V`) and, when the head is trained (full fine-tuning), its weight
  gradient (`2·h·V` more), as a decoder layer's products (compute.py, Kaplan et al. 2020
  §2.1). Activation checkpointing wraps decoder layers only (transformers checkpoints each
  `*DecoderLayer`), so the head is never recomputed. At a 151,936-token vocabulary and
  1,024-wide hidden state (Qwen3-0.6B) the head is a third of the model's products; at
  Llama 3.1 8B's 4,096 × 128,256, 7 %.
- The transformers stacks' loss: `ForCausalLMLoss` (transformers/loss/loss_utils.py) upcasts
  the BF16 logits to FP32 (`logits.float()`) and runs PyTorch's unfused cross-entropy, each
  step a pass over every logit in memory. Forward: the upcast reads 2 B and writes 4 B,
  log-softmax reads 4 B and writes 4 B (14 B a logit). Backward: the NLL gradient is written
  dense (4 B), log-softmax's backward reads it and its saved output and writes the input
  gradient (12 B), the downcast reads 4 B and writes 2 B (22 B a logit). Charged at the
  streaming bandwidth the eager elementwise work runs at (compute.eager_traffic_seconds).
  Stacks that fuse or chunk the loss (Unsloth, Liger, torchtune) move no such bytes.
- That loss's memory: at the start of its backward log-softmax's saved FP32 output (4 B a
  logit), the dense NLL gradient (4 B) and log-softmax's input gradient (4 B) are held at
  once, 12 B a logit on top of the layers' saved activations. The planner's H200 runs
  (benchmarks/results/calibration-nvidia-h200-2026-11-28-*.json) imply 11-13 B: Llama 3.1 8B
  (C002: LoRA, 2 × 4,096 tokens, checkpointing) peaked at 29.4 GiB where the layers come to
  17.0 GiB, and 8,192 × 128,256 × 12 B = 11.7 GiB more gives 28.7.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulator.engine.model.config import ModelShape
from simulator.engine.train.compute import MATMUL_FLOPS_PER_PARAM, eager_traffic_seconds
from simulator.engine.units import GIB

HF_LOSS_FORWARD_BYTES_PER_LOGIT = 2 + 4 + 4 + 4
HF_LOSS_BACKWARD_BYTES_PER_LOGIT = 4 + (4 + 4 + 4) + (4 + 2)
HF_LOSS_HELD_BYTES_PER_LOGIT = 4 + 4 + 4


def head_flops_per_token(model: ModelShape, trained: bool) -> tuple[float, float]:
    """(forward, backward) FLOPs of the LM head for one token."""
    product = MATMUL_FLOPS_PER_PARAM * model.hidden_size * model.vocab_size
    return float(product), float(product * (2 if trained else 1))


def loss_bytes_per_token(model: ModelShape, unfused: bool) -> tuple[float, float]:
    """(forward, backward) bytes the loss moves for one token: the unfused FP32
    cross-entropy's over every logit, or none."""
    if not unfused:
        return 0.0, 0.0
    return (
        float(HF_LOSS_FORWARD_BYTES_PER_LOGIT * model.vocab_size),
        float(HF_LOSS_BACKWARD_BYTES_PER_LOGIT * model.vocab_size),
    )


def head_seconds(
    model: ModelShape,
    *,
    trained: bool,
    unfused_loss: bool,
    tokens: Any,
    flops_per_s: Any,
    mem_gbps: Any,
) -> tuple[Any, Any]:
    """(forward, backward) seconds of the head and the loss for `tokens` tokens (floats or
    NumPy arrays alike); the loss's bytes count only where the bandwidth is known."""
    fwd_flops, bwd_flops = head_flops_per_token(model, trained)
    fwd_bytes, bwd_bytes = loss_bytes_per_token(model, unfused_loss)
    forward = tokens * fwd_flops / flops_per_s
    backward = tokens * bwd_flops / flops_per_s
    if mem_gbps is not None and (fwd_bytes or bwd_bytes):
        forward = forward + _known(eager_traffic_seconds(fwd_bytes, tokens, mem_gbps))
        backward = backward + _known(eager_traffic_seconds(bwd_bytes, tokens, mem_gbps))
    return forward, backward


def _known(seconds: Any) -> Any:
    """0 where a GPU's bandwidth is unknown (NaN in a sweep's arrays)."""
    return np.where(np.isnan(seconds), 0.0, seconds) if isinstance(seconds, np.ndarray) else seconds


def loss_gib_per_sequence(model: ModelShape, seq_len: int, unfused: bool) -> float:
    """GiB the unfused loss holds for one sequence at its peak (none when fused)."""
    if not unfused:
        return 0.0
    return seq_len * model.vocab_size * HF_LOSS_HELD_BYTES_PER_LOGIT / GIB

"""FLOPs and seconds of one layer (reference-model.md §5), and refined mode's LoRA-aware
backward (`backward_flops_per_sequence`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from simulator.engine.costs import ZERO, Cost, CostRules
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


def score_pairs_of(seq_len: int, score_pairs: float | None) -> float:
    """Query–key pairs the attention scores: §5's whole S × S square unless a count is given
    (refined mode's causal one, `ModelShape.attended_pairs(0, S)`)."""
    return float(seq_len * seq_len) if score_pairs is None else score_pairs


def forward_flops_per_sequence(
    layer: LayerShape, seq_len: int, score_pairs: float | None = None
) -> float:
    """§5 for B = 1: 1.05·[2·S·active_params + pairs·(4·nh·d)], pairs = S² unless given;
    linear in B, so × B for B."""
    matmuls = MATMUL_FLOPS_PER_PARAM * seq_len * active_params(layer)
    per_pair = score_flops_per_token_per_position(layer.attention)
    return FLOP_OVERHEAD * (matmuls + score_pairs_of(seq_len, score_pairs) * per_pair)


def train_flops_per_sequence(layer: LayerShape, seq_len: int) -> float:
    return TRAIN_PASSES * forward_flops_per_sequence(layer, seq_len)


@dataclass(frozen=True, slots=True, kw_only=True)
class LayerPass:
    """What a backward rule sees: one layer, one sequence. `lora_params` None: every weight is
    trained; a count: LoRA adapters of that many weights on a frozen base."""

    layer: LayerShape
    seq_len: int
    lora_params: int | None
    checkpointing: bool
    score_pairs: float | None = None  # None: §5's S²

    @property
    def matmul_flops(self) -> float:
        return MATMUL_FLOPS_PER_PARAM * self.seq_len * active_params(self.layer)

    @property
    def score_flops(self) -> float:
        per_pair = score_flops_per_token_per_position(self.layer.attention)
        return score_pairs_of(self.seq_len, self.score_pairs) * per_pair

    @property
    def adapter_flops(self) -> float:
        return float(MATMUL_FLOPS_PER_PARAM * self.seq_len * (self.lora_params or 0))


# The backward of one layer for one sequence, rule by rule (FLOP_OVERHEAD on each, as §5
# puts it on the forward).
BACKWARD_RULES: CostRules[LayerPass] = CostRules("backward")


@BACKWARD_RULES.register("activation_grads")
def activation_grads(x: LayerPass) -> Cost:
    """dX = dY·Wᵀ through every matmul, base and adapters alike."""
    return Cost(flops=FLOP_OVERHEAD * ACTIVATION_GRAD_PASSES * (x.matmul_flops + x.adapter_flops))


@BACKWARD_RULES.register("weight_grads")
def weight_grads(x: LayerPass) -> Cost:
    """dW = Xᵀ·dY for the trained weights only: the adapters under LoRA (the base is
    frozen), every weight otherwise."""
    trained = x.matmul_flops if x.lora_params is None else x.adapter_flops
    return Cost(flops=FLOP_OVERHEAD * WEIGHT_GRAD_PASSES * trained)


@BACKWARD_RULES.register("score_grads")
def score_grads(x: LayerPass) -> Cost:
    """QKᵀ and score·V multiply two activations: both need gradients."""
    return Cost(flops=FLOP_OVERHEAD * SCORE_BACKWARD_PASSES * x.score_flops)


@BACKWARD_RULES.register("checkpoint_recompute")
def checkpoint_recompute(x: LayerPass) -> Cost:
    """With activation checkpointing the layer's forward (adapters included) runs again."""
    if not x.checkpointing:
        return ZERO
    return Cost(flops=FLOP_OVERHEAD * (x.matmul_flops + x.score_flops + x.adapter_flops))


def backward_flops_per_sequence(
    layer: LayerShape,
    seq_len: int,
    *,
    lora_params: int | None,
    checkpointing: bool,
    score_pairs: float | None = None,
) -> float:
    """Backward FLOPs of one layer for one sequence, plus the checkpoint's recomputed forward
    (`BACKWARD_RULES`). Without LoRA this is §5's 2 × forward (+ 1 × to recompute); LoRA on a
    frozen base needs dX only for the base, 1 × its forward."""
    inputs = LayerPass(
        layer=layer,
        seq_len=seq_len,
        lora_params=lora_params,
        checkpointing=checkpointing,
        score_pairs=score_pairs,
    )
    return BACKWARD_RULES.total(inputs).flops


def lora_forward_flops_per_sequence(
    layer: LayerShape, seq_len: int, lora_params: int, score_pairs: float | None = None
) -> float:
    """The forward with the adapters' own matmuls (2 FLOPs per adapter weight per token)."""
    adapters = FLOP_OVERHEAD * MATMUL_FLOPS_PER_PARAM * seq_len * lora_params
    return forward_flops_per_sequence(layer, seq_len, score_pairs) + adapters


def score_flops_fraction(layer: LayerShape, seq_len: int) -> float:
    """Share of a layer's FLOPs in QKᵀ and score·V (seed: 4.7 % for GLM-4.7 at S = 1024)."""
    scores = seq_len * score_flops_per_token_per_position(layer.attention)
    return scores / (MATMUL_FLOPS_PER_PARAM * active_params(layer) + scores)


# QLoRA (bitsandbytes' NF4, LLM.int8) keeps the frozen base quantized and dequantizes each
# weight to BF16 every time a matmul uses it (bnb.functional.dequantize_4bit before the GEMM):
# the forward, the backward's dX = dY·Wᵀ, and the checkpoint's recomputed forward. Each use
# reads the stored weight and writes its BF16 copy (2 bytes a weight) once; the GEMM reading
# that copy is the matmul a BF16 base pays anyway. A streaming kernel: this share of the
# datasheet bandwidth (STREAM-like GPU kernels sustain 80–90 %; docs/model.md, "QLoRA").
DEQUANT_BANDWIDTH_EFFICIENCY = 0.8
BF16_BYTES_PER_PARAM = 2


@dataclass(frozen=True, slots=True, kw_only=True)
class EagerTraffic:
    """Bytes a training stack's unfused (eager) elementwise kernels move per token per layer,
    apart from its GEMMs and attention: the layer's own kernels per element of its projection
    width (Σ in + out features of q, k, v, o, gate, up, down), and its adapters' per element
    of the adapted projections' width, plus a part that grows with the rank. Each in the
    forward and in the backward (without the recomputed forward, which repeats the forward)."""

    layer_forward_bytes: float
    layer_backward_bytes: float
    adapter_forward_bytes: float = 0.0
    adapter_backward_bytes: float = 0.0
    adapter_forward_bytes_per_rank: float = 0.0
    adapter_backward_bytes_per_rank: float = 0.0

    def forward_bytes(self, layer_width: Any, adapter_width: Any, rank: int) -> Any:
        per_adapter = self.adapter_forward_bytes + rank * self.adapter_forward_bytes_per_rank
        return self.layer_forward_bytes * layer_width + per_adapter * adapter_width

    def backward_bytes(self, layer_width: Any, adapter_width: Any, rank: int) -> Any:
        per_adapter = self.adapter_backward_bytes + rank * self.adapter_backward_bytes_per_rank
        return self.layer_backward_bytes * layer_width + per_adapter * adapter_width


# transformers' decoder layers run eagerly: RMSNorm in FP32, rotary, SiLU·up and the residual
# adds each read and write whole activations. PEFT keeps its adapters in FP32
# (LoraConfig(autocast_adapter_dtype=True), its default): each adapter casts its input to FP32
# and runs its two skinny GEMMs (memory-bound: a part that grows with the rank), its scaling
# and its add in FP32. Measured by kernel profile of one decoder layer at 2 × 4096 tokens on an
# H200, as kernel time × streaming bandwidth (DEQUANT_BANDWIDTH_EFFICIENCY × datasheet), per
# width element: frozen layer alone (Llama-3.2-1B, 3.1-8B) 10.4 and 11.4 B forward, 22.4 and
# 23.1 B backward; the adapters on all seven projections at r = 16 and r = 64 add 26–28 B
# and 33–35 B at r = 16, 33–34 B and 38–40 B at r = 64 (benchmarks/results/
# calibration-nvidia-h200-2026-11-28-d.json and -e.json; docs/benchmarks.md, "Training
# kernels on an H200").
HF_EAGER_TRAFFIC = EagerTraffic(layer_forward_bytes=10.9, layer_backward_bytes=22.8)
PEFT_EAGER_TRAFFIC = EagerTraffic(
    layer_forward_bytes=10.9,
    layer_backward_bytes=22.8,
    adapter_forward_bytes=26.1,
    adapter_backward_bytes=33.5,
    adapter_forward_bytes_per_rank=0.119,
    adapter_backward_bytes_per_rank=0.071,
)


def eager_traffic_seconds(moved_bytes: Any, tokens: Any, mem_gbps: Any) -> Any:
    """Seconds of `tokens` × `moved_bytes` (per token) at streaming bandwidth; floats or NumPy
    arrays alike."""
    return tokens * moved_bytes / (mem_gbps * 1e9 * DEQUANT_BANDWIDTH_EFFICIENCY)


def forward_passes(checkpointing: bool) -> int:
    """Forward passes of each layer per micro-batch: the forward, and with checkpointing the
    backward's recompute of it."""
    return 1 + (1 if checkpointing else 0)


def dequant_uses(checkpointing: bool) -> tuple[int, int]:
    """(uses in the forward, uses in the backward) of each quantized base weight per micro-batch."""
    return 1, 1 + (1 if checkpointing else 0)


def dequant_seconds(stored_bytes: Any, params: Any, mem_gbps: Any) -> Any:
    """One dequantization of a layer: read its stored bytes, write BF16; floats or arrays."""
    written = BF16_BYTES_PER_PARAM * params
    return (stored_bytes + written) / (mem_gbps * 1e9 * DEQUANT_BANDWIDTH_EFFICIENCY)


def effective_flops_per_s(bf16_tflops: Any, utilization: Any, speedup: float) -> Any:
    """FLOPs per second the GPU sustains; floats or NumPy arrays alike."""
    return bf16_tflops * TERA * utilization * speedup

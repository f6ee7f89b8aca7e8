"""FP8 training: the linear layers' GEMMs on FP8 tensor cores, attention in BF16.

Transformer Engine's `fp8_autocast` and torchao's `Float8Linear` run the forward GEMM, the
activation gradient and the weight gradient of every linear layer in FP8 (E4M3 operands, FP32
accumulate) and keep the master weights, the optimizer and the attention kernels (FlashAttention)
in BF16. A training step's FLOPs split in two: the linear layers' at the GPU's dense FP8 peak,
the attention scores' (QKᵀ, score·V) at its BF16 peak; the same runtime efficiency multiplies
both (the Amdahl rule seed 000 uses for NVFP4), over the share of the step's *time* the linear
GEMMs take: a stack whose utilization is below what a large GEMM reaches spends the rest of
its step outside GEMMs (norms, activations, launches, exposed communication), which FP8 does
not shorten. The casts to FP8 (an amax and a scaled copy of each GEMM input) are streaming
kernels fused into the norms and activations by both stacks and are not counted
(docs/model.md, "FP8 training").
"""

from __future__ import annotations

from dataclasses import replace

from simulator.engine.errors import EngineInputError
from simulator.engine.formats.training import low_precision_speedup
from simulator.engine.hardware import GpuSpec
from simulator.engine.model.config import ModelShape
from simulator.engine.model.layers import (
    LayerShape,
    active_params,
    dense_layer,
    is_dense_layer,
    moe_layer,
    reference_layer,
    score_flops_per_token_per_position,
)
from simulator.engine.train.compute import (
    ACTIVATION_GRAD_PASSES,
    BACKWARD_PASSES_FULL,
    MATMUL_FLOPS_PER_PARAM,
    SCORE_BACKWARD_PASSES,
    forward_passes,
    score_pairs_of,
)
from simulator.engine.train.workload import MODE_REFERENCE, TrainWorkload


def _layer_shapes(model: ModelShape, mode: str) -> list[LayerShape]:
    if mode == MODE_REFERENCE:
        return [reference_layer(model)] * model.num_layers
    return [
        dense_layer(model) if is_dense_layer(model, index) else moe_layer(model)
        for index in range(model.num_layers)
    ]


def score_share_of_step(workload: TrainWorkload) -> float:
    """The share of a training step's FLOPs in attention scores: Σ over layers of the scores'
    FLOPs × (forward passes + 2 backward) over the same plus the matmuls' × (forward passes +
    1 backward with a frozen base, 2 with every weight trained). Refined mode counts the causal
    pairs (`attended_pairs`), reference mode §5's S²."""
    model, s = workload.model, workload.seq_len
    causal = None if workload.mode == MODE_REFERENCE else model.attended_pairs(0, s)
    pairs = score_pairs_of(s, causal)
    forward = forward_passes(workload.activation_checkpointing)
    matmul_backward = BACKWARD_PASSES_FULL if workload.full_finetune else ACTIVATION_GRAD_PASSES
    scores = matmuls = 0.0
    for shape in _layer_shapes(model, workload.mode):
        scores += pairs * score_flops_per_token_per_position(shape.attention)
        matmuls += MATMUL_FLOPS_PER_PARAM * s * active_params(shape)
    score_work = scores * (forward + SCORE_BACKWARD_PASSES)
    return score_work / (score_work + matmuls * (forward + matmul_backward))


def fp8_kernel_speedup(gpu: GpuSpec) -> float:
    """What the GPU's FP8 matmuls sustain over its BF16 ones (measured: 1.77 on an H100 SXM,
    1.83 on an H200; else the datasheets' 2 on Ada, Hopper, Blackwell and CDNA 3);
    `EngineInputError` on a GPU with no FP8 tensor cores."""
    fp8 = gpu.fp8_sustained()  # None exactly when the GPU has no FP8 figure
    if fp8 is None:
        raise EngineInputError(
            field="workload.quant",
            message=f"FP8 training needs FP8 tensor cores (Ada, Hopper, Blackwell, CDNA 3): "
            f"{gpu.name} has no dense FP8 figure (the device table's or hardware.gpu.fp8_tflops)",
        )
    return fp8 / gpu.bf16_sustained()


def gemm_time_share(workload: TrainWorkload) -> float:
    """The share of a step's time in the linear layers' GEMMs: their FLOP share, scaled by
    the stack's utilization (its pace over what a large GEMM sustains on the GPU,
    `GpuSpec.bf16_sustained`), at most their FLOP share (a stack at that pace spends its step
    in its GEMMs)."""
    linear = 1.0 - score_share_of_step(workload)
    return linear * min(1.0, workload.utilization)


def with_gemm_precision(workload: TrainWorkload, gpu: GpuSpec) -> TrainWorkload:
    """`workload` with its format's compute speedup on `gpu`: FP8 GEMMs get the Amdahl
    speedup of `fp8_kernel_speedup` over the step time they take (`gemm_time_share`); other
    formats are unchanged."""
    if not workload.quant.fp8_gemms:
        return workload
    slow_share = 1.0 - gemm_time_share(workload)
    speedup = low_precision_speedup(slow_share, fp8_kernel_speedup(gpu))
    return replace(workload, quant=replace(workload.quant, compute_speedup=speedup))

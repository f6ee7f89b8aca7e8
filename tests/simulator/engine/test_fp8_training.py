"""FP8 training: the linear layers' GEMMs at the GPU's FP8 peak, attention scores in BF16
(train/precision.py), each number derived from named quantities."""

from __future__ import annotations

from dataclasses import replace

import pytest

from simulator.engine.errors import EngineInputError
from simulator.engine.formats.training import quant_format
from simulator.engine.model.registry import load_model
from simulator.engine.simulate import simulate
from simulator.engine.train.precision import score_share_of_step, with_gemm_precision
from simulator.engine.train.workload import MODE_REFERENCE
from simulator.engine.workload import SimulationRequest
from tests.simulator.engine.peft_workloads import gpu, h200, peft_workload

LLAMA_8B = load_model("llama-3.1-8b")
# Llama 3.1 8B's config: hidden 4096, 32 query heads and 8 KV heads of 128, MLP 14336.
HIDDEN, HEADS, KV_HEADS, HEAD_DIM, MLP = 4096, 32, 8, 128, 14336
LINEAR_PARAMS = (
    HIDDEN * HEADS * HEAD_DIM * 2  # q and o
    + HIDDEN * KV_HEADS * HEAD_DIM * 2  # k and v
    + 3 * HIDDEN * MLP  # gate, up, down
)
SCORE_FLOPS_PER_PAIR = 2 * HEADS * (HEAD_DIM + HEAD_DIM)  # QKᵀ and score·V


def test_the_score_share_counts_each_pass_of_a_lora_step() -> None:
    """Checkpointed LoRA: two forwards (one recomputed), the base's backward dX only (1 ×
    the matmuls), the scores' backward 2 × their forward; causal pairs S(S+1)/2."""
    s = 4096
    workload = peft_workload(LLAMA_8B, seq_len=s, activation_checkpointing=True)
    scores = s * (s + 1) / 2 * SCORE_FLOPS_PER_PAIR * (2 + 2)
    matmuls = 2 * s * LINEAR_PARAMS * (2 + 1)
    assert score_share_of_step(workload) == pytest.approx(scores / (scores + matmuls))


def test_full_training_backs_every_matmul_twice_and_reference_mode_scores_the_square() -> None:
    s = 1024
    full = peft_workload(LLAMA_8B, seq_len=s, full_finetune=True)  # no checkpointing
    scores = s * (s + 1) / 2 * SCORE_FLOPS_PER_PAIR * (1 + 2)
    matmuls = 2 * s * LINEAR_PARAMS * (1 + 2)
    assert score_share_of_step(full) == pytest.approx(scores / (scores + matmuls))
    reference = replace(full, mode=MODE_REFERENCE, full_finetune=False)
    square = s * s * SCORE_FLOPS_PER_PAIR * (1 + 2)
    frozen = 2 * s * LINEAR_PARAMS * (1 + 1)
    assert score_share_of_step(reference) == pytest.approx(square / (square + frozen))


def test_fp8_speeds_up_the_linear_share_by_the_gpus_sustained_fp8_over_bf16() -> None:
    """H200: its matmuls sustain 1,453.4 FP8 and 794.5 BF16 TFLOPS (stas00's MAMF table, the
    device table's sustained figures), 1.83, below the datasheets' 1,979 / 989 = 2; at a
    utilization of 1 (the sustained pace) Amdahl over the score share."""
    h200_gpu = h200().require_gpu()
    assert (h200_gpu.fp8_sustained_tflops, h200_gpu.bf16_sustained_tflops) == (1453.4, 794.5)
    ratio = 1453.4 / 794.5
    workload = peft_workload(
        LLAMA_8B, quant=quant_format("FP8"), activation_checkpointing=True, utilization=1.0
    )
    share = score_share_of_step(workload)
    speedup = with_gemm_precision(workload, h200_gpu).quant.compute_speedup
    assert speedup == pytest.approx(1 / (share + (1 - share) / ratio))
    assert 1.0 < speedup < ratio
    bf16 = peft_workload(LLAMA_8B, activation_checkpointing=True)
    assert with_gemm_precision(bf16, h200_gpu) == bf16


def test_a_stack_below_a_large_gemms_pace_gains_only_on_its_gemm_time() -> None:
    """At half the pace the H200's large BF16 matmuls sustain (utilization 0.5), half the
    step's linear FLOP time is GEMM time; the rest keeps its pace."""
    h200_gpu = h200().require_gpu()
    ratio = 1453.4 / 794.5
    workload = peft_workload(
        LLAMA_8B, quant=quant_format("FP8"), activation_checkpointing=True, utilization=0.5
    )
    gemm = (1 - score_share_of_step(workload)) * 0.5
    speedup = with_gemm_precision(workload, h200_gpu).quant.compute_speedup
    assert speedup == pytest.approx(1 / (1 - gemm + gemm / ratio))
    fast = replace(workload, utilization=1.0)  # at a GEMM's pace: FLOP shares
    assert with_gemm_precision(fast, h200_gpu).quant.compute_speedup > speedup


def test_an_fp8_peak_without_a_measurement_is_sustained_at_the_gpus_bf16_share() -> None:
    """The RTX 4090 has no FP8 matmul measurement: its FP8 peak (330.3) at the share of its
    BF16 peak (165) its BF16 matmuls sustain (167.885), so the kernel speedup is the
    datasheets' ratio."""
    rtx_4090 = gpu("rtx-4090")
    assert rtx_4090.fp8_sustained() == pytest.approx(330.3 * 167.885 / 165)
    workload = peft_workload(LLAMA_8B, quant=quant_format("FP8"), utilization=1.0)
    share = score_share_of_step(workload)
    speedup = with_gemm_precision(workload, rtx_4090).quant.compute_speedup
    assert speedup == pytest.approx(1 / (share + (1 - share) / (330.3 / 165)))


def test_an_fp8_run_is_faster_than_bf16_by_at_most_the_speedup() -> None:
    """Same weights in memory (BF16 masters), same split and micro-batch: the compute-bound
    step shrinks by the speedup, the step's other costs do not."""
    fp8 = peft_workload(LLAMA_8B, quant=quant_format("FP8"), activation_checkpointing=True)
    bf16 = peft_workload(LLAMA_8B, activation_checkpointing=True)
    fast = simulate(SimulationRequest(workload=fp8, hardware=h200())).best
    slow = simulate(SimulationRequest(workload=bf16, hardware=h200())).best
    speedup = with_gemm_precision(fp8, h200().require_gpu()).quant.compute_speedup
    assert fast.micro_batch == slow.micro_batch
    assert slow.tokens_per_s < fast.tokens_per_s <= slow.tokens_per_s * speedup * (1 + 1e-9)


def test_fp8_training_on_a_gpu_without_fp8_tensor_cores_is_refused() -> None:
    """Ampere has no FP8 tensor cores (the device table gives the RTX 3090 no FP8 figure):
    an error on workload.quant, never a silent BF16 run."""
    rtx_3090 = gpu("rtx-3090")
    assert rtx_3090.fp8_tflops is None
    workload = peft_workload(LLAMA_8B, quant=quant_format("FP8"), max_micro_batch=1)
    hardware = replace(h200(), gpu=rtx_3090)
    with pytest.raises(EngineInputError) as error:
        simulate(SimulationRequest(workload=workload, hardware=hardware))
    assert error.value.field == "workload.quant"
    assert "FP8 tensor cores" in error.value.message

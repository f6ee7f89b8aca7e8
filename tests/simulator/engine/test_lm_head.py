"""The LM head and the loss (train/lm_head.py): the head's products once per token after the
last layer, its weight gradient only when trained, the transformers stacks' unfused FP32 loss
over every logit at streaming bandwidth; the rankings' vectorised path gives what the scalar
path gives."""

from __future__ import annotations

import pytest

from simulator.engine import SimulationRequest
from simulator.engine.formats.training import quant_format
from simulator.engine.model.config import ModelShape
from simulator.engine.model.registry import load_model
from simulator.engine.simulate import simulate
from simulator.engine.train.batch import best_splits
from simulator.engine.train.compute import DEQUANT_BANDWIDTH_EFFICIENCY
from simulator.engine.train.data_parallel import data_parallel_split
from simulator.engine.train.lm_head import (
    head_flops_per_token,
    head_seconds,
    loss_gib_per_sequence,
)
from simulator.engine.train.refined import (
    ALL_REFINEMENTS,
    Refinements,
    head_s,
    refined_curve,
    sequence_gib,
    stage_layers,
    without,
)
from simulator.engine.train.workload import DDP, TrainWorkload
from tests.simulator.engine.peft_workloads import h200, peft_workload

QWEN3_06B = load_model("qwen3-0.6b")


def _workload(model: ModelShape = QWEN3_06B, **changes: object) -> TrainWorkload:
    return peft_workload(model, **changes)


def test_the_heads_products_are_two_flops_per_hidden_times_vocabulary_entry() -> None:
    """Qwen3-0.6B: 1,024 wide, 151,936 tokens; backward the input gradient, and the weight
    gradient only when the head is trained."""
    product = 2 * 1024 * 151936
    assert head_flops_per_token(QWEN3_06B, trained=False) == (product, product)
    assert head_flops_per_token(QWEN3_06B, trained=True) == (product, 2 * product)


def test_the_unfused_loss_moves_14_and_22_bytes_a_logit() -> None:
    tokens, flops_per_s, mem_gbps = 8192, 500e12, 4800.0
    forward, backward = head_seconds(
        QWEN3_06B, trained=False, unfused_loss=True, tokens=tokens, flops_per_s=flops_per_s,
        mem_gbps=mem_gbps,
    )  # fmt: skip
    gemm = tokens * 2 * 1024 * 151936 / flops_per_s
    stream = mem_gbps * 1e9 * DEQUANT_BANDWIDTH_EFFICIENCY
    assert forward == pytest.approx(gemm + tokens * 14 * 151936 / stream)
    assert backward == pytest.approx(gemm + tokens * 22 * 151936 / stream)
    fused = head_seconds(
        QWEN3_06B, trained=False, unfused_loss=False, tokens=tokens, flops_per_s=flops_per_s,
        mem_gbps=mem_gbps,
    )  # fmt: skip
    assert fused == pytest.approx((gemm, gemm))


def test_only_the_transformers_stacks_pay_the_unfused_loss() -> None:
    eager, fused = _workload(), _workload(eager_traffic=None)
    with_loss = sum(head_s(eager, ALL_REFINEMENTS, 8192, 500e12, 4800.0))
    without_loss = sum(head_s(fused, ALL_REFINEMENTS, 8192, 500e12, 4800.0))
    assert with_loss > without_loss > 0
    assert head_s(eager, without(ALL_REFINEMENTS, "lm_head"), 8192, 500e12, 4800.0) == (0.0, 0.0)


def test_the_head_slows_a_small_vocabulary_heavy_model_most() -> None:
    """The head's share grows as hidden width shrinks against the vocabulary: Qwen3-0.6B loses
    more of its speed to it than Llama 3.1 8B."""

    def slowdown(model: str) -> float:
        workload = _workload(model=load_model(model))

        def best(refine: Refinements) -> float:
            return max(row.tokens_per_s for row in refined_curve(workload, h200(), refine))

        return best(without(ALL_REFINEMENTS, "lm_head")) / best(ALL_REFINEMENTS)

    small, large = slowdown("qwen3-0.6b"), slowdown("llama-3.1-8b")
    assert large > 1.0
    assert small > large


def test_data_parallel_adds_the_head_to_each_micro_batch() -> None:
    workload = _workload(parallelism=DDP, full_finetune=True)
    with_head = data_parallel_split(workload, h200(2))
    plain = data_parallel_split(workload, h200(2), without(ALL_REFINEMENTS, "lm_head"))
    assert with_head is not None
    assert plain is not None
    gpu = h200().require_gpu()
    tokens = with_head.micro_batch * workload.seq_len
    rate = ALL_REFINEMENTS.bf16_tflops(gpu) * 1e12  # the H200's sustained matmul rate
    flops_per_s = rate * ALL_REFINEMENTS.utilization(workload.utilization, tokens)
    expected = sum(head_s(workload, ALL_REFINEMENTS, tokens, flops_per_s, gpu.mem_gbps))
    assert with_head.compute_s - plain.compute_s == pytest.approx(
        with_head.micro_batches * expected
    )


@pytest.mark.parametrize("checkpointing", [False, True])
def test_the_vectorised_path_gives_what_simulate_gives(checkpointing: bool) -> None:
    workload = _workload(activation_checkpointing=checkpointing, quant=quant_format("NF4"))
    grid = [h200(count) for count in (1, 2)]
    expected = [simulate(SimulationRequest(workload=workload, hardware=hw)).best for hw in grid]
    assert best_splits(workload, grid) == expected


def test_the_unfused_loss_holds_twelve_bytes_a_logit_per_sequence() -> None:
    """Log-softmax's saved FP32 output, the dense NLL gradient and log-softmax's input
    gradient, at once at the start of the loss's backward."""
    # with checkpointing both keep the same activations (one layer's working set)
    eager = _workload(activation_checkpointing=True)
    fused = _workload(activation_checkpointing=True, eager_traffic=None)
    plans = stage_layers(eager, 1, ALL_REFINEMENTS)
    logits_gib = 4096 * 151936 * 12 / 1024**3
    assert loss_gib_per_sequence(QWEN3_06B, 4096, unfused=True) == pytest.approx(logits_gib)
    assert sequence_gib(plans, eager, ALL_REFINEMENTS) == pytest.approx(
        sequence_gib(plans, fused, ALL_REFINEMENTS) + logits_gib
    )
    assert sequence_gib(plans, eager, without(ALL_REFINEMENTS, "lm_head")) == pytest.approx(
        sequence_gib(plans, fused, ALL_REFINEMENTS)
    )

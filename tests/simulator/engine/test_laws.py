"""Laws every configuration obeys (Hypothesis), in reference mode."""

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.engine.hardware import GpuSpec, Hardware
from simulator.engine.train.reference import (
    TIE_TOLERANCE,
    evaluate_split,
    optimal_split,
    reference_costs,
    reference_curve,
)

from .seed_setups import glm_workload

ROUNDING = 1e-12  # compute-bound splits tie exactly in theory, to the last bit in practice
WORKLOAD = glm_workload()
COSTS = reference_costs(WORKLOAD)

hardware = st.builds(
    lambda vram, tflops, pcie, nvme, pinned, gpus: Hardware(
        gpu=GpuSpec(name="h", vram_gib=vram, bf16_tflops=tflops, pcie_gbps=pcie),
        gpu_count=gpus,
        nvme_gbps=nvme,
        pinned_gib=pinned,
    ),
    st.floats(16, 200),
    st.floats(20, 3000),
    st.floats(2, 128),
    st.floats(0.5, 100),
    st.sampled_from([0.0, 26.0, 56.0, 120.0, 500.0]),
    st.sampled_from([1, 2, 4, 8]),
)


def best_tokens_per_s(hw: Hardware) -> float:
    curve = reference_curve(COSTS, WORKLOAD, hw)
    return max((row.tokens_per_s for row in curve), default=0.0)


@settings(max_examples=150, deadline=None)
@given(hardware, st.floats(1.0, 64.0))
def test_more_vram_never_lowers_the_best_tokens_per_s(hw, extra_gib):
    bigger = replace(hw, gpu=replace(hw.gpu, vram_gib=hw.gpu.vram_gib + extra_gib))
    assert best_tokens_per_s(bigger) >= best_tokens_per_s(hw) * (1 - ROUNDING)


@settings(max_examples=150, deadline=None)
@given(hardware, st.floats(1.0, 64.0))
def test_more_vram_never_lowers_the_chosen_split_beyond_the_tie_tolerance(hw, extra_gib):
    bigger = replace(hw, gpu=replace(hw.gpu, vram_gib=hw.gpu.vram_gib + extra_gib))
    before = optimal_split(reference_curve(COSTS, WORKLOAD, hw))
    after = optimal_split(reference_curve(COSTS, WORKLOAD, bigger))
    if before is not None:
        assert after is not None
        assert after.tokens_per_s >= before.tokens_per_s * (1 - TIE_TOLERANCE)


@settings(max_examples=150, deadline=None)
@given(hardware, st.integers(0, 92))
def test_doubling_bandwidth_never_raises_step_time(hw, resident):
    faster = replace(
        hw, nvme_gbps=2 * hw.nvme_gbps, gpu=replace(hw.gpu, pcie_gbps=2 * hw.gpu.pcie_gbps)
    )
    slow = evaluate_split(COSTS, WORKLOAD, hw, min(resident, -(-92 // hw.gpu_count)))
    fast = evaluate_split(COSTS, WORKLOAD, faster, min(resident, -(-92 // hw.gpu_count)))
    if slow is not None:
        assert fast is not None
        assert fast.step_s <= slow.step_s * (1 + ROUNDING)


@settings(max_examples=150, deadline=None)
@given(hardware)
def test_doubling_tflops_never_lowers_the_best_tokens_per_s(hw):
    faster = replace(hw, gpu=replace(hw.gpu, bf16_tflops=2 * hw.gpu.bf16_tflops))
    assert best_tokens_per_s(faster) >= best_tokens_per_s(hw) * (1 - ROUNDING)


@settings(max_examples=100, deadline=None)
@given(hardware)
def test_step_time_is_at_least_compute_and_at_least_transfer(hw):
    for row in reference_curve(COSTS, WORKLOAD, hw):
        assert row.step_s >= max(row.compute_s, row.transfer_s)

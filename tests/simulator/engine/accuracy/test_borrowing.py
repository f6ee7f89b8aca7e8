"""A (runtime, device class) with no rows of its own borrows what transfers: its parent
family's constants, or on unified memory its own GPU kernels' bandwidth and per-layer cost."""

import pytest

from simulator.engine.calibration.efficiency import (
    IK_LLAMA_CPP,
    LLAMA_CPP,
    LLAMA_CPP_METAL,
    LLAMA_CPP_VULKAN,
    Efficiency,
    RuntimeConstants,
    prior_constants,
)
from simulator.engine.serve.hardware import GPU, UNIFIED

CUDA_GPU = RuntimeConstants(
    runtime=LLAMA_CPP, device_class=GPU, bandwidth_efficiency=0.83, flops_efficiency=0.61,
    layer_overhead_s=4e-5, fitted_on=("H001",),
)  # fmt: skip
TABLE = Efficiency(entries=(CUDA_GPU,))


def test_a_gpu_runtime_on_unified_memory_borrows_its_gpu_bandwidth_but_not_its_flops() -> None:
    unified = TABLE.get(LLAMA_CPP, UNIFIED)
    prior = prior_constants(LLAMA_CPP, UNIFIED)
    assert unified.bandwidth_efficiency == CUDA_GPU.bandwidth_efficiency
    assert unified.layer_overhead_s == CUDA_GPU.layer_overhead_s
    assert unified.flops_efficiency == prior.flops_efficiency
    assert unified.fitted_on == ()
    assert "borrowed from llama.cpp on gpu" in unified.note


def test_a_child_family_on_unified_memory_borrows_through_its_parent() -> None:
    # Vulkan → llama.cpp (parent family) → llama.cpp's GPU kernels
    vulkan = TABLE.get(LLAMA_CPP_VULKAN, UNIFIED)
    assert vulkan.bandwidth_efficiency == CUDA_GPU.bandwidth_efficiency
    assert TABLE.get(IK_LLAMA_CPP, UNIFIED).bandwidth_efficiency == pytest.approx(0.83)


def test_metal_has_no_gpu_class_to_borrow_from() -> None:
    assert TABLE.get(LLAMA_CPP_METAL, UNIFIED) == prior_constants(LLAMA_CPP_METAL, UNIFIED)


def test_rows_of_its_own_win_over_borrowing() -> None:
    own = RuntimeConstants(
        runtime=LLAMA_CPP, device_class=UNIFIED, bandwidth_efficiency=0.7,
        flops_efficiency=0.3, layer_overhead_s=0.0, fitted_on=("X001",),
    )  # fmt: skip
    assert Efficiency(entries=(CUDA_GPU, own)).get(LLAMA_CPP, UNIFIED) == own


def test_with_nothing_fitted_anywhere_the_prior_stands() -> None:
    assert Efficiency(entries=()).get(LLAMA_CPP, UNIFIED) == prior_constants(LLAMA_CPP, UNIFIED)

"""Device peaks by kernel path: each runtime's GEMMs run at the datasheet peak of the path it
really takes (FP16 with FP16 accumulate, BF16 with FP32 accumulate, FP8)."""

import pytest

from simulator.engine.calibration.efficiency import (
    IK_LLAMA_CPP,
    LLAMA_CPP,
    LLAMA_CPP_ROCM,
    LLAMA_CPP_VULKAN,
    SGLANG,
    TENSORRT_LLM,
    VLLM,
    tensor_path,
)
from simulator.engine.devices import Gpu, find_device
from simulator.engine.hardware import (
    BF16_ACC32,
    FP8,
    FP16_ACC16,
    FP16_VECTOR,
    GpuSpec,
    Hardware,
    gpu_spec,
)
from simulator.engine.serve.hardware import GPU
from simulator.engine.serve.inference import devices_for
from simulator.engine.units import TERA

GEFORCE = GpuSpec(name="g", vram_gib=24.0, bf16_tflops=165.0, pcie_gbps=25.0, mem_gbps=1000.0,
                  fp16_tflops=330.0, fp8_tflops=660.0)  # fmt: skip
AMPERE = GpuSpec(name="a", vram_gib=24.0, bf16_tflops=71.0, pcie_gbps=25.0, mem_gbps=936.0)


def _peak(gpu: GpuSpec, runtime: str, weights: str) -> float:
    devices = devices_for(Hardware(gpu=gpu), GPU, runtime=runtime, weights=weights)
    return devices[GPU].peak_flops / TERA


@pytest.mark.parametrize(
    ("runtime", "weights", "path"),
    [
        (LLAMA_CPP, "Q4_K", FP16_ACC16),
        (IK_LLAMA_CPP, "F16", FP16_ACC16),
        (LLAMA_CPP, "FP8", FP16_ACC16),  # ggml has no FP8 GEMM: dequantized to F16
        (VLLM, "BF16", BF16_ACC32),
        (VLLM, "FP8", FP8),
        (SGLANG, "FP8", FP8),
        (SGLANG, "AWQ", BF16_ACC32),
        (TENSORRT_LLM, "FP8", FP8),
        (LLAMA_CPP_ROCM, "Q4_K", FP16_VECTOR),
        (LLAMA_CPP_VULKAN, "Q4_K", FP16_ACC16),
    ],
)
def test_each_runtime_declares_the_path_its_gemms_take(
    runtime: str, weights: str, path: str
) -> None:
    assert tensor_path(runtime, weights) == path


def test_the_gpu_runs_at_the_peak_of_the_path() -> None:
    assert _peak(GEFORCE, LLAMA_CPP, "Q4_K") == pytest.approx(330.0)
    assert _peak(GEFORCE, VLLM, "BF16") == pytest.approx(165.0)
    assert _peak(GEFORCE, VLLM, "FP8") == pytest.approx(660.0)


def test_a_gpu_without_a_figure_for_the_path_falls_back_to_its_bf16_peak() -> None:
    # no FP16-accumulate figure: the FP32-accumulate one (the documented prior); no FP8
    # tensor cores: vLLM's weight-only FP8 kernels compute in BF16
    assert _peak(AMPERE, LLAMA_CPP, "Q4_K") == pytest.approx(71.0)
    assert _peak(AMPERE, VLLM, "FP8") == pytest.approx(71.0)
    assert AMPERE.tensor_tflops(FP8) == AMPERE.tensor_tflops(BF16_ACC32)


def test_rdna4_prompts_run_on_the_vector_units_under_rocm_and_the_matrix_units_under_vulkan() -> (
    None
):
    """The RX 9070 XT's record: 194.64 TFLOPS of dense FP16 WMMA, twice its 97.32 of vector
    FP16 (RDNA 4's AI accelerators). llama.cpp's ROCm prompts run at the vector figure, its
    Vulkan coopmat shaders at the matrix one; a GPU with no vector figure of its own (RDNA 3,
    whose dual-issue vector rate is its WMMA rate) runs both at its FP16 figure."""
    record = find_device(Gpu, "Radeon RX 9070 XT")
    assert record is not None
    rx9070xt = gpu_spec(record)
    assert rx9070xt.bf16_tflops == pytest.approx(2 * 97.32)
    assert _peak(rx9070xt, LLAMA_CPP_ROCM, "Q4_K") == pytest.approx(97.32)
    assert _peak(rx9070xt, LLAMA_CPP_VULKAN, "Q4_K") == pytest.approx(194.64)
    assert _peak(AMPERE, LLAMA_CPP_ROCM, "Q4_K") == _peak(AMPERE, LLAMA_CPP_VULKAN, "Q4_K")

"""A machine serves with its maker's llama.cpp backend unless the request names a runtime:
AMD GPUs run the ROCm constants, Intel's the SYCL ones, NVIDIA's the CUDA ones, and unified
systems Metal (Apple), CUDA (DGX Spark) or Vulkan (Strix Halo). Training refuses GPUs it has
no constants for."""

from typing import Any

import pytest

from simulator.engine import EngineInputError
from simulator.engine.calibration.efficiency import (
    LLAMA_CPP,
    LLAMA_CPP_METAL,
    LLAMA_CPP_ROCM,
    LLAMA_CPP_SYCL,
    LLAMA_CPP_VULKAN,
    load_efficiency,
)
from simulator.engine.io.hardware import gpu_to_json, parse_hardware
from simulator.engine.io.request import parse_request
from simulator.engine.serve.inference import devices_for, simulate_inference
from simulator.engine.serve.runtimes import default_runtime

STRIX = {"name": "Strix Halo", "mem_gb": 128}


@pytest.mark.parametrize(
    ("hardware", "runtime"),
    [({"gpu": "Radeon RX 7900 XTX"}, LLAMA_CPP_ROCM),
     ({"gpu": "RTX 4090"}, LLAMA_CPP),
     ({"gpu": "Arc Pro B70"}, LLAMA_CPP_SYCL),
     ({"unified": {"name": "DGX Spark", "mem_gb": 128}}, LLAMA_CPP),
     ({"unified": STRIX}, LLAMA_CPP_VULKAN),
     ({"unified": "Mac Studio M3 Ultra 512GB"}, LLAMA_CPP_METAL)],
)  # fmt: skip
def test_the_device_tables_maker_picks_the_backend(hardware: dict[str, Any], runtime: str) -> None:
    parsed = parse_hardware(hardware, kind="infer")
    assert default_runtime(parsed) == runtime
    location = "unified" if "unified" in hardware else "gpu"
    constants = load_efficiency().device_class(runtime, location)
    assert devices_for(parsed, location)[location].constants == constants


def test_a_gpu_given_by_its_figures_is_nvidias_unless_it_names_its_maker() -> None:
    figures = {"name": "my card", "vram_gb": 24, "bf16_tflops": 100, "pcie_gbps": 25,
               "mem_gbps": 900}  # fmt: skip
    assert default_runtime(parse_hardware({"gpu": figures}, kind="infer")) == LLAMA_CPP
    amd = parse_hardware({"gpu": {**figures, "maker": "AMD"}}, kind="infer")
    assert default_runtime(amd) == LLAMA_CPP_ROCM
    assert amd.gpu is not None
    assert gpu_to_json(amd.gpu)["maker"] == "AMD"
    with pytest.raises(EngineInputError) as error:
        parse_hardware({"gpu": {**figures, "maker": 3}}, kind="infer")
    assert error.value.field == "hardware.gpu.maker"


def _decode_tokens_per_s(workload: dict[str, Any]) -> float:
    body = {"workload": {"kind": "infer", "model": "llama-3.1-8b", "quant": "Q4_0", **workload},
            "hardware": {"gpu": "Radeon RX 7900 XTX", "gpu_count": 1}}  # fmt: skip
    request = parse_request(body)
    return simulate_inference(request).decode.tokens_per_s


def test_an_amd_build_serves_as_the_request_naming_rocm_would() -> None:
    by_maker = _decode_tokens_per_s({})
    assert by_maker == _decode_tokens_per_s({"runtime": LLAMA_CPP_ROCM})
    assert by_maker != _decode_tokens_per_s({"runtime": LLAMA_CPP})


def test_training_refuses_a_gpu_whose_maker_has_no_training_constants() -> None:
    with pytest.raises(EngineInputError) as error:
        parse_hardware({"gpu": "Radeon RX 7900 XTX"}, kind="train")
    assert error.value.field == "hardware.gpu"
    assert "AMD" in error.value.message


def test_vulkan_on_an_intel_gpu_is_refused_naming_the_runtime_that_has_constants() -> None:
    workload = {
        "kind": "infer",
        "model": "llama-3.1-8b",
        "quant": "Q4_0",
        "runtime": LLAMA_CPP_VULKAN,
    }
    body: dict[str, Any] = {"workload": workload,
            "hardware": {"gpu": "Arc Pro B70", "gpu_count": 1}}  # fmt: skip
    with pytest.raises(EngineInputError) as error:
        simulate_inference(parse_request(body))
    assert error.value.field == "workload.runtime"
    assert LLAMA_CPP_SYCL in error.value.message
    workload["runtime"] = LLAMA_CPP_SYCL
    assert simulate_inference(parse_request(body)).decode.tokens_per_s > 0

"""The runtime a machine serves with when the request names none: the llama.cpp backend for
its maker's GPU, whose constants (calibration/efficiency.py) were fitted on that backend's
published runs. NVIDIA GPUs and NVIDIA's GB10 (DGX Spark) run llama.cpp's CUDA backend, AMD
GPUs its HIP backend (ROCm), Intel GPUs its SYCL backend, Apple silicon Metal, and AMD's
Strix Halo (Radeon 8060S) the Vulkan backend its users most publish (docs/model.md, "Runtime
by maker")."""

from __future__ import annotations

from simulator.engine.calibration.efficiency import (
    LLAMA_CPP,
    LLAMA_CPP_METAL,
    LLAMA_CPP_ROCM,
    LLAMA_CPP_SYCL,
    LLAMA_CPP_VULKAN,
)
from simulator.engine.hardware import Hardware

GPU_RUNTIME_BY_MAKER = {"AMD": LLAMA_CPP_ROCM, "Intel": LLAMA_CPP_SYCL}
UNIFIED_RUNTIME_BY_MAKER = {"Apple": LLAMA_CPP_METAL, "NVIDIA": LLAMA_CPP, "AMD": LLAMA_CPP_VULKAN}


def default_runtime(hardware: Hardware) -> str:
    """The runtime of `hardware`'s accelerator: its unified system's, else its GPUs', else
    llama.cpp on the CPU."""
    if hardware.unified is not None:
        return UNIFIED_RUNTIME_BY_MAKER.get(hardware.unified.maker, LLAMA_CPP_METAL)
    if hardware.gpu is not None:
        return GPU_RUNTIME_BY_MAKER.get(hardware.gpu.maker, LLAMA_CPP)
    return LLAMA_CPP

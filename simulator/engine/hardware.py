"""The one hardware description both kinds of workload read: GPUs, a CPU, unified memory,
host RAM, the host link and storage, each quantity named with its unit (units.py).

Training reads the GPUs, RAM (pinned and not) and storage; serving reads the GPUs, the CPU
and RAM, or unified memory, and the host link. Figures of named devices come from the device
table (devices.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from simulator.engine.devices import APPLE, Gpu, require_device
from simulator.engine.errors import EngineInputError
from simulator.engine.sustained import (
    DISCRETE,
    bandwidth_share,
    bf16_sustained_tflops,
    other_gpu_fraction,
    system_segment,
)
from simulator.engine.units import GIGA, PCIE_X16_GBPS_BY_GEN

# Effective PCIe bandwidths (reference-model.md §7); x8 halves them.
PCIE_GEN4_X16_GBPS = PCIE_X16_GBPS_BY_GEN[4]
PCIE_GEN5_X16_GBPS = PCIE_X16_GBPS_BY_GEN[5]
# Storage of the seed's tables (reference-model.md §8).
NVME_GEN4_X1_GBPS = 7.0
NVME_GEN4_RAID0_X4_GBPS = 28.0
NVME_GEN5_AIC_X4_GBPS = 48.0
# Pinned host RAM the reference assumes for each RAM size (§7); other sizes keep 8 GiB back.
PINNED_GIB_BY_RAM_GIB = {32.0: 26.0, 64.0: 56.0, 128.0: 120.0}
UNPINNED_RESERVE_GIB = 8.0

# GPU memory the software stack keeps for itself on each GPU, GiB, by stack.
PYTORCH, LLAMA_CPP = "pytorch", "llama.cpp"
GPU_RESERVE_GIB: dict[str, float] = {
    # CUDA context, caching allocator pools and cuBLAS workspace of a PyTorch training
    # process (reference-model.md §6, seed 000: 2.5 GiB).
    PYTORCH: 2.5,
    # CUDA context, cuBLAS workspace and llama.cpp's compute buffers at the default -ub 512.
    LLAMA_CPP: 1.0,
}


# Tensor-core kernel paths: what a runtime's GEMMs and attention run on (efficiency.py's
# TENSOR_PATH says which runtime uses which).
FP16_ACC16 = "fp16-acc16"
BF16_ACC32 = "bf16-acc32"
FP8 = "fp8"
# FP16 on the vector units where a GPU's matrix units are faster (RDNA 4): llama.cpp's ROCm
# prompts (efficiency.TENSOR_PATH); on other GPUs the FP16 tensor figure.
FP16_VECTOR = "fp16-vector"
TENSOR_PATHS = (FP16_ACC16, BF16_ACC32, FP8, FP16_VECTOR)


# The makers a GPU or a unified system given only by its figures is taken to be from (what
# sets the runtime it serves with: serve/runtimes.py).
DEFAULT_GPU_MAKER, DEFAULT_SYSTEM_MAKER = "NVIDIA", APPLE


@dataclass(frozen=True, slots=True, kw_only=True)
class GpuSpec:
    """One GPU model. `bf16_tflops`: dense BF16 tensor throughput with FP32 accumulate (what
    PyTorch's GEMMs run at); `fp16_tflops`: dense FP16 tensor throughput with FP16
    accumulate (llama.cpp's kernels), None when not known; `mem_gbps`: memory bandwidth
    (serving needs it, training does not)."""

    name: str
    vram_gib: float
    bf16_tflops: float
    pcie_gbps: float
    fp4: bool = False
    mem_gbps: float | None = None
    fp16_tflops: float | None = None
    fp8_tflops: float | None = None
    # FP16 on the vector units where it differs from the tensor figures (RDNA 4); None: as
    # fp16_tflops (FP16_VECTOR falls back to it).
    vector_fp16_tflops: float | None = None
    # What a large BF16 / FP8 matmul sustains (sustained.py): what training computes at.
    # None: not known; `bf16_sustained` and `fp8_sustained` then give the prior.
    bf16_sustained_tflops: float | None = None
    fp8_sustained_tflops: float | None = None
    # Who makes it: the runtime a build of it serves with by default (serve/runtimes.py)
    maker: str = DEFAULT_GPU_MAKER
    # Streaming multiprocessors (NVIDIA), compute units (AMD) or Xe cores (Intel): the units
    # whose outstanding loads bound the bandwidth a kernel sustains (serve/hardware.py,
    # `streamed_bandwidth_efficiency`). None: not known, no such bound.
    compute_units: int | None = None
    # What a streaming benchmark measured its memory to sustain, GB/s; None: not known, the
    # prior share of `mem_gbps` (sustained.py).
    mem_sustained_gbps: float | None = None

    def bandwidth_share(self) -> float:
        """The share of `mem_gbps` the memory sustains in a streaming benchmark."""
        if self.mem_gbps is None:
            raise EngineInputError(field="hardware.gpu.mem_gbps", message="is required")
        return bandwidth_share(DISCRETE, self.mem_gbps, self.mem_sustained_gbps)

    def bf16_sustained(self) -> float:
        """The sustained BF16 matmul rate (10^12 FLOP/s): as given, else the peak at the
        prior fraction of a GPU with no measurement (sustained.other_gpu_fraction)."""
        if self.bf16_sustained_tflops is not None:
            return self.bf16_sustained_tflops
        return self.bf16_tflops * other_gpu_fraction()

    def fp8_sustained(self) -> float | None:
        """The sustained FP8 matmul rate: as given, else the FP8 peak at the share of its
        BF16 peak the GPU sustains; None without an FP8 figure."""
        if self.fp8_tflops is None:
            return None
        if self.fp8_sustained_tflops is not None:
            return self.fp8_sustained_tflops
        return self.fp8_tflops * self.bf16_sustained() / self.bf16_tflops

    def tensor_tflops(self, path: str) -> float:
        """The dense tensor peak of a kernel path. FP16 with FP16 accumulate falls back to the
        FP32-accumulate figure where the datasheet gives none (equal on pro cards, half the
        real rate on GeForce: the documented prior). FP8 on a GPU without FP8 tensor cores
        runs as vLLM's weight-only FP8 kernels do there (Marlin W8A16: weights widened to
        16 bits in registers, BF16 tensor math), so at the BF16 peak. FP16 on the vector
        units is the vector figure where the GPU has one apart (RDNA 4), else FP16's."""
        if path == FP16_VECTOR and self.vector_fp16_tflops is not None:
            return self.vector_fp16_tflops
        if path in (FP16_ACC16, FP16_VECTOR) and self.fp16_tflops is not None:
            return self.fp16_tflops
        if path == FP8 and self.fp8_tflops is not None:
            return self.fp8_tflops
        return self.bf16_tflops


@dataclass(frozen=True, slots=True, kw_only=True)
class CpuSpec:
    """`flops_per_core_cycle`: FP32 FLOPs per core per cycle, an FMA counting two."""

    name: str
    cores: int
    mem_gbps: float
    flops_per_core_cycle: float
    ghz: float

    @property
    def peak_flops(self) -> float:
        return self.cores * self.flops_per_core_cycle * self.ghz * GIGA


@dataclass(frozen=True, slots=True, kw_only=True)
class UnifiedSpec:
    """Apple-silicon-style memory shared by CPU and GPU; `tflops` of its GPU (FP16)."""

    name: str
    mem_gib: float
    mem_gbps: float
    tflops: float
    maker: str = DEFAULT_SYSTEM_MAKER  # Apple, NVIDIA (DGX Spark's GB10) or AMD (Strix Halo)
    # The GPU side's measured streaming bandwidth, GB/s; None: its segment's prior share.
    mem_sustained_gbps: float | None = None

    def bandwidth_share(self) -> float:
        """The share of `mem_gbps` the GPU's reads sustain in a streaming benchmark."""
        return bandwidth_share(
            system_segment(self.maker == APPLE), self.mem_gbps, self.mem_sustained_gbps
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Hardware:
    """One machine (or `machines` identical ones). `gpu_count` identical GPUs in each (none
    without `gpu`); `link_gbps`: the host-to-GPU link serving's hybrid placement crosses
    (0: none)."""

    gpu: GpuSpec | None = None
    gpu_count: int = 1
    cpu: CpuSpec | None = None
    unified: UnifiedSpec | None = None
    ram_gib: float = 32.0
    pinned_gib: float = 26.0
    nvme_gbps: float = NVME_GEN4_X1_GBPS
    link_gbps: float = 0.0
    # GPU-to-GPU bandwidth per direction (NVLink), GB/s; None: the GPUs talk over PCIe.
    interconnect_gbps: float | None = None
    # Identical machines, each with the parts above, splitting the model's layers over a
    # network of `network_gbit_per_s` (gigabits per second, as links are sold: 10 GbE is 10):
    # llama.cpp's RPC backend. Serving only.
    machines: int = 1
    network_gbit_per_s: float | None = None

    def require_gpu(self) -> GpuSpec:
        """The GPU model; training streams layers to one, so it needs it."""
        if self.gpu is None:
            raise EngineInputError(field="hardware.gpu", message="is required")
        return self.gpu


def default_pinned_gib(ram_gib: float) -> float:
    return PINNED_GIB_BY_RAM_GIB.get(ram_gib, max(0.0, ram_gib - UNPINNED_RESERVE_GIB))


def gpu_spec(device: Gpu) -> GpuSpec:
    """A device-table GPU."""
    return GpuSpec(
        name=device.name,
        vram_gib=float(device.vram_gb),
        bf16_tflops=float(device.bf16_tflops),
        pcie_gbps=device.pcie_gbps,
        fp4=device.fp4_tensor_cores,
        mem_gbps=float(device.mem_bandwidth_gbps),
        fp16_tflops=None if device.fp16_tflops is None else float(device.fp16_tflops),
        fp8_tflops=None if device.fp8_tflops is None else float(device.fp8_tflops),
        vector_fp16_tflops=(
            None if device.vector_fp16_tflops is None else float(device.vector_fp16_tflops)
        ),
        bf16_sustained_tflops=bf16_sustained_tflops(device),
        # measured or None: fp8_sustained() derives the rest from the BF16 share above
        fp8_sustained_tflops=device.fp8_sustained_tflops,
        maker=device.manufacturer,
        compute_units=device.compute_units,
        mem_sustained_gbps=device.mem_sustained_gbps,
    )


# The GPUs of seed 000 ("GPU Hardware" table, reference-model.md §9), by the seed's names:
# records of the device table, which keeps the seed's printed figures for them.
SEED_GPU_NAMES = ("RTX 4090", "RTX 5090", "A100 80G", "H100 80G", "RTX PRO 6000")


def seed_gpu(name: str) -> GpuSpec:
    device = require_device(Gpu, name, field="hardware.gpu")
    return replace(gpu_spec(device), name=name)

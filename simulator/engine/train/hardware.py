"""Hardware inputs: one GPU model, how many, and the host's storage and RAM.

Memory sizes are GiB and bandwidths GB/s (units.py); GPUs named in a request come from the
device table (devices.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from simulator.engine.devices import Gpu, require_device
from simulator.engine.units import PCIE_X16_GBPS_BY_GEN

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


@dataclass(frozen=True, slots=True, kw_only=True)
class GpuSpec:
    name: str
    vram_gib: float
    bf16_tflops: float
    pcie_gbps: float
    fp4: bool = False
    mem_gbps: float | None = None  # memory bandwidth, GB/s; serving needs it, training not


@dataclass(frozen=True, slots=True, kw_only=True)
class Hardware:
    gpu: GpuSpec
    gpu_count: int = 1
    nvme_gbps: float = NVME_GEN4_X1_GBPS
    ram_gib: float = 32.0
    pinned_gib: float = 26.0


def default_pinned_gib(ram_gib: float) -> float:
    return PINNED_GIB_BY_RAM_GIB.get(ram_gib, max(0.0, ram_gib - UNPINNED_RESERVE_GIB))


def gpu_spec(device: Gpu) -> GpuSpec:
    """A device-table GPU as training takes it."""
    return GpuSpec(
        name=device.name,
        vram_gib=float(device.vram_gb),
        bf16_tflops=float(device.bf16_tflops),
        pcie_gbps=device.pcie_gbps,
        fp4=device.fp4_tensor_cores,
        mem_gbps=float(device.mem_bandwidth_gbps),
    )


# The GPUs of seed 000 ("GPU Hardware" table, reference-model.md §9), by the seed's names:
# records of the device table, which keeps the seed's printed figures for them.
SEED_GPU_NAMES = ("RTX 4090", "RTX 5090", "A100 80G", "H100 80G", "RTX PRO 6000")


def seed_gpu(name: str) -> GpuSpec:
    device = require_device(Gpu, name, field="hardware.gpu")
    return replace(gpu_spec(device), name=name)

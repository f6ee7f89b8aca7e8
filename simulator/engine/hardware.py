"""Hardware inputs: one GPU model, how many, and the host's storage and RAM.

Memory sizes are GiB; bandwidths are GB/s and are divided into GiB sizes without conversion,
exactly as the reference does (reference-model.md, "Units").
"""

from __future__ import annotations

from dataclasses import dataclass

# Effective PCIe bandwidths (reference-model.md §7); x8 halves them.
PCIE_GEN4_X16_GBPS = 22.0
PCIE_GEN5_X16_GBPS = 44.0
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Hardware:
    gpu: GpuSpec
    gpu_count: int = 1
    nvme_gbps: float = NVME_GEN4_X1_GBPS
    ram_gib: float = 32.0
    pinned_gib: float = 26.0


def default_pinned_gib(ram_gib: float) -> float:
    return PINNED_GIB_BY_RAM_GIB.get(ram_gib, max(0.0, ram_gib - UNPINNED_RESERVE_GIB))


# The GPUs of seed 000 ("GPU Hardware" table, reference-model.md §9).
SEED_GPUS: dict[str, GpuSpec] = {
    g.name: g
    for g in (
        GpuSpec(name="RTX 4090", vram_gib=24, bf16_tflops=165, pcie_gbps=PCIE_GEN4_X16_GBPS),
        GpuSpec(
            name="RTX 5090", vram_gib=32, bf16_tflops=209, pcie_gbps=PCIE_GEN5_X16_GBPS, fp4=True
        ),
        GpuSpec(name="A100 80G", vram_gib=80, bf16_tflops=312, pcie_gbps=PCIE_GEN4_X16_GBPS),
        GpuSpec(name="H100 80G", vram_gib=80, bf16_tflops=756, pcie_gbps=PCIE_GEN5_X16_GBPS),
        GpuSpec(
            name="RTX PRO 6000",
            vram_gib=96,
            bf16_tflops=300,
            pcie_gbps=PCIE_GEN5_X16_GBPS,
            fp4=True,
        ),
    )
}

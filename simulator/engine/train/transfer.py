"""Where streamed layers come from and how fast (reference-model.md §7)."""

from __future__ import annotations

LOADS_PER_MICRO_BATCH = 2  # §7: forward, and backward with its recompute
SOURCE_NONE, SOURCE_RAM, SOURCE_NVME = "none", "ram", "nvme"


def transfer_source(streamed_layers: int, pipeline_streamed_gib: float, pinned_gib: float) -> str:
    """RAM when the whole pipeline's streamed layers fit in pinned RAM, else NVMe (§7)."""
    if streamed_layers == 0:
        return SOURCE_NONE
    return SOURCE_RAM if pipeline_streamed_gib <= pinned_gib else SOURCE_NVME


def link_gbps(source: str, *, pcie_gbps: float, nvme_gbps: float, gpu_count: int) -> float:
    """RAM streams over each GPU's own PCIe; NVMe is shared by the G GPUs (§7)."""
    if source == SOURCE_NVME:
        return min(pcie_gbps, nvme_gbps / gpu_count)
    return pcie_gbps


def limiting_link(source: str, *, pcie_gbps: float, nvme_gbps: float, gpu_count: int) -> str:
    """Which link sets the transfer rate: "pcie" or "nvme" (RAM bandwidth is not modelled)."""
    if source == SOURCE_NVME and nvme_gbps / gpu_count < pcie_gbps:
        return "nvme"
    return "pcie"

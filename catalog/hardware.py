"""Hardware figures derived from parts, in the form the simulation engine takes.

PCIe bandwidth and pinned RAM are the engine's rules (simulator/engine/units.py and
hardware.py); this module adds what only a catalog build has: drives on M.2 links."""

from __future__ import annotations

from simulator.engine import default_pinned_gib, pcie_gbps

# Sustained sequential read of one NVMe drive on a link of each generation (reference §8:
# Gen4 x1 7 GB/s; Gen4 RAID0 x4 28 = 4 x 7; Gen5 AIC x4 48 = 4 x 12). A drive whose
# datasheet read is lower keeps its datasheet figure. Gen3 is extrapolated as half of Gen4.
NVME_DRIVE_CAP_GBPS_BY_GEN = {3: 3.5, 4: 7.0, 5: 12.0}
M2_LANES_PER_DRIVE = 4


def nvme_drive_gbps(*, seq_read_gbps: float, link_gen: int) -> float:
    """What one drive sustains on a link of `link_gen`: capped by the link's effective rate."""
    return min(seq_read_gbps, NVME_DRIVE_CAP_GBPS_BY_GEN[link_gen])


def pinned_gb(*, ram_gb: int) -> int:
    """Page-locked RAM for `ram_gb` of host RAM (the engine's default, whole GB)."""
    return int(default_pinned_gib(float(ram_gb)))


def pcie_label(*, gen: int, lanes: int) -> str:
    return f"PCIe {gen}.0 x{lanes} ({pcie_gbps(gen=gen, lanes=lanes):g} GB/s)"

"""Hardware figures derived from parts, in the form the simulation engine takes.

Bandwidths are the effective figures of reference-model.md §7-§8 (GB/s, divided into GiB
sizes without conversion, as the reference does)."""

from __future__ import annotations

# Effective host-to-GPU bandwidth of an x16 link (reference §7: Gen4 x16 22 GB/s, Gen5 x16
# 44 GB/s, "x8 halves it"); Gen3 is extrapolated as half of Gen4. Fewer lanes scale it.
PCIE_X16_GBPS_BY_GEN = {3: 11.0, 4: 22.0, 5: 44.0}
FULL_LINK_LANES = 16

# Sustained sequential read of one NVMe drive on a link of each generation (reference §8:
# Gen4 x1 7 GB/s; Gen4 RAID0 x4 28 = 4 x 7; Gen5 AIC x4 48 = 4 x 12). A drive whose
# datasheet read is lower keeps its datasheet figure. Gen3 is extrapolated as half of Gen4.
NVME_DRIVE_CAP_GBPS_BY_GEN = {3: 3.5, 4: 7.0, 5: 12.0}
M2_LANES_PER_DRIVE = 4

# Page-locked host RAM the reference assumes per RAM size (§7: 32 -> 26, 64 -> 56,
# 128 -> 120 GB); other sizes keep 8 GB for the OS and the loader, like the engine's
# default_pinned_gib (simulator/engine/hardware.py).
PINNED_GB_BY_RAM_GB = {32: 26, 64: 56, 128: 120}
UNPINNED_RESERVE_GB = 8


def pcie_gbps(*, gen: int, lanes: int) -> float:
    """Effective bandwidth of one PCIe link of `gen` with `lanes` lanes."""
    return PCIE_X16_GBPS_BY_GEN[gen] * lanes / FULL_LINK_LANES


def nvme_drive_gbps(*, seq_read_gbps: float, link_gen: int) -> float:
    """What one drive sustains on a link of `link_gen`: capped by the link's effective rate."""
    return min(seq_read_gbps, NVME_DRIVE_CAP_GBPS_BY_GEN[link_gen])


def pinned_gb(*, ram_gb: int) -> int:
    return PINNED_GB_BY_RAM_GB.get(ram_gb, max(0, ram_gb - UNPINNED_RESERVE_GB))


def pcie_label(*, gen: int, lanes: int) -> str:
    return f"PCIe {gen}.0 x{lanes} ({pcie_gbps(gen=gen, lanes=lanes):g} GB/s)"

"""Units of the engine, and the one convention for GB against GiB.

- Memory capacities are binary: a field named `_gb` in a request, a result or the device
  table holds GiB (2³⁰ bytes), because GPU and unified memory are built in powers of two (a
  "24 GB" RTX 4090 holds 24 GiB) and seed 000 counts host RAM the same way. Inside the engine
  such quantities are named `_gib`.
- Bandwidths are decimal: `_gbps` is 10⁹ bytes/s, as datasheets print them (PCIe, NVMe,
  GDDR/HBM/DDR). A time is bytes / (GB/s × 10⁹), so a GiB over a GB/s link takes
  `GIB / GB` = 1.074 seconds.
- Compute is decimal: `_tflops` is 10¹² FLOP/s.

Seed 000's tables divide GiB sizes by GB/s without converting (reference-model.md, "Units").
Reference mode alone keeps that convention, through `seed_transfer_s`, so its tables come out
exactly; every other rule converts with `transfer_s`.
"""

from __future__ import annotations

from typing import Any

KIB = 1024
MIB = 1024**2
GIB = 1024**3
GB = 1e9
GIGA = 1e9
TERA = 1e12
BITS_PER_BYTE = 8

# Effective host-to-GPU bandwidth of an x16 link per PCIe generation, GB/s (reference-model.md
# §7: Gen4 x16 22 GB/s, Gen5 x16 44 GB/s, "x8 halves it"; Gen3 as half of Gen4, Gen6 as twice
# Gen5: each generation doubles the transfer rate, PCI-SIG's 16, 32 and 64 GT/s).
PCIE_X16_GBPS_BY_GEN: dict[int, float] = {3: 11.0, 4: 22.0, 5: 44.0, 6: 88.0}
FULL_LINK_LANES = 16
# DDR transfers 8 bytes per channel per transfer (a 64-bit channel).
BYTES_PER_MEMORY_TRANSFER = 8


def gib_to_bytes(gib: float) -> float:
    return gib * GIB


def bytes_to_gib(size_bytes: float) -> float:
    return size_bytes / GIB


def gbps_to_bytes_per_s(gbps: float) -> float:
    return gbps * GB


def tflops_to_flops_per_s(tflops: float) -> float:
    return tflops * TERA


def transfer_s(size_gib: Any, gbps: Any) -> Any:
    """Seconds to move `size_gib` GiB over a link of `gbps` GB/s (converted); floats or
    NumPy arrays alike, with the same operations in the same order."""
    return size_gib * GIB / (gbps * GB)


def seed_transfer_s(size_gib: float, gbps: float) -> float:
    """Seed 000's convention, for reference mode only: GiB divided by GB/s as they stand."""
    return size_gib / gbps


def pcie_gbps(*, gen: int, lanes: int) -> float:
    """Effective bandwidth of one PCIe link of `gen` with `lanes` lanes, GB/s."""
    return PCIE_X16_GBPS_BY_GEN[gen] * lanes / FULL_LINK_LANES


def ddr_gbps(*, channels: int, speed_mts: float) -> float:
    """Peak bandwidth of `channels` DDR channels at `speed_mts` MT/s, GB/s."""
    return channels * speed_mts * BYTES_PER_MEMORY_TRANSFER / 1000

"""What a GPU's large BF16 matmuls sustain, measured, against its datasheet peak; and what
its memory sustains in a streaming benchmark against its datasheet bandwidth.

Datasheet tensor peaks are quoted at the boost clock. Datacenter and workstation GPUs run
their tensor cores against a power limit and sustain 45–87 % of it in a large matmul (stas00's
Maximum Achievable Matmul FLOPS table: H100 SXM 794.5 of 989, A100 SXM 271.2 of 312, MI300X
668.4 of 1,307); GeForce cards are quoted at half rate with FP32 accumulate and clock past
their rated boost, so they sustain about their peak or more (RTX 4090 168 of 165, RTX 5090
239 of 209). The training engine's compute rate is this sustained rate times the stack's
utilization, so one fitted utilization means the same on every GPU.

Each device-table record carries the measured figure where a public measurement was found
(`bf16_sustained_tflops`, `fp8_sustained_tflops`, `sustained_source`); a GPU without one
takes the median measured fraction of its segment (GeForce or not), computed from the table
(docs/model.md, "Sustained matmul rate").
"""

from __future__ import annotations

import re
import statistics
from functools import cache

from simulator.engine.devices import APPLE, Gpu, System, device_table

# NVIDIA's consumer naming: "RTX 4090", "GeForce RTX 3090 Ti", "RTX 4090D", "GTX 1080 Ti";
# not "RTX 6000 Ada", "RTX A6000", "RTX PRO 6000", "Quadro RTX 8000".
_GEFORCE = re.compile(r"^(?:GeForce )?(?:RTX|GTX) \d{4}(?!.*\bAda\b)")


def is_geforce(device: Gpu) -> bool:
    return device.manufacturer == "NVIDIA" and bool(_GEFORCE.match(device.name))


@cache
def sustained_fractions() -> dict[bool, float]:
    """The median measured sustained/peak BF16 fraction of the table's GPUs, by segment
    (True: GeForce): the prior of a GPU with no measurement of its own."""
    fractions: dict[bool, list[float]] = {True: [], False: []}
    for gpu in device_table()[Gpu]:
        if gpu.bf16_sustained_tflops is not None:
            fractions[is_geforce(gpu)].append(gpu.bf16_sustained_tflops / gpu.bf16_tflops)
    return {segment: statistics.median(values) for segment, values in fractions.items()}


def other_gpu_fraction() -> float:
    """The prior of a GPU given only by its figures (a what-if GPU): the non-GeForce one,
    the lower of the two."""
    return sustained_fractions()[False]


def bf16_sustained_tflops(device: Gpu) -> float:
    """The device's measured sustained BF16 matmul rate, or its segment's prior."""
    if device.bf16_sustained_tflops is not None:
        return device.bf16_sustained_tflops
    return device.bf16_tflops * sustained_fractions()[is_geforce(device)]


# --- Memory bandwidth --------------------------------------------------------------------
# A datasheet bandwidth is the pins' rate: DRAM refresh, page and bus turnarounds keep any
# kernel below it. What a streaming benchmark (BabelStream, nvbandwidth's device-local copy,
# rocm_bandwidth_test, clpeak) sustains is the device's ceiling for a kernel that only
# streams, and it differs by memory type and controller (HBM, GDDR, LPDDR), so a runtime's
# fitted bandwidth efficiency is taken relative to it and carries from one device to another
# (docs/model.md, "Sustained memory bandwidth"). A record without a measurement takes the
# median measured share of its kind: discrete GPUs, Apple systems, other unified systems.
DISCRETE, APPLE_SYSTEM, OTHER_SYSTEM = "discrete", "apple", "unified"


def system_segment(apple: bool) -> str:
    """A unified system's segment: Apple's, or other unified systems'."""
    return APPLE_SYSTEM if apple else OTHER_SYSTEM


@cache
def bandwidth_shares() -> dict[str, float]:
    """The median measured sustained/peak bandwidth share by segment; a segment with no
    measurement takes the discrete GPUs' (the most measured)."""
    shares: dict[str, list[float]] = {DISCRETE: [], APPLE_SYSTEM: [], OTHER_SYSTEM: []}
    for gpu in device_table()[Gpu]:
        if gpu.mem_sustained_gbps is not None:
            shares[DISCRETE].append(gpu.mem_sustained_gbps / gpu.mem_bandwidth_gbps)
    for system in device_table()[System]:
        if system.mem_sustained_gbps is not None:
            segment = system_segment(system.manufacturer == APPLE)
            shares[segment].append(system.mem_sustained_gbps / system.mem_bandwidth_gbps)
    discrete = statistics.median(shares[DISCRETE]) if shares[DISCRETE] else 1.0
    return {
        segment: statistics.median(values) if values else discrete
        for segment, values in shares.items()
    }


def bandwidth_share(segment: str, mem_gbps: float, mem_sustained_gbps: float | None) -> float:
    """The share of its peak a device's memory sustains in a streaming benchmark: measured, or
    the median measured share of its `segment` (DISCRETE, or `system_segment`)."""
    if mem_sustained_gbps is not None:
        return mem_sustained_gbps / mem_gbps
    return bandwidth_shares()[segment]

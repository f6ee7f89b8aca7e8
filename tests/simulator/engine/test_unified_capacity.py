"""What a unified-memory system's GPU may hold (serve/hardware.unified_gpu_gib): a Mac's
Metal working-set cap as current macOS sets it (measured at 24 to 512 GB); a Linux system (DGX
Spark, Strix Halo) what the host leaves a process, the share a CPU placement holds."""

import pytest

from simulator.engine.hardware import UnifiedSpec, default_pinned_gib
from simulator.engine.io.hardware import parse_unified
from simulator.engine.serve.hardware import (
    METAL_WORKING_SET_GIB,
    metal_working_set_gib,
    unified_device,
    unified_gpu_gib,
)
from simulator.engine.units import GIB


def _system(maker: str, mem_gib: float = 128.0) -> UnifiedSpec:
    return UnifiedSpec(name="box", mem_gib=mem_gib, mem_gbps=256, tflops=50, maker=maker)


@pytest.mark.parametrize(
    ("mem_gib", "working_set_gib"),
    [
        (128.0, 107.52),  # an M5 Max on macOS 26: "recommendedMaxWorkingSetSize: 107.52 GiB"
        (512.0, 498216.21 / 1024),  # a Mac Studio M3 Ultra 512 GB, as llama.cpp printed it
        (64.0, 55662.79 / 1024),  # an M3 Max 64 GB on macOS 26.4.1
        (24.0, 17179.89 / 1024),  # an M4 Pro 24 GB
    ],
)
def test_a_mac_holds_the_working_set_metal_reports(mem_gib: float, working_set_gib: float) -> None:
    assert unified_gpu_gib(_system("Apple", mem_gib)) == pytest.approx(working_set_gib)
    assert unified_device(_system("Apple", mem_gib)).capacity_bytes == pytest.approx(
        working_set_gib * GIB
    )


def test_between_measured_sizes_the_share_of_memory_is_interpolated() -> None:
    """96 GB lies between 64 GB (84.9 %) and 128 GB (84.0 %): its share is the line
    between them at 96; below 24 GB and above 512 GB the nearest size's share holds."""
    share_64 = 55662.79 / 1024 / 64
    share_128 = 107.52 / 128
    expected = 96 * (share_64 + (share_128 - share_64) * (96 - 64) / (128 - 64))
    assert metal_working_set_gib(96.0) == pytest.approx(expected)
    smallest, largest = METAL_WORKING_SET_GIB[0], METAL_WORKING_SET_GIB[-1]
    assert metal_working_set_gib(8.0) == pytest.approx(8 * smallest[1] / smallest[0])
    assert metal_working_set_gib(1024.0) == pytest.approx(1024 * largest[1] / largest[0])


@pytest.mark.parametrize("maker", ["NVIDIA", "AMD"])
def test_a_linux_system_holds_what_the_host_leaves_a_process(maker: str) -> None:
    assert unified_gpu_gib(_system(maker)) == default_pinned_gib(128.0) == 120.0
    assert unified_gpu_gib(_system(maker, 64.0)) == default_pinned_gib(64.0) == 56.0


def test_a_strix_halo_holds_the_97_gib_file_as_a_current_mac_of_the_same_size_does() -> None:
    """lhl/strix-halo-testing ran Qwen3-235B-A22B UD-Q3_K_XL (104,146,921,472 B = 97.0 GiB)
    on a 128 GB Strix Halo's GPU (corpus rows R016-R019); a 128 GB Mac on today's macOS wires
    107.52 GiB, where the 75 % of 2023's macOS (96 GiB) would not hold it."""
    strix = parse_unified({"name": "Framework Desktop Ryzen AI Max+ 395 128GB"})
    assert strix.maker == "AMD"
    file_gib = 104146921472 / GIB
    mac = unified_gpu_gib(_system("Apple"))
    assert unified_gpu_gib(strix) > mac > file_gib > 0.75 * 128

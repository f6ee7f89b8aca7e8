"""What a unified-memory system's GPU may hold (serve/hardware.unified_gpu_gib): a Mac's
Metal working-set cap, 75 % of its memory; a Linux system (DGX Spark, Strix Halo) what the
host leaves a process, the share a CPU placement holds."""

import pytest

from simulator.engine.hardware import UnifiedSpec, default_pinned_gib
from simulator.engine.io.hardware import parse_unified
from simulator.engine.serve.hardware import UNIFIED_GPU_FRACTION, unified_device, unified_gpu_gib
from simulator.engine.units import GIB


def _system(maker: str, mem_gib: float = 128.0) -> UnifiedSpec:
    return UnifiedSpec(name="box", mem_gib=mem_gib, mem_gbps=256, tflops=50, maker=maker)


def test_a_mac_holds_three_quarters_of_its_memory() -> None:
    assert UNIFIED_GPU_FRACTION == 0.75
    assert unified_gpu_gib(_system("Apple")) == pytest.approx(96.0)
    assert unified_device(_system("Apple")).capacity_bytes == pytest.approx(96.0 * GIB)


@pytest.mark.parametrize("maker", ["NVIDIA", "AMD"])
def test_a_linux_system_holds_what_the_host_leaves_a_process(maker: str) -> None:
    assert unified_gpu_gib(_system(maker)) == default_pinned_gib(128.0) == 120.0
    assert unified_gpu_gib(_system(maker, 64.0)) == default_pinned_gib(64.0) == 56.0


def test_a_strix_halo_holds_the_97_gib_file_a_mac_of_the_same_size_cannot() -> None:
    """lhl/strix-halo-testing ran Qwen3-235B-A22B UD-Q3_K_XL (104,146,921,472 B = 97.0 GiB)
    on a 128 GB Strix Halo's GPU (corpus rows R016-R019)."""
    strix = parse_unified({"name": "Framework Desktop Ryzen AI Max+ 395 128GB"})
    assert strix.maker == "AMD"
    file_gib = 104146921472 / GIB
    assert unified_gpu_gib(strix) > file_gib > unified_gpu_gib(_system("Apple"))

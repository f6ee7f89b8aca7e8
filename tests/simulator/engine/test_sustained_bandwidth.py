"""A runtime's bandwidth efficiency is a share of what the memory sustains in a streaming
benchmark, measured per device (sustained.py; docs/model.md, "Sustained memory bandwidth"),
a device without a measurement taking the median measured share of its kind."""

import statistics

import pytest

from simulator.engine.devices import APPLE, Gpu, System, device_table, require_device
from simulator.engine.errors import EngineInputError
from simulator.engine.hardware import GpuSpec, Hardware, UnifiedSpec, gpu_spec
from simulator.engine.io.hardware import parse_gpu, parse_unified
from simulator.engine.serve.hardware import (
    DeviceClass,
    gpu_device,
    streamed_bandwidth_efficiency,
    unified_device,
)
from simulator.engine.sustained import bandwidth_shares

KERNELS = DeviceClass(name="gpu", bandwidth_efficiency=0.9, flops_efficiency=0.3,
                      layer_overhead_s=0.0)  # fmt: skip


def _measured_shares(records: list[Gpu] | list[System]) -> list[float]:
    return [r.mem_sustained_gbps / r.mem_bandwidth_gbps for r in records
            if r.mem_sustained_gbps is not None]  # fmt: skip


def test_every_measurement_is_below_its_peak_and_names_its_source() -> None:
    for kind in (Gpu, System):
        for record in device_table()[kind]:
            if record.mem_sustained_gbps is not None:
                assert 0 < record.mem_sustained_gbps <= record.mem_bandwidth_gbps, record.name
                assert "read 2026" in record.bandwidth_source, record.name


def test_a_measured_gpu_reads_at_the_runtimes_share_of_its_measurement() -> None:
    rtx = gpu_spec(require_device(Gpu, "RTX 4090", field="gpu"))
    assert rtx.mem_sustained_gbps == 912
    device = gpu_device(Hardware(gpu=rtx), KERNELS)
    assert device.bandwidth_share == pytest.approx(912 / 1008)
    assert streamed_bandwidth_efficiency(device) == pytest.approx(0.9 * 912 / 1008)


def test_a_gpu_without_a_measurement_takes_the_median_share_of_the_measured_ones() -> None:
    gpus = list(device_table()[Gpu])
    median = statistics.median(_measured_shares(gpus))
    assert bandwidth_shares()["discrete"] == pytest.approx(median)
    what_if = GpuSpec(name="x", vram_gib=24, bf16_tflops=100, pcie_gbps=32, mem_gbps=1000)
    assert gpu_device(Hardware(gpu=what_if), KERNELS).bandwidth_share == pytest.approx(median)


def test_a_unified_system_takes_its_own_measurement_or_its_kinds_median() -> None:
    systems = list(device_table()[System])
    apple = statistics.median(_measured_shares([s for s in systems if s.manufacturer == APPLE]))
    spark = UnifiedSpec(name="GB10", mem_gib=128, mem_gbps=273, tflops=100, maker="NVIDIA",
                        mem_sustained_gbps=232.5)  # fmt: skip
    mac = UnifiedSpec(name="Mac", mem_gib=64, mem_gbps=273, tflops=17, maker=APPLE)
    assert unified_device(spark).bandwidth_share == pytest.approx(232.5 / 273)
    assert unified_device(mac).bandwidth_share == pytest.approx(apple)
    assert (
        parse_unified({"name": "NVIDIA DGX Spark (GB10)", "mem_gb": 128}).mem_sustained_gbps
        == 232.5
    )


def test_a_request_states_a_measurement_at_most_its_peak() -> None:
    figures = {"name": "mine", "vram_gb": 24, "bf16_tflops": 100, "pcie_gbps": 32,
               "mem_gbps": 1000}  # fmt: skip
    assert parse_gpu({**figures, "mem_sustained_gbps": 850}).bandwidth_share() == 0.85
    with pytest.raises(EngineInputError) as above:
        parse_gpu({**figures, "mem_sustained_gbps": 1100})
    assert above.value.field == "hardware.gpu.mem_sustained_gbps"
    assert "at most mem_gbps" in above.value.message
    without_peak = {k: v for k, v in figures.items() if k != "mem_gbps"}
    with pytest.raises(EngineInputError) as no_peak:
        parse_gpu({**without_peak, "mem_sustained_gbps": 850})
    assert "needs mem_gbps" in no_peak.value.message


def test_a_known_gpu_with_another_peak_drops_the_tables_measurement() -> None:
    """The table measured the card's own memory: a request that restates the peak at
    another figure gets the prior share, one that repeats the peak keeps the measurement."""
    assert parse_gpu({"name": "RTX 4090", "mem_gbps": 1008}).mem_sustained_gbps == 912
    faster = parse_gpu({"name": "RTX 4090", "mem_gbps": 1200})
    assert faster.mem_sustained_gbps is None
    assert faster.bandwidth_share() == pytest.approx(bandwidth_shares()["discrete"])
    stated = parse_gpu({"name": "RTX 4090", "mem_gbps": 1200, "mem_sustained_gbps": 1100})
    assert stated.mem_sustained_gbps == 1100

"""A GPU's weight reads sustain at most its SMs (compute units) × the runtime's per-unit
streaming rate (Little's law; serve/hardware.streamed_bandwidth_efficiency; docs/model.md,
"Bandwidth per SM"): a GPU with much bandwidth per SM reaches less of its peak in the same
kernels, one with little keeps the runtime's fitted share."""

import pytest

from simulator.engine.calibration.efficiency import (
    Efficiency,
    RuntimeConstants,
    efficiency_from_json,
    efficiency_to_json,
    load_efficiency,
)
from simulator.engine.costs import Cost
from simulator.engine.devices import Gpu, require_device
from simulator.engine.errors import EngineInputError
from simulator.engine.hardware import GpuSpec, Hardware, gpu_spec
from simulator.engine.io.hardware import parse_gpu
from simulator.engine.serve.hardware import (
    DeviceClass,
    gpu_device,
    memory_and_compute_s,
    streamed_bandwidth_efficiency,
)

KERNELS = DeviceClass(
    name="gpu",
    bandwidth_efficiency=0.9,
    flops_efficiency=0.3,
    layer_overhead_s=0.0,
    unit_stream_gbps=10.0,
)


def _gpu(mem_gbps: float, units: int | None) -> GpuSpec:
    """A GPU whose memory sustains its peak in a streaming benchmark, so that only the cap
    stands between the runtime's share and what the reads sustain."""
    return GpuSpec(
        name="test", vram_gib=80, bf16_tflops=300, pcie_gbps=32, mem_gbps=mem_gbps,
        compute_units=units, mem_sustained_gbps=mem_gbps,
    )  # fmt: skip


def test_an_hbm_gpu_is_capped_by_its_sms_and_a_gddr_one_keeps_the_fitted_share() -> None:
    # 108 SMs at 2,039 GB/s (18.9 GB/s per SM): 108 × 10 GB/s = 1,080 GB/s, 53 % of peak.
    hbm = gpu_device(Hardware(gpu=_gpu(2039, 108)), KERNELS)
    assert streamed_bandwidth_efficiency(hbm) == pytest.approx(108 * 10 / 2039)
    # 128 SMs at 1,008 GB/s (7.9 GB/s per SM): the cap (1,280 GB/s) is above the 90 % share.
    gddr = gpu_device(Hardware(gpu=_gpu(1008, 128)), KERNELS)
    assert streamed_bandwidth_efficiency(gddr) == pytest.approx(0.9)


def test_the_memory_time_is_the_bytes_over_the_capped_bandwidth() -> None:
    device = gpu_device(Hardware(gpu=_gpu(2039, 108)), KERNELS)
    memory_s, _ = memory_and_compute_s(Cost(weight_bytes=1e9), device)
    assert memory_s == pytest.approx(1e9 / (108 * 10e9))


def test_no_cap_without_a_unit_count_or_without_a_fitted_rate() -> None:
    unknown = gpu_device(Hardware(gpu=_gpu(2039, None)), KERNELS)
    assert streamed_bandwidth_efficiency(unknown) == 0.9
    uncapped = DeviceClass(
        name="gpu", bandwidth_efficiency=0.9, flops_efficiency=0.3, layer_overhead_s=0.0
    )
    assert streamed_bandwidth_efficiency(gpu_device(Hardware(gpu=_gpu(2039, 108)), uncapped)) == (
        0.9
    )


def test_tensor_parallel_gpus_read_with_all_their_units() -> None:
    one = gpu_device(Hardware(gpu=_gpu(2039, 108)), KERNELS)
    four = gpu_device(Hardware(gpu=_gpu(2039, 108), gpu_count=4), KERNELS, tensor_parallel=4)
    assert four.compute_units == 4 * 108
    assert streamed_bandwidth_efficiency(four) == pytest.approx(streamed_bandwidth_efficiency(one))


def test_device_records_carry_their_unit_counts_into_the_engine() -> None:
    for name, units in (("RTX 4090", 128), ("RTX 3090", 82), ("H100 SXM", 132)):
        record = require_device(Gpu, name, field="hardware.gpu")
        assert record.compute_units == units
        assert gpu_spec(record).compute_units == units
        assert parse_gpu(name).compute_units == units


def test_a_request_may_state_the_count_and_a_bad_one_is_refused() -> None:
    figures = {"vram_gb": 24, "bf16_tflops": 100, "pcie_gbps": 32, "mem_gbps": 900}
    assert parse_gpu({**figures, "compute_units": 84}).compute_units == 84
    assert parse_gpu(figures).compute_units is None
    for bad in (0, -3, 2.5, "many", 10_000):
        with pytest.raises(EngineInputError) as error:
            parse_gpu({**figures, "compute_units": bad})
        assert error.value.field == "hardware.gpu.compute_units"


def test_the_rate_round_trips_through_the_efficiency_file() -> None:
    entry = RuntimeConstants(
        runtime="llama.cpp", device_class="gpu", bandwidth_efficiency=0.9,
        flops_efficiency=0.3, layer_overhead_s=3e-5, unit_stream_gbps=10.5,
    )  # fmt: skip
    table = efficiency_from_json(efficiency_to_json(Efficiency(entries=(entry,))))
    assert table.get("llama.cpp", "gpu").unit_stream_gbps == 10.5
    assert table.get("llama.cpp", "gpu").as_device_class().unit_stream_gbps == 10.5
    data = efficiency_to_json(Efficiency(entries=(entry,)))
    data["entries"][0]["unit_stream_gbps"] = -1
    with pytest.raises(EngineInputError):
        efficiency_from_json(data)


def test_the_shipped_fit_caps_llama_cpp_on_an_a100_below_an_rtx_4090s_share() -> None:
    constants = load_efficiency().device_class("llama.cpp", "gpu")
    a100 = gpu_device(Hardware(gpu=parse_gpu("A100 80GB SXM")), constants)
    rtx = gpu_device(Hardware(gpu=parse_gpu("RTX 4090")), constants)
    assert streamed_bandwidth_efficiency(a100) < streamed_bandwidth_efficiency(rtx)

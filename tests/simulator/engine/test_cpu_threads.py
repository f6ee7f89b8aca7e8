"""A CPU's per-layer cost in proportion to its threads (docs/model.md, "A CPU's per-layer cost
grows with its threads"): ggml's barrier is one counter every thread increments."""

import pytest

from simulator.engine.hardware import CpuSpec
from simulator.engine.serve.hardware import (
    DEVICE_CLASSES,
    REFERENCE_THREADS,
    cpu_device,
    threads_overhead,
)


def _cpu(cores: int) -> CpuSpec:
    return CpuSpec(
        name=f"{cores} cores", cores=cores, mem_gbps=460.8, flops_per_core_cycle=64, ghz=3.0
    )


@pytest.mark.parametrize(("cores", "share"), [(16, 0.5), (32, 1.0), (96, 3.0)])
def test_the_per_layer_cost_scales_with_the_cores(cores: int, share: float) -> None:
    constants = DEVICE_CLASSES["cpu"]
    device = cpu_device(_cpu(cores), 256.0, constants)
    assert REFERENCE_THREADS == 32
    assert device.device_class.layer_overhead_s == pytest.approx(constants.layer_overhead_s * share)
    # the rest of the class is the class's
    assert device.device_class.bandwidth_efficiency == constants.bandwidth_efficiency


def test_a_layers_visits_cost_the_scaled_constant() -> None:
    constants = threads_overhead(DEVICE_CLASSES["cpu"], 64)
    assert constants.overhead_s(10.0, 0.0) == pytest.approx(
        10 * 2 * DEVICE_CLASSES["cpu"].layer_overhead_s
    )

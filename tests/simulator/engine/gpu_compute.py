"""Seconds a 100-TFLOPS test GPU computes a cost at llama.cpp's prior constants and a pooled
m½ of `half_rows` (the GEMM tile law of serve/prefill.py's underfill rules)."""

from simulator.engine.calibration.efficiency import Efficiency
from simulator.engine.costs import Cost
from simulator.engine.serve.hardware import GPU, Device, memory_and_compute_s


def compute_s(cost: Cost, half_rows: float) -> float:
    constants = Efficiency(entries=(), expert_gemm_half_rows=half_rows).device_class(
        "llama.cpp", GPU
    )
    device = Device(
        location=GPU, bandwidth_bps=1e12, peak_flops=100e12, capacity_bytes=1e10,
        constants=constants,
    )  # fmt: skip
    return memory_and_compute_s(cost, device)[1]

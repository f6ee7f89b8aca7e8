"""CPUs multiply block-quantized weights on int8 dot products, 4 multiply-adds per 32-bit lane
where an FP32 FMA does 1; attention and decode's cache reads stay on the activations' FP32
path (serve/hardware.cpu_device; docs/model.md, "CPUs")."""

import pytest

from simulator.engine.costs import Cost
from simulator.engine.hardware import CpuSpec
from simulator.engine.serve.hardware import (
    INT8_DOT_PER_FMA,
    cpu_device,
    integer_dot_weights,
    memory_and_compute_s,
)

# 16 Zen 4 cores: 2 × 256-bit FMA pipes × 8 FP32 lanes × 2 FLOPs = 32 a cycle, 4.5 GHz.
ZEN4 = CpuSpec(name="7950X", cores=16, mem_gbps=83.2, flops_per_core_cycle=32, ghz=4.5)


@pytest.mark.parametrize(
    ("weights", "integer"),
    [("Q4_0", True), ("Q4_K", True), ("IQ4_XS", True), ("MXFP4", True), ("Q8_0", True),
     ("BF16", False), ("F16", False), ("F32", False), ("FP8", False), ("", False)],
)  # fmt: skip
def test_block_quantized_weights_take_the_int8_path(weights: str, integer: bool) -> None:
    assert integer_dot_weights(weights) is integer


def test_the_int8_peak_is_four_fma_peaks_and_attention_keeps_the_fp32_one() -> None:
    fp32 = 16 * 32 * 4.5e9  # 2.3 TFLOPS
    assert cpu_device(ZEN4, 64).peak_flops == pytest.approx(fp32)
    quantized = cpu_device(ZEN4, 64, weights="Q4_K")
    assert INT8_DOT_PER_FMA == 4
    assert quantized.peak_flops == pytest.approx(4 * fp32)
    assert quantized.attention_peak_flops == pytest.approx(fp32)


def test_weight_flops_speed_up_on_int8_but_attention_and_cache_flops_do_not() -> None:
    plain, quantized = cpu_device(ZEN4, 64), cpu_device(ZEN4, 64, weights="Q4_K")
    weights = Cost(flops=1e12)
    assert memory_and_compute_s(weights, quantized)[1] == pytest.approx(
        memory_and_compute_s(weights, plain)[1] / 4
    )
    for activations in (Cost(attention_flops=1e12), Cost(cache_flops=1e12)):
        assert memory_and_compute_s(activations, quantized) == memory_and_compute_s(
            activations, plain
        )

"""Training computes at what a GPU's large matmuls sustain, measured (sustained.py), each
number derived from the device table's figures and their sources."""

from __future__ import annotations

import statistics
from dataclasses import replace

import pytest

from simulator.engine.devices import Gpu, require_device
from simulator.engine.errors import EngineInputError
from simulator.engine.io.hardware import parse_gpu
from simulator.engine.model.registry import load_model
from simulator.engine.simulate import simulate
from simulator.engine.sustained import is_geforce, sustained_fractions
from simulator.engine.train.workload import MODE_REFERENCE
from simulator.engine.workload import SimulationRequest
from tests.simulator.engine.peft_workloads import gpu, h200, peft_workload

LLAMA_8B = load_model("llama-3.1-8b")


def _device(slug: str) -> Gpu:
    return require_device(Gpu, slug, field="gpu")


def test_a_measured_gpu_trains_at_its_measured_rate() -> None:
    """stas00's MAMF table: the H100 SXM's large BF16 matmuls sustain 794.5 of 989.4."""
    h100 = gpu("h100-sxm")
    assert (h100.bf16_tflops, h100.bf16_sustained()) == (989.4, 794.5)
    assert "MAMF" in _device("h100-sxm").sustained_source


def test_the_geforce_prior_is_the_median_of_the_measured_geforce_cards() -> None:
    """RTX 4090 167.885/165, 4070 Ti Super 92.74/88.2, 3090 76.58/71, 3080 64.68/59.5, 5090
    239.105/209: the median is the 3090's 1.0786; an unmeasured GeForce card (the RTX 3090 Ti,
    80 peak) trains at 80 × that."""
    shares = [167.885 / 165, 92.74 / 88.2, 76.58 / 71, 64.68 / 59.5, 239.105 / 209]
    assert sustained_fractions()[True] == pytest.approx(statistics.median(shares))
    assert gpu("rtx-3090-ti").bf16_sustained() == pytest.approx(80 * 76.58 / 71)


def test_a_what_if_gpu_takes_the_non_geforce_prior_unless_it_gives_its_own() -> None:
    plain = parse_gpu({"vram_gb": 48, "bf16_tflops": 400, "pcie_gbps": 25})
    assert plain.bf16_sustained() == pytest.approx(400 * sustained_fractions()[False])
    assert sustained_fractions()[False] < 1 < sustained_fractions()[True]
    measured = parse_gpu(
        {"vram_gb": 48, "bf16_tflops": 400, "pcie_gbps": 25, "bf16_sustained_tflops": 350}
    )
    assert measured.bf16_sustained() == 350


def test_an_fp8_sustained_figure_without_an_fp8_peak_is_refused_on_its_field() -> None:
    with pytest.raises(EngineInputError) as error:
        parse_gpu({"vram_gb": 48, "bf16_tflops": 400, "pcie_gbps": 25, "fp8_sustained_tflops": 700})
    assert error.value.field == "hardware.gpu.fp8_sustained_tflops"


@pytest.mark.parametrize(
    ("slug", "geforce"),
    [("rtx-4090", True), ("rtx-3090-ti", True), ("rtx-4090d", True), ("gtx-1080-ti", True),
     ("rtx-6000-ada", False), ("rtx-4000-ada", False), ("rtx-a6000", False),
     ("rtx-pro-6000", False), ("quadro-rtx-8000", False), ("h100-sxm", False)],
)  # fmt: skip
def test_geforce_is_nvidias_consumer_naming(slug: str, geforce: bool) -> None:
    assert is_geforce(_device(slug)) is geforce


def test_a_compute_bound_refined_step_scales_with_the_sustained_rate() -> None:
    """The same H200 with its matmuls sustaining the datasheet's 989.4 instead of 794.5: a
    compute-bound LoRA step (every layer resident) runs 989.4 / 794.5 faster, the split and
    micro-batch unchanged."""
    workload = peft_workload(LLAMA_8B, eager_traffic=None)
    measured = simulate(SimulationRequest(workload=workload, hardware=h200())).best
    at_peak_gpu = replace(h200().require_gpu(), bf16_sustained_tflops=989.4)
    at_peak = simulate(
        SimulationRequest(workload=workload, hardware=replace(h200(), gpu=at_peak_gpu))
    ).best
    assert measured.bottleneck == at_peak.bottleneck == "compute"
    assert measured.micro_batch == at_peak.micro_batch
    assert at_peak.tokens_per_s / measured.tokens_per_s == pytest.approx(989.4 / 794.5, rel=0.02)
    assert at_peak.tokens_per_s > measured.tokens_per_s


def test_reference_mode_keeps_the_seeds_datasheet_peak() -> None:
    """Seed 000's method computes at the peak × its utilization: the sustained figure does
    not enter it."""
    workload = replace(peft_workload(LLAMA_8B), mode=MODE_REFERENCE, eager_traffic=None)
    other = replace(h200().require_gpu(), bf16_sustained_tflops=100.0)
    one = simulate(SimulationRequest(workload=workload, hardware=h200())).best
    two = simulate(SimulationRequest(workload=workload, hardware=replace(h200(), gpu=other)))
    assert two.best.tokens_per_s == one.tokens_per_s

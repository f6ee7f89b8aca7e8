"""The fit recovers a key's FLOPS efficiency and its routed experts' m½ from rows measured as
the engine predicts them: the two trade off along a valley (a lower efficiency with a smaller
m½ predicts the same MoE prompts and slower dense ones), where a search in one constant at a
time stopped short of the truth (docs/accuracy.md, "What moved in engine 1.24.0")."""

from dataclasses import replace
from typing import Any

import pytest

from simulator.engine.calibration.corpus import MeasurementRow
from simulator.engine.calibration.efficiency import Efficiency, load_efficiency
from simulator.engine.calibration.fit import fit_efficiency, grid_minimum_2d
from simulator.engine.calibration.predict import predicted_value
from simulator.engine.calibration.setups import row_setup
from simulator.engine.serve.hardware import UNIFIED
from tests.simulator.engine.corpus_rows import corpus_row

VULKAN = "llama.cpp-vulkan"
TRUE_FLOPS_EFFICIENCY = 0.46
TRUE_HALF_ROWS = 64.0
STRIX_HALO = {
    "system": "Framework Desktop 128GB",
    "gpu": "AMD Radeon 8060S (Strix Halo iGPU)",
    "gpu_count": 1,
}
# (model, quant, phase, test): dense and MoE prompts, and decodes to pin the bandwidth.
WORKLOADS = [
    ("Llama 2 7B", "Q4_0", "prefill", "pp512"),
    ("Llama 2 7B", "Q4_0", "prefill", "pp2048"),
    ("Mistral Small 3.1 24B Instruct 2503", "Q4_K_M", "prefill", "pp512"),
    ("Qwen3-30B-A3B", "Q4_K_M", "prefill", "pp512"),
    ("OpenAI gpt-oss-120b", "MXFP4", "prefill", "pp512"),
    ("GLM-4.5-Air", "Q4_K_M", "prefill", "pp512"),
    ("Llama 2 7B", "Q4_0", "decode", "tg128"),
    ("Qwen3-30B-A3B", "Q4_K_M", "decode", "tg128"),
    ("OpenAI gpt-oss-120b", "MXFP4", "decode", "tg128"),
]


def _truth() -> Efficiency:
    table = load_efficiency()
    entry = table.get(VULKAN, UNIFIED)
    return table.replace(
        replace(
            entry,
            flops_efficiency=TRUE_FLOPS_EFFICIENCY,
            attention_efficiency=None,
            expert_gemm_half_rows=TRUE_HALF_ROWS,
        )
    )


def _rows(truth: Efficiency) -> list[MeasurementRow]:
    """The workloads on one Strix Halo machine under Vulkan, measured at `truth`, from two
    sources (a fitted m½ needs two)."""
    rows = []
    for i, (model, quant, phase, test) in enumerate(WORKLOADS):
        body: dict[str, Any] = {
            "id": f"S{i}",
            "category": "inference_unified_memory_moe",
            "engine": "llama.cpp Vulkan",
            "hardware": STRIX_HALO,
            "model": model,
            "quant": quant,
            "workload": {"phase": phase, "test": test, "batch": 1},
            "source": {"url": f"https://example.org/strix-halo-{i // 2 % 2}"},
        }
        row = corpus_row(**body)
        measured, _ = predicted_value(row_setup(row), truth, row.unit)
        rows.append(replace(row, value=measured))
    return rows


@pytest.fixture(scope="module")
def fitted() -> tuple[Efficiency, list[MeasurementRow]]:
    rows = _rows(_truth())
    return fit_efficiency(rows), rows


def test_the_fit_recovers_the_flops_efficiency_and_m_half_together(
    fitted: tuple[Efficiency, list[MeasurementRow]],
) -> None:
    table, _ = fitted
    entry = table.get(VULKAN, UNIFIED)
    assert entry.flops_efficiency == pytest.approx(TRUE_FLOPS_EFFICIENCY, abs=0.011)
    assert entry.expert_gemm_half_rows == pytest.approx(TRUE_HALF_ROWS, abs=2.1)


def test_every_prompt_reads_within_two_per_cent_at_the_fitted_constants(
    fitted: tuple[Efficiency, list[MeasurementRow]],
) -> None:
    table, rows = fitted
    for row in rows:
        if row.workload["phase"] != "prefill":
            continue
        predicted, _ = predicted_value(row_setup(row), table, row.unit)
        assert predicted == pytest.approx(row.value, rel=0.02), row.model


def test_the_joint_search_finds_the_whole_grid_minimum_of_a_valley() -> None:
    """A loss whose trough runs diagonally (x up, y up): one constant at a time from a corner
    stops short; the coarse-to-fine search of both finds the brute-force minimum."""
    xs = tuple(round(0.02 + 0.01 * i, 2) for i in range(99))
    ys = tuple(float(2 * i) for i in range(129))
    for x0, y0 in ((0.46, 64.0), (0.2, 10.0), (0.9, 250.0)):

        def loss(x: float, y: float, x0: float = x0, y0: float = y0) -> float:
            along, across = (x - x0) + (y - y0) / 256, (x - x0) - (y - y0) / 256
            return abs(along) + 50 * across**2

        best = min(((x, y) for x in xs for y in ys), key=lambda xy: loss(*xy))
        assert grid_minimum_2d((xs, ys), (5, 8), loss) == best

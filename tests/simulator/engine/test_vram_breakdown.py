"""The result says where one GPU's VRAM goes at the best split (reference-model.md §6), so the
pages draw the engine's figures instead of working the budget out again."""

from typing import Any

import pytest

from simulator.engine import parse_request, result_to_json, simulate

GLM = {"model": "glm-4.7", "quant": "NF4d+NF2e"}
CUDA_CONTEXT_GIB = 2.5  # §6
LAYER_GIB = 1237 / 1024  # §2: NF4d+NF2e, 1237 MiB per layer
LORA_GIB_PER_LAYER = 6_356_992 * 16 / 1024**3  # §3: 6.36 M params x 16 bytes


def _result(gpu: str, mode: str = "reference") -> dict[str, Any]:
    body = {"workload": {**GLM, "mode": mode}, "hardware": {"gpu": gpu}}
    return result_to_json(simulate(parse_request(body)))


def test_the_parts_add_up_to_the_gpus_memory() -> None:
    result = _result("RTX 4090")

    assert sum(result["vram_breakdown_gb"].values()) == pytest.approx(24.0)


def test_each_part_is_the_reference_budgets_term() -> None:
    result = _result("RTX 4090")
    parts, best = result["vram_breakdown_gb"], result["best"]

    assert parts["resident_weights"] == pytest.approx(best["resident_layers"] * LAYER_GIB)
    assert parts["stream_buffer"] == pytest.approx(2 * LAYER_GIB)  # something streams
    assert parts["lora"] == pytest.approx(92 * LORA_GIB_PER_LAYER, rel=1e-3)  # 92 layers
    assert parts["cuda_context"] == CUDA_CONTEXT_GIB
    assert parts["activations_and_headroom"] == best["free_vram_gb"]


def test_a_refined_result_adds_up_too() -> None:
    result = _result("RTX 5090", mode="refined")

    assert sum(result["vram_breakdown_gb"].values()) == pytest.approx(32.0)
    assert min(result["vram_breakdown_gb"].values()) >= 0

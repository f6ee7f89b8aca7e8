"""A training ranking's candidates go through the engine's batch path in one call per chunk,
and each answer is what simulating that candidate alone gives."""

from typing import Any

import pytest

from simulator.engine import EngineInputError, parse_request, simulate
from simulator.services.rankings import (
    ranking_options_normalize,
    ranking_plan,
    ranking_train_physics,
)

SAMPLE = 7  # every 7th candidate of the catalog: about 330 builds, all GPU counts


def _one_at_a_time(hardware: dict[str, Any], workload: dict[str, Any]) -> Any:
    try:
        best = simulate(parse_request({"workload": workload, "hardware": hardware})).best
    except EngineInputError as error:
        return error.message
    return (best.tokens_per_s, best.resident_layers, best.micro_batch, best.bottleneck)


def _batch(answer: Any) -> Any:
    if isinstance(answer, EngineInputError):
        return answer.message
    keys = ("tokens_per_s", "resident_layers", "micro_batch", "bottleneck")
    return tuple(answer[key] for key in keys)


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["reference", "refined"])
def test_each_candidates_answer_is_what_it_gets_alone(catalog: None, mode: str) -> None:
    workload = {"kind": "train", "model": "glm-4.7", "quant": "NVFP4", "mode": mode}
    items = ranking_plan(options=ranking_options_normalize({}))[::SAMPLE]
    hardware = [item["hardware"] for item in items]

    answers = ranking_train_physics(hardware=hardware, workload=workload)

    assert [_batch(a) for a in answers] == [_one_at_a_time(h, workload) for h in hardware]
    assert any(isinstance(a, EngineInputError) for a in answers)  # no FP4 cores
    assert any(not isinstance(a, EngineInputError) for a in answers)


@pytest.mark.django_db
def test_an_fp8_rankings_candidates_get_their_own_gpus_speedup_or_its_refusal(
    catalog: None,
) -> None:
    """FP8's speedup is each GPU's FP8/BF16 ratio, so each candidate is simulated alone; a
    GPU without FP8 tensor cores (the catalog's Ampere cards) is refused, never run in BF16
    (AMD cards are refused for training whatever the format)."""
    workload = {"kind": "train", "model": "llama-3.1-8b", "quant": "FP8", "mode": "refined"}
    items = ranking_plan(options=ranking_options_normalize({}))[::SAMPLE]
    hardware = [item["hardware"] for item in items]

    answers = ranking_train_physics(hardware=hardware, workload=workload)

    assert [_batch(a) for a in answers] == [_one_at_a_time(h, workload) for h in hardware]
    refused = [a.message for a in answers if isinstance(a, EngineInputError)]
    assert refused
    assert any("FP8 tensor cores" in message for message in refused)
    assert any(not isinstance(a, EngineInputError) for a in answers)

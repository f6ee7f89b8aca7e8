"""A serving ranking's candidates go through the engine's batch path in one call per chunk
(`best_placements`), and each row is what searching that candidate's placements alone gives
(`ranking_infer_physics`, the per-build specification)."""

from typing import Any

import pytest

from simulator.engine import EngineInputError
from simulator.services.rankings import (
    ranking_body_normalize,
    ranking_infer_batch,
    ranking_infer_physics,
    ranking_plan,
)

WORKLOADS = [
    {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M", "context": 32768},
    {"kind": "infer", "model": "llama-3.1-70b", "quant": "Q4_K_M", "context": 8192},
    {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q8_0", "placement": "hybrid"},
]


def _one_at_a_time(hardware: dict[str, Any], workload: dict[str, Any]) -> Any:
    try:
        return ranking_infer_physics(hardware=hardware, workload=workload)
    except EngineInputError as error:
        return error.message


def _batch(answer: Any) -> Any:
    return answer.message if isinstance(answer, EngineInputError) else answer


@pytest.mark.django_db
@pytest.mark.parametrize("body", WORKLOADS, ids=["moe-auto", "dense-auto", "moe-hybrid-only"])
def test_each_candidates_row_is_what_it_gets_alone(catalog: None, body: dict[str, Any]) -> None:
    normalized = ranking_body_normalize({"workload": body})
    hardware = [item["hardware"] for item in ranking_plan(options=normalized["ranking"])]
    workload = normalized["workload"]

    answers = ranking_infer_batch(hardware=hardware, workload=workload)

    assert [_batch(a) for a in answers] == [_one_at_a_time(h, workload) for h in hardware]
    rows = [a for a in answers if not isinstance(a, EngineInputError)]
    assert rows
    if body.get("placement") == "hybrid":
        assert {row["placement"] for row in rows} == {"hybrid"}

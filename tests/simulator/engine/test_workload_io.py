"""A workload section alone is validated and echoed with its defaults: rankings normalise their
workload this way, with no made-up hardware to parse it against."""

from typing import Any

import pytest

from simulator.engine import (
    DEFAULT_MODE,
    EngineInputError,
    normalize_workload,
    parse_request,
    request_to_json,
)

TRAIN = {"kind": "train", "model": "glm-4.7", "quant": "NF4d+NF2e"}
INFER = {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M"}


@pytest.mark.parametrize(
    ("workload", "hardware"),
    [(TRAIN, {"gpu": "RTX 4090"}), (INFER, {"gpu": "RTX 4090"})],
)
def test_it_echoes_what_the_whole_request_would(
    workload: dict[str, Any], hardware: dict[str, Any]
) -> None:
    whole = request_to_json(parse_request({"workload": workload, "hardware": hardware}))

    assert normalize_workload(workload) == whole["workload"]


def test_the_defaults_are_filled_in() -> None:
    echoed = normalize_workload(TRAIN)

    assert (echoed["seq_len"], echoed["lora_rank"], echoed["mode"]) == (1024, 64, DEFAULT_MODE)
    assert DEFAULT_MODE == "refined"


@pytest.mark.parametrize("workload", [{**TRAIN, "seq_length": 2048}, {**INFER, "ctx": 1}])
def test_an_unknown_field_is_refused(workload: dict[str, Any]) -> None:
    with pytest.raises(EngineInputError, match="unknown field"):
        normalize_workload(workload)


def test_a_workload_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(EngineInputError) as caught:
        normalize_workload(["train"])

    assert caught.value.field == "workload"

"""Errors name engine quantities; one table turns them into the request's JSON paths."""

import copy

import pytest

from simulator.engine import EngineInputError, json_path, parse_request, simulate
from tests.simulator.engine.test_request import ISSUE_BODY


def test_a_model_that_cannot_fit_names_the_engine_quantity_and_its_json_path():
    body = copy.deepcopy(ISSUE_BODY)
    body["hardware"]["gpu"]["vram_gb"] = 8
    with pytest.raises(EngineInputError) as error:
        simulate(parse_request(body))
    assert error.value.field == "hardware.gpu.vram_gib"
    assert json_path(error.value.field) == "hardware.gpu.vram_gb"


@pytest.mark.parametrize(
    ("engine_field", "request_path"),
    [
        ("hardware.ram_gib", "hardware.ram_gb"),
        ("hardware.pinned_gib", "hardware.pinned_gb"),
        ("hardware.unified.mem_gib", "hardware.unified.mem_gb"),
    ],
)
def test_capacities_in_gib_map_to_the_requests_gb_fields(engine_field, request_path):
    assert json_path(engine_field) == request_path


def test_a_path_the_parser_named_stays_as_it_is():
    assert json_path("workload.seq_len") == "workload.seq_len"

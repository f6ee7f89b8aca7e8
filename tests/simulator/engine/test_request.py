"""Parsing the request body: the issue's inline form, defaults, and errors naming fields."""

import copy
import math
from typing import Any

import pytest

from simulator.engine import parse_request, request_to_json
from simulator.engine.errors import EngineInputError

ISSUE_BODY: dict[str, Any] = {
    "workload": {"kind": "train", "model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": 1024,
                 "lora_rank": 64, "tokens": 50000000, "mode": "reference", "utilization": 0.70},
    "hardware": {"gpu": {"name": "RTX 4090", "vram_gb": 24, "bf16_tflops": 165, "pcie_gbps": 22,
                         "fp4": False},
                 "gpu_count": 1, "nvme_gbps": 7, "ram_gb": 32, "pinned_gb": 26},
}  # fmt: skip


def with_value(path: str, value: object) -> dict[str, Any]:
    body: dict[str, Any] = copy.deepcopy(ISSUE_BODY)
    *parents, leaf = path.split(".")
    node = body
    for key in parents:
        node = node[key]
    node[leaf] = value
    return body


def field_of_error(body: object) -> str:
    with pytest.raises(EngineInputError) as error:
        parse_request(body)
    return error.value.field


def test_it_accepts_the_issues_inline_hardware_form():
    request = parse_request(ISSUE_BODY)
    assert request.workload.model.slug == "glm-4.7"
    assert (request.hardware.require_gpu().vram_gib, request.hardware.pinned_gib) == (24, 26)


def test_the_normalized_body_parses_back_to_the_same_request():
    request = parse_request(ISSUE_BODY)
    assert parse_request(request_to_json(request)) == request


def test_pinned_ram_defaults_from_the_reference_table():
    body = copy.deepcopy(ISSUE_BODY)
    del body["hardware"]["pinned_gb"]
    body["hardware"]["ram_gb"] = 64
    assert parse_request(body).hardware.pinned_gib == 56  # reference-model.md §7: 64 → 56


def test_a_gpu_may_be_named_from_the_seed_table():
    body = with_value("hardware.gpu", "RTX 5090")
    assert parse_request(body).hardware.require_gpu().fp4


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("workload.seq_len", -1),
        ("workload.seq_len", 0),
        ("workload.seq_len", 131073),
        ("workload.seq_len", 1024.5),
        ("workload.seq_len", True),
        ("workload.utilization", math.nan),
        ("workload.utilization", 1.5),
        ("workload.lora_rank", 0),
        ("workload.tokens", -5),
        ("workload.model", "gpt-5"),
        ("workload.quant", "NF1"),
        ("workload.mode", "magic"),
        ("workload.kind", "serve"),
        ("hardware.gpu.vram_gb", 0),
        ("hardware.gpu.vram_gb", math.inf),
        ("hardware.gpu.bf16_tflops", -165),
        ("hardware.gpu.pcie_gbps", "fast"),
        ("hardware.gpu.fp4", "yes"),
        ("hardware.gpu_count", 0),
        ("hardware.nvme_gbps", math.nan),
        ("hardware.ram_gb", -1),
        ("hardware.pinned_gb", 64),
    ],
)
def test_it_names_the_bad_field(path, value):
    assert field_of_error(with_value(path, value)) == path


def test_it_rejects_a_body_that_is_not_an_object():
    assert field_of_error([1, 2]) == "request"


def test_it_rejects_a_missing_hardware_section():
    assert field_of_error({"workload": ISSUE_BODY["workload"]}) == "hardware"


def test_it_accepts_an_inline_config_json():
    config = {
        "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
    }  # fmt: skip
    body = with_value("workload.model_config", config)
    body["workload"]["model"] = "my-llama"
    request = parse_request(body)
    assert request.workload.model.num_layers == 32
    assert parse_request(request_to_json(request)) == request


def test_an_inline_config_names_its_missing_field():
    body = with_value("workload.model_config", {"hidden_size": 4096})
    assert field_of_error(body) == "workload.model_config.num_hidden_layers"


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("workload.sequence_length", 2048),
        ("hardware.nvme_gb", 7),
        ("hardware.gpu.vram", 24),
        ("extra", 1),
    ],
)
def test_an_unknown_field_is_refused_by_its_path(path, value):
    assert field_of_error(with_value(path, value)) == path


def test_a_misspelled_field_names_the_field_it_resembles():
    with pytest.raises(EngineInputError, match="did you mean 'seq_len'"):
        parse_request(with_value("workload.sequence_length", 2048))

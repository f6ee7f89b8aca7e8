"""Parsing inference bodies: the issue's inline form, dispatch by kind, errors naming fields."""

import copy
from typing import Any

import pytest

from simulator.engine import (
    InferenceResult,
    InferWorkload,
    SimulationRequest,
    json_path,
    parse_request,
    request_to_json,
    result_to_json,
)
from simulator.engine.errors import EngineInputError
from simulator.engine.simulate import simulate

from .test_request import ISSUE_BODY as TRAIN_BODY

INFER_BODY: dict[str, Any] = {
    "workload": {"kind": "infer", "model": "glm-4.7-flash", "quant": "IQ5_K", "context": 32768,
                 "prompt_tokens": 4096, "batch": 1, "placement": "hybrid"},
    "hardware": {"gpu": {"name": "RTX PRO 6000", "vram_gb": 96, "bf16_tflops": 300,
                         "pcie_gbps": 44, "mem_gbps": 1792},
                 "cpu": {"name": "EPYC 9175F", "cores": 16, "mem_gbps": 614,
                         "flops_per_core_cycle": 64, "ghz": 4.2},
                 "ram_gb": 768, "link_gbps": 44},
}  # fmt: skip
RESULT_KEYS = {
    "prefill_tokens_per_s", "decode_tokens_per_s", "weights_gb", "kv_cache_gb", "max_context",
    "bottleneck", "placement", "decode", "prefill",
}  # fmt: skip


def with_value(path: str, value: object) -> dict[str, Any]:
    body: dict[str, Any] = copy.deepcopy(INFER_BODY)
    *parents, leaf = path.split(".")
    node = body
    for key in parents:
        node = node[key]
    node[leaf] = value
    return body


def field_of_error(body: object) -> str:
    with pytest.raises(EngineInputError) as error:
        simulate(parse_request(body))
    return json_path(error.value.field)  # as the API names it


def test_an_infer_body_parses_to_an_inference_request():
    request = parse_request(INFER_BODY)
    assert isinstance(request.workload, InferWorkload)
    assert request.hardware.cpu is not None
    assert request.hardware.cpu.peak_flops == 16 * 64 * 4.2e9


def test_a_train_body_still_parses_to_the_training_request():
    assert isinstance(parse_request(TRAIN_BODY), SimulationRequest)


def test_the_normalized_infer_body_parses_back_to_the_same_request():
    request = parse_request(INFER_BODY)
    assert parse_request(request_to_json(request)) == request


def test_a_per_part_quant_round_trips():
    request = parse_request(with_value("workload.quant", {"default": "Q8_0", "experts": "IQ4_XS"}))
    assert parse_request(request_to_json(request)) == request


def test_simulate_dispatches_on_the_kind_and_the_json_has_the_inference_fields():
    result = simulate(parse_request(INFER_BODY))
    assert isinstance(result, InferenceResult)
    body = result_to_json(result)
    assert set(body) >= RESULT_KEYS
    assert set(body["weights_gb"]) == {"gpu", "cpu"}


def test_a_named_gpu_takes_its_bandwidth_from_the_datasheet_table():
    request = parse_request(with_value("hardware.gpu", "RTX 4090"))
    assert isinstance(request.workload, InferWorkload)
    assert request.hardware.gpu is not None
    assert request.hardware.gpu.mem_gbps == 1008


def test_unified_memory_hardware_parses():
    body = with_value("workload.placement", "unified")
    body["hardware"] = {"unified": {"name": "M4 Max", "mem_gb": 128, "mem_gbps": 546, "tflops": 34}}
    result = simulate(parse_request(body))
    assert isinstance(result, InferenceResult)
    assert result.placement.kv_location == "unified"


@pytest.mark.parametrize(
    ("hardware", "placement"),
    [
        ({"unified": "framework-desktop-ryzen-ai-max-395-128gb"}, "unified"),
        ({"cpu": "epyc-9124", "ram_gb": 256}, "cpu"),
        ({"gpu": "RTX 3090", "cpu": "epyc-9124", "ram_gb": 256}, "gpu"),
    ],
)
def test_a_workload_naming_no_placement_runs_where_the_hardware_can(hardware, placement):
    workload = {k: v for k, v in INFER_BODY["workload"].items() if k != "placement"}
    request = parse_request({"workload": workload, "hardware": hardware})
    assert request.workload.placement == placement
    result = simulate(request)
    assert isinstance(result, InferenceResult)
    assert result.placement.name == placement
    # a placement named keeps its refusal
    named = {"workload": {**workload, "placement": "gpu"}, "hardware": hardware}
    if "gpu" not in hardware:
        assert field_of_error(named) == "hardware.gpu"


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("workload.placement", "cloud"),
        ("workload.context", 0),
        ("workload.batch", 1.5),
        ("workload.quant", "Q3_Z"),
        ("workload.kv_cache_type", "q2"),
        ("workload.offload_from_layer", 48),
        ("hardware.gpu.mem_gbps", -1),
        ("hardware.cpu.cores", 0),
        ("hardware.cpu.ghz", "fast"),
        ("hardware.link_gbps", 0),
        ("hardware.cpu", None),
        ("hardware.ram_gb", 8),
    ],
)
def test_it_names_the_bad_field(path, value):
    assert field_of_error(with_value(path, value)) == path


@pytest.mark.parametrize("beside", [("gpu",), ("cpu",), ("gpu", "cpu")])
def test_a_whole_system_beside_a_pcs_gpu_or_cpu_is_refused_naming_both(beside):
    body = with_value("hardware.unified", "Mac Studio M3 Ultra 512GB")
    for part in {"gpu", "cpu"} - set(beside):
        del body["hardware"][part]
    with pytest.raises(EngineInputError) as error:
        parse_request(body)
    assert json_path(error.value.field) == "hardware.unified"
    assert all(f"hardware.{part}" in str(error.value) for part in beside)


def test_an_unknown_named_gpu_without_bandwidth_names_mem_gbps():
    body = with_value(
        "hardware.gpu", {"name": "X", "vram_gb": 8, "bf16_tflops": 10, "pcie_gbps": 8}
    )
    assert field_of_error(body) == "hardware.gpu.mem_gbps"


def test_a_model_too_big_for_the_gpu_names_the_vram():
    body = with_value("workload.placement", "gpu")
    body["workload"]["model"] = "deepseek-v3"
    assert field_of_error(body) == "hardware.gpu.vram_gb"

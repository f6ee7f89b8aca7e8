"""Several machines splitting a model's layers over a network (llama.cpp's RPC backend,
serve/network.py): their memory adds up, a token visits them one after another at one
machine's pace, and each of the M − 1 boundaries costs the hidden state's bytes over the
network plus the fitted fixed cost of a crossing."""

from dataclasses import replace
from typing import Any

import pytest

from simulator.engine.calibration.efficiency import load_efficiency
from simulator.engine.errors import EngineInputError
from simulator.engine.io.request import parse_request
from simulator.engine.serve.decode import ACTIVATION_BYTES
from simulator.engine.serve.inference import simulate_inference
from simulator.engine.serve.network import network_s
from simulator.engine.simulate import simulate
from simulator.engine.units import GIB

STRIX = "framework-desktop-ryzen-ai-max-395-128gb"
GPT_OSS = {
    "kind": "infer", "model": "gpt-oss-120b", "quant": "MXFP4", "placement": "unified",
    "runtime": "llama.cpp-vulkan", "context": 4096, "prompt_tokens": 2048, "ubatch": 512,
}  # fmt: skip
GPT_OSS_HIDDEN = 2880  # openai/gpt-oss-120b config.json, hidden_size


def _request(hardware: dict[str, Any], **workload: Any) -> Any:
    return parse_request({"workload": {**GPT_OSS, **workload}, "hardware": hardware})


def _run(hardware: dict[str, Any], *, hop_s: float = 0.0, **workload: Any) -> Any:
    table = replace(load_efficiency(), network_hop_s=hop_s)
    return simulate_inference(_request(hardware, **workload), table)


def test_each_boundary_costs_the_hidden_states_bits_over_the_network_and_a_fixed_hop() -> None:
    hardware = _request({"unified": STRIX, "machines": 3, "network_gbit_per_s": 10}).hardware
    seconds = network_s(hardware, tokens=4, micro_batches=1, hidden_size=2880, hop_s=1e-3)
    bits = 4 * 2880 * ACTIVATION_BYTES * 8
    assert seconds == pytest.approx(2 * (1e-3 + bits / 10e9))
    one = _request({"unified": STRIX}).hardware
    assert network_s(one, tokens=4, micro_batches=1, hidden_size=2880, hop_s=1e-3) == 0.0


def test_two_machines_add_the_network_to_one_machines_step_and_double_its_memory() -> None:
    one = _run({"unified": STRIX})
    two = _run({"unified": STRIX, "machines": 2, "network_gbit_per_s": 10}, hop_s=2e-3)

    crossing = 2e-3 + GPT_OSS_HIDDEN * ACTIVATION_BYTES * 8 / 10e9
    assert two.decode.network_s == pytest.approx(crossing)
    assert two.decode.step_s == pytest.approx(one.decode.step_s + crossing)
    # the prompt crosses in 2048 / 512 = 4 micro-batches, every token's hidden state once
    prompt_bits = 2048 * GPT_OSS_HIDDEN * ACTIVATION_BYTES * 8
    assert two.prefill.network_s == pytest.approx(4 * 2e-3 + prompt_bits / 10e9)
    assert two.prefill.time_s == pytest.approx(one.prefill.time_s + two.prefill.network_s)
    assert two.devices[0].capacity_bytes == pytest.approx(2 * one.devices[0].capacity_bytes)


def test_a_model_too_big_for_one_machine_fits_three() -> None:
    """DeepSeek-V3 (R1's shape) at Q2_K, about 247 GiB of weights, on 128 GB Strix Halo
    systems, each of whose GPUs may hold 120 GiB."""
    r1: dict[str, Any] = {"model": "deepseek-v3", "quant": "Q2_K", "runtime": "llama.cpp-rocm"}
    with pytest.raises(EngineInputError) as error:
        _run({"unified": STRIX}, **r1)
    assert error.value.field == "hardware.unified.mem_gib"
    with pytest.raises(EngineInputError):
        _run({"unified": STRIX, "machines": 2, "network_gbit_per_s": 50}, **r1)
    three = _run({"unified": STRIX, "machines": 3, "network_gbit_per_s": 50}, **r1)
    assert three.devices[0].capacity_bytes == pytest.approx(3 * 120 * GIB)
    assert three.decode.tokens_per_s > 0


@pytest.mark.parametrize(
    ("hardware", "workload", "field"),
    [
        ({"unified": STRIX, "machines": 2}, {}, "hardware.network_gbit_per_s"),
        ({"unified": STRIX, "network_gbit_per_s": 10}, {}, "hardware.network_gbit_per_s"),
        ({"unified": STRIX, "machines": 0, "network_gbit_per_s": 10}, {}, "hardware.machines"),
        ({"unified": STRIX, "machines": 2, "network_gbit_per_s": 0}, {},
         "hardware.network_gbit_per_s"),
        ({"unified": STRIX, "machines": 2, "network_gbit_per_s": 10}, {"runtime": "vllm"},
         "hardware.machines"),
        ({"gpu": "RTX 4090", "cpu": "EPYC 9354P", "ram_gb": 256, "machines": 2,
          "network_gbit_per_s": 10}, {"placement": "hybrid", "runtime": "llama.cpp"},
         "hardware.machines"),
    ],
)  # fmt: skip
def test_what_several_machines_cannot_be_is_refused_naming_the_field(
    hardware: dict[str, Any], workload: dict[str, Any], field: str
) -> None:
    with pytest.raises(EngineInputError) as error:
        simulate(_request(hardware, **workload))
    assert error.value.field == field


def test_training_runs_on_one_machine() -> None:
    body = {
        "workload": {"kind": "train", "model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": 1024},
        "hardware": {"gpu": "RTX 4090", "machines": 2, "network_gbit_per_s": 10},
    }
    with pytest.raises(EngineInputError) as error:
        parse_request(body)
    assert error.value.field == "hardware.machines"

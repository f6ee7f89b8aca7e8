"""The KV cache in host RAM (docs/model.md, "KV cache in host RAM"; llama.cpp -nkvo): the weights
on the GPU, the cache and the attention over it on the CPU, the query, the new cache entry
and the attention's output crossing the link at every layer."""

from typing import Any

import pytest

from simulator.engine import parse_request
from simulator.engine.errors import EngineInputError
from simulator.engine.model.registry import load_model
from simulator.engine.serve.decode import ACTIVATION_BYTES, attention_crossing_bytes
from simulator.engine.serve.kv_cache import kv_bytes_per_token
from simulator.engine.simulate import simulate
from simulator.engine.units import GB


def _body(**workload: Any) -> dict[str, Any]:
    return {
        "workload": {
            "kind": "infer", "model": "llama-3.1-8b", "quant": "Q4_K_M", "context": 32768,
            "prompt_tokens": 2048, "placement": "gpu", **workload,
        },
        "hardware": {"gpu": "RTX 4090", "cpu": "Ryzen 9 7950X", "ram_gb": 64},
    }  # fmt: skip


def test_the_cache_and_its_reads_move_to_host_ram() -> None:
    """Decode reads the 32k-token cache from host RAM at the CPU's bandwidth instead of the
    GPU's: the GPU keeps its weight reads, the CPU gets the cache's bytes and one graph
    segment per layer; the cache's bytes are the same either way."""
    gpu = simulate(parse_request(_body()))
    ram = simulate(parse_request(_body(kv_cache_on_cpu=True)))
    assert ram.placement.kv_location == "cpu"
    on_gpu = {step.location: step for step in gpu.decode.locations}
    in_ram = {step.location: step for step in ram.decode.locations}
    assert in_ram["gpu"].kv_bytes == 0.0
    assert in_ram["gpu"].weight_bytes == pytest.approx(on_gpu["gpu"].weight_bytes)
    assert in_ram["cpu"].kv_bytes == pytest.approx(on_gpu["gpu"].kv_bytes)
    assert in_ram["cpu"].weight_bytes == 0.0
    assert in_ram["cpu"].overhead_s > 0.0  # 32 layers' CPU segments
    assert ram.decode.tokens_per_s < gpu.decode.tokens_per_s


def test_each_layer_sends_the_query_and_cache_entry_and_gets_the_output_back() -> None:
    """Llama 3.1 8B: a 4,096-wide query and output and a 2 × 8 × 128 cache entry, f32, over
    32 layers: 32 × 4 × (2 × 4,096 + 2,048) B = 1.31 MB a token, at the GPU's PCIe."""
    model = load_model("llama-3.1-8b")
    per_layer = attention_crossing_bytes(model)
    assert per_layer == ACTIVATION_BYTES * (2 * 4096 + 2 * 8 * 128)
    ram = simulate(parse_request(_body(kv_cache_on_cpu=True)))
    assert ram.decode.link_bytes == pytest.approx(32 * per_layer)
    pcie = ram.request.hardware.link_gbps
    assert ram.decode.link_s == pytest.approx(32 * per_layer / (pcie * GB))


def test_the_prompts_attention_runs_on_the_cpu() -> None:
    """A 2,048-token prompt: the GPU keeps the weight GEMMs, the CPU computes the causal
    attention and reads the cache, and its time adds to the GPU's."""
    gpu = simulate(parse_request(_body()))
    ram = simulate(parse_request(_body(kv_cache_on_cpu=True)))
    assert gpu.prefill.cpu_attention_s == 0.0
    assert ram.prefill.cpu_attention_s > 0.0
    assert ram.prefill.compute_s < gpu.prefill.compute_s  # attention left the GPU
    assert ram.prefill.time_s > gpu.prefill.time_s


def test_host_ram_sets_the_longest_context() -> None:
    """The cache no longer competes with the weights for VRAM: the longest context is what
    the host RAM holds (capped at the model's trained 131,072 tokens)."""
    small = {"gpu": "RTX 4060 Ti 16GB", "cpu": "Ryzen 9 7950X", "ram_gb": 64}
    gpu = simulate(parse_request({**_body(), "hardware": small}))
    ram = simulate(parse_request({**_body(kv_cache_on_cpu=True), "hardware": small}))
    per_token = kv_bytes_per_token(load_model("llama-3.1-8b"), "f16")
    assert per_token == 2 * 32 * 8 * 128 * 2  # K and V, 32 layers, 8 heads of 128, f16
    assert gpu.max_context < 131072
    assert ram.max_context == 131072


@pytest.mark.parametrize(
    ("workload", "hardware", "field"),
    [
        ({"placement": "cpu"}, {}, "workload.kv_cache_on_cpu"),
        ({}, {"cpu": None}, "hardware.cpu"),
        ({"tensor_parallel": 2}, {"gpu_count": 2}, "workload.kv_cache_on_cpu"),
    ],
)
def test_requests_that_cannot_keep_the_cache_in_host_ram_are_refused(
    workload: dict[str, Any], hardware: dict[str, Any], field: str
) -> None:
    body = _body(kv_cache_on_cpu=True, **workload)
    body["hardware"] = {k: v for k, v in {**body["hardware"], **hardware}.items() if v is not None}
    with pytest.raises(EngineInputError) as raised:
        simulate(parse_request(body))
    assert raised.value.field == field

"""Whole layers in host RAM (docs/model.md, "Whole layers in host RAM"; llama.cpp's -ngl below
the model's layers): the last layers on the GPU, the first ones with their KV cache on the
CPU, the prompt's GEMMs on the GPU with the CPU's layers copied over the link; each figure
derived from named quantities."""

from typing import Any

import pytest

from simulator.engine import parse_request
from simulator.engine.errors import EngineInputError
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.model.layers import attention_params, dense_layer, total_params
from simulator.engine.model.registry import load_model
from simulator.engine.serve.context_sweep import ALWAYS_ON, KV_CACHE, TABLES, placement_contents
from simulator.engine.serve.decode import ACTIVATION_BYTES, attention_crossing_bytes
from simulator.engine.serve.inference import InferenceResult
from simulator.engine.serve.placement import model_parts, place
from simulator.engine.simulate import simulate

MODEL = load_model("llama-3.1-8b")  # 32 identical dense layers, untied embeddings
SCHEME = weight_scheme("Q8_0")


def _body(**workload: Any) -> dict[str, Any]:
    return {
        "workload": {
            "kind": "infer", "model": "llama-3.1-8b", "quant": "Q8_0", "context": 8192,
            "prompt_tokens": 2048, **workload,
        },
        "hardware": {"gpu": "RTX 4060 Ti 16GB", "cpu": "Ryzen 9 7950X", "ram_gb": 64},
    }  # fmt: skip


def _run(**workload: Any) -> InferenceResult:
    result = simulate(parse_request(_body(**workload)))
    assert isinstance(result, InferenceResult)
    return result


def _layer_bytes() -> float:
    """One decoder layer of Llama 3.1 8B: its attention and MLP weights, in Q8_0's bytes."""
    layer = dense_layer(MODEL)
    attention = attention_params(MODEL.attention, MODEL.hidden_size)
    bpw = SCHEME.bytes_per_weight
    return attention * bpw("attention") + (total_params(layer) - attention) * bpw("dense")


def test_the_first_layers_and_the_embedding_move_to_host_ram() -> None:
    """12 of 32 layers on the GPU: the CPU holds the first 20 layers and the token embedding,
    the GPU the last 12 and the LM head; nothing is lost or counted twice (the embedding is
    not tied)."""
    parts = model_parts(MODEL)
    whole = place(parts, SCHEME, "gpu")
    split = place(parts, SCHEME, "gpu", gpu_layers=12)
    gpu, cpu = split.share("gpu"), split.share("cpu")
    assert gpu is not None
    assert cpu is not None
    table = parts.embeddings * SCHEME.bytes_per_weight("embeddings")
    assert cpu.stored_bytes == pytest.approx(20 * _layer_bytes() + table, rel=1e-6)
    assert gpu.stored_bytes + cpu.stored_bytes == pytest.approx(whole.shares[0].stored_bytes)
    assert (gpu.layers, cpu.layers) == (12, 20)
    assert split.kv_share("cpu") == pytest.approx(20 / 32)
    assert split.kv_share("gpu") == pytest.approx(12 / 32)


def test_decode_reads_each_share_where_it_lives_and_crosses_the_link_once() -> None:
    """The CPU reads its 20 layers' weights and 20/32 of the cache, the GPU the rest; one
    f32 hidden state (4,096 × 4 B) crosses the link a token."""
    whole, split = _run(), _run(gpu_layers=12)
    on_gpu = {step.location: step for step in whole.decode.locations}
    steps = {step.location: step for step in split.decode.locations}
    assert steps["cpu"].kv_bytes == pytest.approx(on_gpu["gpu"].kv_bytes * 20 / 32)
    assert steps["gpu"].kv_bytes == pytest.approx(on_gpu["gpu"].kv_bytes * 12 / 32)
    assert steps["cpu"].weight_bytes == pytest.approx(
        20 * _layer_bytes() + MODEL.hidden_size * SCHEME.bytes_per_weight("embeddings"),
        rel=1e-6,
    )
    assert split.decode.link_bytes == pytest.approx(4096 * ACTIVATION_BYTES)
    assert split.decode.tokens_per_s < whole.decode.tokens_per_s


def test_the_prompt_copies_the_cpus_layers_each_micro_batch_and_attends_there() -> None:
    """2,048 tokens in 4 micro-batches of 512: the CPU's 20 layers (not the embedding, a row
    lookup) cross the link 4 times, and each prompt token's query, cache entry and output
    cross at each of those layers, whose attention the CPU computes."""
    split = _run(gpu_layers=12)
    cpu = split.placement.share("cpu")
    assert cpu is not None
    copies = 4 * (cpu.stored_bytes - split.placement.cpu_table_bytes)
    crossings = 20 * 2048 * attention_crossing_bytes(MODEL)
    assert split.prefill.link_bytes == pytest.approx(copies + crossings, rel=1e-9)
    assert split.prefill.cpu_attention_s > 0.0


def test_every_layer_on_the_gpu_is_the_gpu_placement() -> None:
    whole, every = _run(), _run(gpu_layers=32)
    assert every.decode.tokens_per_s == whole.decode.tokens_per_s
    assert every.prefill.tokens_per_s == whole.prefill.tokens_per_s
    assert every.placement.cpu_layers == 0


def test_the_largest_context_is_the_tighter_locations() -> None:
    """Each location's room beside its weights over its share of the cache; the larger the
    GPU's share of the layers, the less room its cache has."""
    few, many = _run(gpu_layers=4), _run(gpu_layers=28)
    assert many.max_context < few.max_context


@pytest.mark.parametrize(
    ("workload", "hardware", "field"),
    [
        ({"gpu_layers": 0}, {}, "workload.gpu_layers"),
        ({"gpu_layers": 33}, {}, "workload.gpu_layers"),
        ({"gpu_layers": 12, "kv_cache_on_cpu": True}, {}, "workload.gpu_layers"),
        ({"gpu_layers": 12, "placement": "cpu"}, {}, "workload.gpu_layers"),
        ({"gpu_layers": 12}, {"cpu": None}, "hardware.cpu"),
        (
            {"gpu_layers": 12, "tensor_parallel": 2},
            {"gpu_count": 2},
            "workload.gpu_layers",
        ),
    ],
)
def test_a_split_that_cannot_run_is_refused_with_its_field(
    workload: dict[str, Any], hardware: dict[str, Any], field: str
) -> None:
    body = _body(**workload)
    body["hardware"] = {k: v for k, v in {**body["hardware"], **hardware}.items() if v is not None}
    with pytest.raises(EngineInputError) as refused:
        simulate(parse_request(body))
    assert refused.value.field == field


def test_the_placement_chart_adds_up_to_what_each_location_holds() -> None:
    """The build page's chart: each location's kinds add up to its weights and its share of
    the cache; the token embedding sits in CPU RAM, the LM head in VRAM."""
    split = _run(gpu_layers=12)
    contents = placement_contents(split.placement, split.request.workload, split.kv_cache_bytes)
    for share in split.placement.shares:
        held = contents[share.location]
        kv = split.kv_cache_bytes * split.placement.kv_share(share.location)
        assert held[KV_CACHE] == pytest.approx(kv)
        assert sum(v for k, v in held.items() if k != KV_CACHE) == pytest.approx(share.stored_bytes)
        assert held[ALWAYS_ON] > 0
    assert contents["cpu"][TABLES] == pytest.approx(split.placement.cpu_table_bytes)

"""Long context: a prompt after tokens already in the cache, sliding-window attention, and
the largest context capped at the model's configured length (docs/model.md, "Long context")."""

from dataclasses import replace

import pytest

from simulator.engine import SimulationRequest
from simulator.engine.calibration.corpus import row_from_json
from simulator.engine.calibration.setups import InferSetup, row_setup
from simulator.engine.errors import EngineInputError
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.hardware import GpuSpec, Hardware
from simulator.engine.model.config import parse_model_config
from simulator.engine.model.layers import score_flops_per_token_per_position
from simulator.engine.model.registry import load_model
from simulator.engine.serve.inference import simulate_inference
from simulator.engine.serve.kv_cache import kv_bytes_per_token, max_context
from simulator.engine.serve.placement import model_parts, place
from simulator.engine.serve.prefill import PREFILL_RULES, PrefillInputs
from simulator.engine.serve.workload import InferWorkload

GPU = GpuSpec(name="test", vram_gib=80.0, bf16_tflops=200.0, pcie_gbps=32.0, mem_gbps=2000.0)
LLAMA = load_model("llama-3.1-8b")
GPT_OSS = load_model("gpt-oss-20b")


def _prefill(model, *, tokens, depth, ubatch=512):
    placement = place(model_parts(model), weight_scheme("Q8_0"), "gpu")
    inputs = PrefillInputs(
        placement=placement, model=model, tokens=tokens, micro_batches=-(-tokens // ubatch),
        experts_compute_on_cpu=False, depth=depth,
        kv_bytes_per_token=kv_bytes_per_token(model),
    )  # fmt: skip
    return PREFILL_RULES.breakdown(inputs)


def test_a_prompt_at_depth_attends_to_the_cached_tokens_too():
    """pp2048 at depth 32k: each of the 2,048 queries sees 32,768 cached keys plus its causal
    share, P·D + P(P+1)/2 pairs a layer; at depth 0 it was P(P+1)/2, 33× fewer."""
    p, d = 2048, 32768
    at_depth = _prefill(LLAMA, tokens=p, depth=d)["causal_attention"]
    at_zero = _prefill(LLAMA, tokens=p, depth=0)["causal_attention"]
    per_pair = score_flops_per_token_per_position(LLAMA.attention)  # 4·32·128 = 16,384
    assert per_pair == 16_384
    assert at_depth.attention_flops == per_pair * 32 * (p * d + p * (p + 1) / 2)
    assert at_zero.attention_flops == per_pair * 32 * p * (p + 1) / 2
    assert at_depth.attention_flops / at_zero.attention_flops == pytest.approx(33.0, rel=0.01)
    assert at_depth.flops == at_zero.flops == 0.0  # the weights' GEMMs are another rule


def test_each_micro_batch_reads_the_cache_written_before_it():
    """4 micro-batches of 512 at depth 32k: each reads on average 32,768 + 1,024 positions of
    131,072 bytes (Llama 3.1 8B, f16)."""
    reads = _prefill(LLAMA, tokens=2048, depth=32768)["cache_reads"]
    assert kv_bytes_per_token(LLAMA) == 131_072
    assert reads.kv_bytes == 4 * 131_072 * (32768 + 1024)


def test_prefill_at_depth_is_slower_through_the_engine():
    def speed(depth: int) -> float:
        workload = InferWorkload(
            model=LLAMA, quant=weight_scheme("Q4_0"), placement="gpu", context=depth + 2048,
            prompt_tokens=2048, prefill_depth_tokens=depth,
        )  # fmt: skip
        request = SimulationRequest(workload=workload, hardware=Hardware(gpu=GPU))
        return simulate_inference(request).prefill.tokens_per_s

    assert speed(32768) < 0.5 * speed(0)
    assert speed(0) > speed(4096) > speed(32768)


def test_gpt_oss_slides_half_its_layers_over_128_positions():
    """gpt-oss config.json: sliding_window 128, layer_types alternating sliding/full."""
    assert (GPT_OSS.sliding_window, GPT_OSS.sliding_layers, GPT_OSS.num_layers) == (128, 12, 24)
    assert GPT_OSS.attended_positions(100) == 100
    assert GPT_OSS.attended_positions(8192) == (12 * 8192 + 12 * 128) / 24
    # pairs: a full layer P·D + P(P+1)/2; a sliding one at most 128 keys per query
    assert GPT_OSS.attended_pairs(0, 64) == 64 * 65 / 2
    sliding = (128 * 129 / 2) + (512 - 128) * 128
    assert GPT_OSS.attended_pairs(0, 512) == (12 * 512 * 513 / 2 + 12 * sliding) / 24
    assert (
        GPT_OSS.attended_pairs(4096, 512)
        == (12 * (512 * 4096 + 512 * 513 / 2) + 12 * 512 * 128) / 24
    )


def test_a_sliding_layers_cache_holds_its_window_only():
    per_token = kv_bytes_per_token(GPT_OSS)
    # 1 GiB of free memory: full layers take half the per-token bytes past the window
    free = 2**30
    expected = (free / per_token * 24 - 12 * 128) / 12
    assert max_context(free, per_token, model=GPT_OSS) == int(expected)
    assert max_context(free, per_token) == int(free / per_token)  # model unknown: no sliding


@pytest.mark.parametrize(
    ("extra", "sliding"),
    [
        ({"sliding_window": 4096}, 4),  # Mistral 7B v0.1: every layer
        ({"sliding_window": 4096, "use_sliding_window": False}, 0),  # Qwen2.5's unused window
        ({"sliding_window": 1024, "sliding_window_pattern": 2}, 2),  # every 2nd layer global
        ({"sliding_window": 512, "layer_types": ["sliding_attention", "full_attention"] * 2}, 2),
        ({}, 0),
    ],
)
def test_which_layers_slide_is_read_from_config_json(extra, sliding):
    config = {"hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4,
              "intermediate_size": 128, "vocab_size": 100, **extra}  # fmt: skip
    assert parse_model_config(config, slug="t").sliding_layers == sliding


def test_layer_types_of_the_wrong_length_are_refused_naming_the_field():
    config = {"hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4,
              "intermediate_size": 128, "vocab_size": 100, "sliding_window": 8,
              "layer_types": ["full_attention"]}  # fmt: skip
    with pytest.raises(EngineInputError) as error:
        parse_model_config(config, slug="t")
    assert error.value.field == "model.config.layer_types"


def test_the_largest_context_is_capped_at_the_configured_length():
    """gpt-oss-120b on 4 × 80 GB: the cache would hold millions of tokens (its sliding layers
    keep 128), but the model is configured for 131,072."""
    model = load_model("gpt-oss-120b")
    workload = InferWorkload(model=model, quant=weight_scheme("MXFP4"), placement="gpu")
    request = SimulationRequest(workload=workload, hardware=Hardware(gpu=GPU, gpu_count=4))
    result = simulate_inference(request)
    assert model.trained_context == 131_072
    assert result.max_context == 131_072
    uncapped = max_context(
        10**12, result.kv_bytes_per_token, model=replace(model, trained_context=None)
    )
    assert uncapped > 131_072


def test_a_llama_bench_row_at_depth_is_a_prompt_after_cached_tokens():
    row = row_from_json(
        {"id": "T1", "category": "inference_gpu_dense", "engine": "llama.cpp CUDA",
         "hardware": {"gpu": "RTX 4090", "gpu_count": 1}, "model": "Llama 3.1 8B",
         "quant": "Q4_0", "workload": {"phase": "prefill", "test": "pp512 @ d8192"},
         "metric": "throughput", "value": 5000.0, "unit": "tok/s",
         "source": {"url": "https://example.org/x"}},
        "rows[0]",
    )  # fmt: skip
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    w = setup.request.workload
    assert (setup.phase, w.prompt_tokens, w.prefill_depth_tokens) == ("prefill", 512, 8192)
    decode = row_from_json(
        {"id": "T2", "category": "inference_gpu_dense",
         "engine": "llama.cpp CUDA", "hardware": {"gpu": "RTX 4090", "gpu_count": 1},
         "model": "Llama 3.1 8B", "quant": "Q4_0",
         "workload": {"phase": "decode", "test": "tg128 @ d8192"}, "metric": "throughput",
         "value": 100.0, "unit": "tok/s", "source": {"url": "https://example.org/x"}},
        "rows[1]",
    )  # fmt: skip
    setup = row_setup(decode)
    assert isinstance(setup, InferSetup)
    assert (setup.phase, setup.request.workload.context) == ("decode", 8192 + 64)

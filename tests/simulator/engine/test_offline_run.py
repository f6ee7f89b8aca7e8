"""An offline throughput run's concurrency from the runtime's published batching defaults
(serve/offline_run.py; docs/model.md, "Offline throughput runs")."""

import pytest

from simulator.engine.model.registry import load_model
from simulator.engine.serve.kv_cache import kv_bytes_per_token
from simulator.engine.serve.offline_run import (
    SGLANG_BATCHING,
    VLLM_BATCHING,
    offline_concurrency,
    sglang_mem_fraction_static,
)
from simulator.engine.units import GIB

LLAMA = load_model("llama-3.1-8b")  # 131,072 bytes of f16 cache a token
GPT_OSS = load_model("gpt-oss-20b")  # half its layers slide over 128 positions


def _vllm(model=LLAMA, *, gpu="NVIDIA H100 SXM", vram_gib=80.0, gpus=1, weights=16e9, queued=10_000,
          prompt=1000, gen=1000):  # fmt: skip
    return offline_concurrency(
        VLLM_BATCHING, queued=queued, prompt_tokens=prompt, gen_tokens=gen, gpu_name=gpu,
        gpu_vram_gib=vram_gib, gpu_count=gpus, weight_bytes=weights,
        kv_bytes_per_token=kv_bytes_per_token(model), model=model,
    )  # fmt: skip


def test_the_kv_cache_bounds_the_batch():
    """0.9 × 80 GiB − 16 GB of weights = 61.3 GB of cache; a request holds its 1,000 prompt
    tokens and half its 1,000 output tokens, 1,500 × 131,072 bytes: 311 requests."""
    assert kv_bytes_per_token(LLAMA) == 131_072
    expected = int((0.9 * 80 * GIB - 16e9) // (1500 * 131_072))
    assert expected == 311
    assert _vllm() == expected


def test_max_num_seqs_bounds_it_by_the_gpus_memory_and_name():
    """Short requests fit by the thousand: vLLM caps them at 1,024 on a ≥ 70 GiB GPU, at 256
    on smaller ones and on an A100 (arg_utils.get_batch_defaults)."""
    assert _vllm(prompt=100, gen=20) == 1024
    assert _vllm(prompt=100, gen=20, gpu="NVIDIA A100 SXM 80GB") == 256
    assert _vllm(prompt=100, gen=20, gpu="RTX 4090", vram_gib=24.0, weights=5e9) == 256


def test_never_more_than_the_queued_prompts_and_zero_when_none_fits():
    assert _vllm(queued=50) == 50
    assert _vllm(weights=80 * GIB) == 0


def test_sliding_layers_hold_at_most_their_window():
    """gpt-oss-20b: 12 of 24 layers keep 128 positions, so a 4,100-token request holds
    (12 × 4,100 + 12 × 128) / 24 positions a layer on average, about half of a dense cache."""
    held = GPT_OSS.attended_positions(4000 + 100)
    assert held == pytest.approx((12 * 4100 + 12 * 128) / 24)
    per_token = kv_bytes_per_token(GPT_OSS)
    expected = int((0.9 * 80 * GIB - 13e9) // (per_token * held))
    got = _vllm(GPT_OSS, weights=13e9, prompt=4000, gen=200, queued=100_000)
    assert got == expected


@pytest.mark.parametrize(
    ("vram_gib", "tp", "fraction"),
    # (G − R) / G, R = 512 + 1.5 × chunk + 2 × graph batch + 128 × tp MiB (≥ 10 GiB above 60 GiB)
    [(80.0, 1, round((81920 - 13440) / 81920, 3)),  # chunk 8,192, graph 256
     (80.0, 8, round((81920 - (512 + 12288 + 1024 + 1024)) / 81920, 3)),  # graph 512
     (24.0, 1, round((24576 - (512 + 3072 + 48 + 128)) / 24576, 3)),  # chunk 2,048, graph 24
     (40.0, 1, round((40960 - (512 + 6144 + 64 + 128)) / 40960, 3))],  # chunk 4,096, graph 32
)  # fmt: skip
def test_sglangs_static_memory_fraction_reserves_activations_and_graphs_by_gpu_size(
    vram_gib, tp, fraction
):
    assert sglang_mem_fraction_static(vram_gib, tp) == fraction


def _sglang(model=LLAMA, *, vram_gib=80.0, weights=16e9, queued=10_000, prompt=1000, gen=1000):
    return offline_concurrency(
        SGLANG_BATCHING, queued=queued, prompt_tokens=prompt, gen_tokens=gen,
        gpu_name="NVIDIA H100 SXM", gpu_vram_gib=vram_gib, gpu_count=1, weight_bytes=weights,
        kv_bytes_per_token=kv_bytes_per_token(model), model=model,
    )  # fmt: skip


def test_sglang_fills_its_static_fraction_with_kv_cache():
    expected = int((0.836 * 80 * GIB - 16e9) // (1500 * 131_072))
    assert _sglang() == expected


def test_sglangs_request_cap_scales_with_the_pool_over_the_context_length():
    """Short requests: the cap is pool tokens × 512 / 131,072 (Llama 3.1 8B's context),
    clamped to 2,048..4,096; a pool of under 4,096 tokens caps at half its tokens."""
    pool = (0.836 * 80 * GIB - 16e9) / 131_072
    assert pool * 512 / 131_072 < 2048
    assert _sglang(prompt=100, gen=20) == 2048
    tiny = 0.836 * 80 * GIB - 3000 * 131_072
    assert _sglang(prompt=1, gen=0, weights=tiny) == 3000 // 2  # 3,000 one-token requests fit

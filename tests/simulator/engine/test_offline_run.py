"""An offline throughput run's concurrency from the runtime's published batching defaults
(serve/offline_run.py; docs/model.md, "Offline throughput runs")."""

import pytest

from simulator.engine.model.registry import load_model
from simulator.engine.serve.kv_cache import kv_bytes_per_token
from simulator.engine.serve.offline_run import VLLM_BATCHING, offline_concurrency
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

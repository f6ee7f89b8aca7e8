"""Serving figures across context depth, and what each location of a placement holds."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.engine import InferenceRequest, InferWorkload, parse_request
from simulator.engine.serve.context_sweep import (
    ATTENTION,
    BATCH_LEVELS,
    EXPERTS,
    KV_CACHE,
    batch_sweep,
    context_sweep,
    placement_contents,
    sweep_depths,
)
from simulator.engine.serve.inference import simulate_inference
from simulator.engine.serve.kv_cache import kv_bytes_per_token
from simulator.engine.units import GIB

RTX_4090_EPYC = {"gpu": "RTX 4090", "cpu": "epyc-9124", "ram_gb": 128}


def _request(**workload: object) -> InferenceRequest:
    body = {"workload": {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M",
                         "placement": "hybrid", "context": 32768, **workload},
            "hardware": RTX_4090_EPYC}  # fmt: skip
    request = parse_request(body)
    assert isinstance(request.workload, InferWorkload)
    return request


def test_depths_double_from_512_to_the_trained_context_and_include_the_workloads_own():
    request = _request(model="qwen3-30b-a3b", context=20000)
    trained = 40960  # qwen3-30b-a3b config.json max_position_embeddings
    doublings = [512 * 2**k for k in range(7)]  # 512 … 32768; 65536 passes 40960
    assert sweep_depths(request.workload) == tuple(sorted([*doublings, 20000]))
    assert max(doublings) <= trained < 2 * max(doublings)


def test_the_point_at_the_workloads_context_decodes_at_the_requests_own_speed():
    request = _request()
    sweep = context_sweep(request, (32768,))

    own = simulate_inference(request)
    assert sweep.points[0].decode_tokens_per_s == pytest.approx(own.decode.tokens_per_s, rel=1e-12)


def test_prefill_at_a_depth_is_the_prompt_on_top_of_that_many_cached_tokens():
    request = _request()
    deep = replace(request, workload=replace(request.workload, prefill_depth_tokens=8192,
                                             context=8192))  # fmt: skip
    sweep = context_sweep(request, (8192,))

    expected = simulate_inference(deep).prefill.tokens_per_s
    assert sweep.points[0].prefill_tokens_per_s == pytest.approx(expected, rel=1e-12)


def test_the_kv_cache_grows_by_the_bytes_of_one_token_per_token():
    request = _request()
    per_token = kv_bytes_per_token(request.workload.model)  # MLA: 47 × (512 + 64) × 2 B
    sweep = context_sweep(request, (1024, 4096))

    assert [p.kv_cache_bytes for p in sweep.points] == pytest.approx(
        [1024 * per_token, 4096 * per_token]
    )


def test_decode_and_prefill_never_speed_up_deeper_in_the_context():
    request = _request()
    points = context_sweep(request, sweep_depths(request.workload)).points

    decode = [p.decode_tokens_per_s for p in points]
    prefill = [p.prefill_tokens_per_s for p in points]
    assert None not in decode
    assert None not in prefill
    assert decode == sorted(decode, reverse=True)  # type: ignore[type-var]
    assert prefill == sorted(prefill, reverse=True)  # type: ignore[type-var]


def test_a_depth_whose_cache_does_not_fit_has_no_speeds_but_still_its_cache_size():
    # Llama-3.1-8B in Q8_0 on one 24 GB GPU: 128 KiB per token leaves room for ~100 k tokens.
    request = _request(model="llama-3.1-8b", quant="Q8_0", placement="gpu", context=4096)
    sweep = context_sweep(request, (4096, 131072 * 2))

    fits, too_deep = sweep.points
    assert fits.decode_tokens_per_s is not None
    assert too_deep.decode_tokens_per_s is None
    assert too_deep.prefill_tokens_per_s is None
    assert too_deep.kv_cache_bytes > sweep.kv_room_bytes > fits.kv_cache_bytes


def test_the_kv_room_is_the_locations_capacity_less_its_weights():
    request = _request(model="llama-3.1-8b", quant="Q8_0", placement="gpu", context=4096)
    result = simulate_inference(request)
    gpu = next(d for d in result.devices if d.location == "gpu")
    share = result.placement.share("gpu")
    assert share is not None

    room = context_sweep(request, (4096,)).kv_room_bytes

    assert room == pytest.approx(gpu.capacity_bytes - share.stored_bytes)
    assert 0 < room / GIB < 24


@pytest.mark.parametrize("placement", ["gpu", "hybrid", "cpu"])
def test_each_locations_contents_add_up_to_what_the_placement_stores_there(
    placement: str,
) -> None:
    request = _request(placement=placement, context=4096)
    result = simulate_inference(request)

    contents = placement_contents(result.placement, request.workload, result.kv_cache_bytes)

    for share in result.placement.shares:
        weights = sum(b for kind, b in contents[share.location].items() if kind != KV_CACHE)
        assert weights == pytest.approx(share.stored_bytes, rel=1e-12)
    assert contents[result.placement.kv_location][KV_CACHE] == result.kv_cache_bytes


def test_hybrid_keeps_attention_on_the_gpu_and_the_routed_experts_in_ram():
    request = _request(context=4096)  # hybrid from the first MoE layer: every expert in RAM
    result = simulate_inference(request)

    contents = placement_contents(result.placement, request.workload, result.kv_cache_bytes)

    assert contents["gpu"][EXPERTS] == 0
    assert contents["cpu"][ATTENTION] == 0
    assert contents["cpu"][EXPERTS] == pytest.approx(result.placement.share("cpu").stored_bytes)  # type: ignore[union-attr]


# --- concurrent requests ----------------------------------------------------------------------
def test_one_request_decodes_at_the_requests_own_speed():
    request = _request(placement="gpu", context=4096)

    one = batch_sweep(request, (1,))[0]

    assert one.decode_tokens_per_s == pytest.approx(simulate_inference(request).decode.tokens_per_s)
    assert one.per_request_tokens_per_s == one.decode_tokens_per_s


def test_each_request_adds_its_own_kv_cache():
    request = _request(placement="gpu", context=4096)
    per_request = kv_bytes_per_token(request.workload.model) * 4096

    points = batch_sweep(request, (1, 8))

    assert [p.kv_cache_bytes for p in points] == pytest.approx([per_request, 8 * per_request])


@pytest.mark.parametrize("model", ["llama-3.1-8b", "glm-4.7-flash"])
def test_more_requests_raise_the_total_and_lower_each_requests_speed(model: str) -> None:
    # 64 requests of 1,024 tokens: 8 GiB of Llama-3.1-8B cache, within one 24 GB GPU.
    request = _request(model=model, placement="gpu", context=1024)

    points = batch_sweep(request, BATCH_LEVELS)

    total = [p.decode_tokens_per_s for p in points]
    each = [p.per_request_tokens_per_s for p in points]
    assert None not in total
    assert total == sorted(total)  # type: ignore[type-var]
    assert each == sorted(each, reverse=True)  # type: ignore[type-var]


def test_requests_whose_caches_do_not_fit_have_no_speed():
    # 64 requests of 32,768 tokens of Llama-3.1-8B: 64 × 4 GiB of cache, past any one GPU.
    request = _request(model="llama-3.1-8b", quant="Q8_0", placement="gpu", context=32768)

    points = batch_sweep(request, (1, 64))

    assert points[0].decode_tokens_per_s is not None
    assert points[1].decode_tokens_per_s is None
    assert points[1].per_request_tokens_per_s is None


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["glm-4.7-flash", "llama-3.1-8b", "qwen3-30b-a3b"]),
    st.sampled_from(["gpu", "hybrid", "cpu"]),
    st.integers(1, 65536),
    st.integers(1, 65536),
)
def test_a_deeper_context_never_speeds_decode_or_prefill_up(
    model: str, placement: str, depth: int, more: int
) -> None:
    request = _request(model=model, placement=placement, context=4096)
    if placement == "hybrid" and not request.workload.model.is_moe:
        return  # hybrid offloads routed experts: a dense model has none
    shallow, deep = context_sweep(request, (depth, depth + more)).points

    for field in ("decode_tokens_per_s", "prefill_tokens_per_s"):
        near, far = getattr(shallow, field), getattr(deep, field)
        if far is not None:  # a cache that does not fit has no speed
            assert near is not None
            assert far <= near * (1 + 1e-12)
    assert deep.kv_cache_bytes >= shallow.kv_cache_bytes

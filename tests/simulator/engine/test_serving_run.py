"""A serving run kept in flight or sent at a request rate, by Little's law (serve/
serving_run.py; docs/model.md, "Serving runs")."""

from dataclasses import replace

import pytest

from simulator.engine.calibration.corpus import row_from_json
from simulator.engine.calibration.predict import predict_row
from simulator.engine.calibration.setups import InferSetup, row_setup
from simulator.engine.errors import EngineInputError
from simulator.engine.serve.inference import simulate_inference
from simulator.engine.serve.serving_run import batch_latency_s, serving_run


def _latency(c: int) -> float:
    """L(c) of 1,000-token prompts at 10,000 tokens/s and 100 outputs at 10 ms + 1 ms × c a
    step: 0.1·c + 1 + 0.1·c seconds, so X(c) = c / (1 + 0.2·c) approaches 5 requests/s."""
    return batch_latency_s(
        concurrency=c, prompt_tokens=1000, output_tokens=100,
        prefill_tokens_per_s=10_000.0, decode_step_s=0.010 + 0.001 * c,
    )  # fmt: skip


def _run(**kwargs):
    return serving_run(_latency, prompt_tokens=1000, output_tokens=100, **kwargs)


def test_the_latency_is_the_prompts_in_a_requests_lifetime_and_its_decode_steps():
    assert _latency(10) == pytest.approx(10 * 1000 / 10_000 + 100 * 0.020)  # 3 s


def test_kept_in_flight_the_run_delivers_c_requests_per_latency():
    run = _run(max_concurrency=10)
    assert (run.concurrency, run.saturated, run.duration_s) == (10, False, None)
    assert run.requests_per_s == pytest.approx(10 / 3)
    assert run.output_tokens_per_s == pytest.approx(10 / 3 * 100)
    assert run.total_tokens_per_s == pytest.approx(10 / 3 * 1100)


def test_at_a_rate_the_fewest_in_flight_that_keep_up_are_by_littles_law():
    """2 requests/s: X(c) = c/(1 + 0.2c) ≥ 2 from c = 4 (X(3) = 1.875, X(4) = 2.22), so 4 in
    flight; 100 requests arrive over 50 s and the last takes L(4) = 1.8 s."""
    run = _run(max_concurrency=64, request_rate_per_s=2.0, requests=100)
    assert run.concurrency == 4
    assert not run.saturated
    assert 3 / _latency(3) < 2.0 <= 4 / _latency(4)
    assert run.request_latency_s == pytest.approx(1.8)
    assert run.duration_s == pytest.approx(100 / 2.0 + 1.8)
    assert run.output_tokens_per_s == pytest.approx(100 * 100 / 51.8)
    stream = _run(max_concurrency=64, request_rate_per_s=2.0)  # an open stream keeps pace
    assert stream.output_tokens_per_s == pytest.approx(2.0 * 100)


def test_arrivals_faster_than_the_cap_completes_saturate_it():
    """10 requests/s against at most X(8) = 8/2.6 = 3.08: all 8 slots stay busy, and 100
    requests take (100 − 8)/X(8) + L(8) s, longer than their 10 s of arrivals."""
    run = _run(max_concurrency=8, request_rate_per_s=10.0, requests=100)
    assert run.concurrency == 8
    assert run.saturated
    served = 8 / _latency(8)
    assert run.duration_s == pytest.approx((100 - 8) / served + _latency(8))
    stream = _run(max_concurrency=8, request_rate_per_s=10.0)
    assert stream.output_tokens_per_s == pytest.approx(served * 100)


def test_a_burst_shorter_than_one_request_runs_them_all_at_once():
    """50 requests in 0.5 s, each far longer: all in flight, the run lasts 0.5 s + L(50)."""
    run = _run(max_concurrency=256, request_rate_per_s=100.0, requests=50)
    assert run.concurrency == 50
    assert run.saturated
    assert run.duration_s == pytest.approx(0.5 + _latency(50))


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"max_concurrency": 0}, "workload.max_concurrency"),
        ({"max_concurrency": 8, "request_rate_per_s": 0.0}, "workload.request_rate_per_s"),
        ({"max_concurrency": 8, "request_rate_per_s": float("nan")}, "workload.request_rate_per_s"),
        ({"max_concurrency": 8, "requests": 0}, "workload.requests"),
    ],
)
def test_bad_counts_are_refused_by_field(kwargs, field):
    with pytest.raises(EngineInputError) as err:
        _run(**kwargs)
    assert err.value.field == field


def _deepseek_row(**workload):
    return row_from_json(
        {"id": "T1", "category": "serving_batched", "engine": "vLLM v0.8.4 TP8",
         "hardware": {"gpu": "NVIDIA H200", "gpu_count": 8}, "model": "DeepSeek-R1",
         "quant": "not stated", "metric": "output token throughput", "value": 1000.0,
         "unit": "tok/s", "caveats": "deepseek-ai/DeepSeek-R1 checkpoint as released",
         "source": {"url": "https://example.org/bench"},
         "workload": {"phase": "serving", "prompt_tokens": 1000, "gen_tokens": 2000,
                      "num_prompts": 50, "tensor_parallel": 8, **workload}},
        "rows[0]",
    )  # fmt: skip


def test_a_rated_row_is_its_queue_stretched_by_the_arrivals():
    """50 prompts at 10/s on 8 × H200: all 50 fit in flight and each takes L(50) ≫ 5 s, so
    the run lasts 5 s + L(50) where the same prompts queued at once take L(50)."""
    offline = _deepseek_row()
    rated = _deepseek_row(request_rate=10)
    setup = row_setup(rated)
    assert isinstance(setup, InferSetup)
    w = setup.request.workload
    assert w.request_rate_per_s == 10.0
    assert (w.requests, w.batch, w.output_tokens, w.context) == (50, 50, 2000, 3000)
    mean = replace(w, context=1000 + 2000 // 2, output_tokens=None, request_rate_per_s=None,
                   requests=None)  # fmt: skip
    run = simulate_inference(replace(setup.request, workload=mean))
    latency = 50 * 1000 / run.prefill.tokens_per_s + 2000 * run.decode.step_s
    assert latency > 5.0
    expected = 50 * 2000 / (50 / 10 + latency)
    assert predict_row(rated).predicted == pytest.approx(expected)
    assert predict_row(offline).predicted == pytest.approx(50 * 2000 / latency)


def test_deepseeks_checkpoint_as_released_is_fp8_and_nothing_else_is_guessed():
    """DeepSeek ships V3-architecture weights in FP8 only (its README); a row serving that
    checkpoint as released reads them so. Without the caveat, or in a GGUF runtime that
    quantizes its own files, the quantization stays unknown."""
    setup = row_setup(_deepseek_row())
    assert isinstance(setup, InferSetup)
    assert setup.request.workload.quant.experts.name == "FP8"
    assert setup.request.workload.quant.attention.name == "FP8"
    for row in (
        replace(_deepseek_row(), caveats=""),
        replace(_deepseek_row(), engine="llama.cpp b5000"),
    ):
        prediction = predict_row(row)
        assert not prediction.modeled
        assert "does not state the weights' quantization" in prediction.reason

"""`manage.py simulate` with an inference body: text and JSON."""

import json

import pytest

from tests.simulator.engine.test_inference_request import INFER_BODY
from tests.simulator.test_simulate_command import run

# The figures' error bands come from the stored measurements.
pytestmark = pytest.mark.django_db


@pytest.fixture
def infer_file(tmp_path):
    path = tmp_path / "infer.json"
    path.write_text(json.dumps(INFER_BODY))
    return path


def test_it_prints_prefill_and_decode_speeds(infer_file):
    text = run("--input", str(infer_file))
    assert "decode:" in text
    assert "prefill:" in text


def test_json_output_has_decode_tokens_per_s_and_max_context(infer_file):
    body = json.loads(run("--input", str(infer_file), "--json"))
    assert body["kind"] == "infer"
    assert body["decode_tokens_per_s"] > 0
    assert body["max_context"] >= INFER_BODY["workload"]["context"]


def test_with_the_corpus_loaded_it_prints_the_likely_ranges(infer_file):
    from simulator.services.measurements import measurements_load

    measurements_load()
    text = run("--input", str(infer_file))
    assert "cross-validated:" in text
    assert "likely" in text
    assert "decode tokens/s" in text.split("cross-validated:")[1]
    body = json.loads(run("--input", str(infer_file), "--json"))
    low, high = body["error_band"]["decode_tokens_per_s_range"]
    assert low <= high
    factors = body["error_band"]["speed_factor_low"], body["error_band"]["speed_factor_high"]
    assert (low, high) == pytest.approx(tuple(body["decode_tokens_per_s"] * f for f in factors))


def test_a_serving_run_prints_its_requests_in_flight_and_their_pace(tmp_path):
    """Its line states the JSON's figures: requests in flight, latency, rate, output."""
    body = {
        "workload": {"kind": "infer", "model": "llama-3.1-8b", "quant": "BF16",
                     "runtime": "vllm", "context": 1200, "prompt_tokens": 1000,
                     "output_tokens": 200, "batch": 256, "request_rate_per_s": 5,
                     "requests": 500},
        "hardware": {"gpu": {"name": "H100 SXM"}},
    }  # fmt: skip
    path = tmp_path / "run.json"
    path.write_text(json.dumps(body))
    run_json = json.loads(run("--input", str(path), "--json"))["serving_run"]
    text = run("--input", str(path))
    assert (
        f"serving run: {run_json['concurrency']} in flight (keeps pace), "
        f"{run_json['request_latency_s']:.2f} s a request, "
        f"{run_json['requests_per_s']:.2f} requests/s, "
        f"{run_json['output_tokens_per_s']:.1f} output tok/s"
    ) in text

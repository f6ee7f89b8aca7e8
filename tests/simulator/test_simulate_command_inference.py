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

"""`manage.py simulate`: text, JSON, validation, and errors naming the field."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.simulator.engine.test_request import ISSUE_BODY

# The figures' error bands come from the stored measurements.
pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    from io import StringIO

    out = StringIO()
    call_command("simulate", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def request_file(tmp_path):
    path = tmp_path / "request.json"
    path.write_text(json.dumps(ISSUE_BODY))
    return path


def test_it_prints_the_seed_style_curve(request_file):
    text = run("--input", str(request_file))
    assert "<- OPTIMAL" in text
    assert "277 tok/s" in text
    assert "Accuracy of this class (fine-tuning throughput), cross-validated:" in text


def test_json_output_has_best_greedy_curve_and_hours(request_file):
    body = json.loads(run("--input", str(request_file), "--json"))
    assert {"best", "greedy", "curve", "hours_for_tokens"} <= set(body)
    assert round(body["best"]["tokens_per_s"]) == 277
    assert body["error_band"]["category"] == "training_finetune"


def test_validate_passes_every_check():
    assert "assumption checks passed" in run("--validate")


def test_bad_input_is_a_command_error_naming_the_field(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(
        json.dumps({**ISSUE_BODY, "workload": {**ISSUE_BODY["workload"], "seq_len": -1}})
    )
    with pytest.raises(CommandError, match=r"workload\.seq_len"):
        run("--input", str(path))


def test_malformed_json_is_a_command_error(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    with pytest.raises(CommandError, match="not valid JSON"):
        run("--input", str(path))


def test_a_missing_file_is_a_command_error(tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        run("--input", str(tmp_path / "absent.json"))


def test_it_needs_input_or_validate():
    with pytest.raises(CommandError, match="--input"):
        run()


def test_an_unknown_field_in_the_request_is_an_error_naming_it(tmp_path):
    body = {**ISSUE_BODY, "workload": {**ISSUE_BODY["workload"], "sequence_length": 2048}}
    path = tmp_path / "request.json"
    path.write_text(json.dumps(body))

    with pytest.raises(CommandError, match=r"workload\.sequence_length: unknown field"):
        run("--input", str(path))


def test_a_gpu_and_cpu_named_from_the_device_table_run(tmp_path):
    body = {
        "workload": {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M"},
        "hardware": {"gpu": "rtx-3090", "cpu": "EPYC 9124", "ram_gb": 128},
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(body))

    result = json.loads(run("--input", str(path), "--json"))

    assert result["hardware"]["gpu"]["name"] == "RTX 3090"
    assert result["hardware"]["cpu"]["cores"] == 16
    assert result["decode_tokens_per_s"] > 0

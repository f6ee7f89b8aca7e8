"""`simulate(request)`: the whole result for one configuration, and its JSON."""

import copy
import json

import numpy as np
import pytest
from numpy.testing import assert_allclose

from simulator.engine import format_report, parse_request, result_to_json
from simulator.engine.errors import EngineInputError
from simulator.engine.simulate import simulate

from .test_request import ISSUE_BODY, with_value

ROW_FIELDS = {
    "micro_batch", "resident_layers", "streamed_layers", "free_vram_gb", "compute_s",
    "transfer_s", "step_s", "overhead_pct", "tokens_per_s", "bottleneck", "transfer_source",
}  # fmt: skip


def issue_result():
    return simulate(parse_request(ISSUE_BODY))


def test_the_issue_request_reaches_277_tokens_per_s():
    assert_allclose(issue_result().best.tokens_per_s, 277, rtol=0.01)


def test_hours_for_tokens_is_tokens_over_throughput():
    result = issue_result()
    expected = 50_000_000 / result.best.tokens_per_s / 3600  # tokens ÷ tok/s ÷ s per hour
    assert_allclose(result.hours_for_tokens, expected)
    assert_allclose(result.hours_for_tokens, 50, rtol=0.01)  # seed: "50 hrs" for Build A


def test_json_has_best_greedy_and_a_curve_row_per_resident_count():
    body = result_to_json(issue_result())
    assert set(body["best"]) >= ROW_FIELDS
    assert set(body["greedy"]) >= ROW_FIELDS
    assert [row["resident_layers"] for row in body["curve"]] == list(range(9))
    assert body["tie_rule"]
    assert body["hours_for_tokens"] > 0


def test_json_holds_only_plain_python_values():
    def walk(value):
        assert not isinstance(value, np.generic)
        if isinstance(value, dict):
            [walk(v) for v in value.values()]
        elif isinstance(value, list):
            [walk(v) for v in value]

    body = result_to_json(issue_result())
    walk(body)
    json.dumps(body, allow_nan=False)


def test_bottleneck_and_source_name_the_limiting_link():
    result = issue_result()
    assert (result.best.bottleneck, result.best.transfer_source) == ("compute", "nvme")
    assert result.greedy is not None
    assert result.greedy.bottleneck == "nvme"


def test_streamed_layers_come_from_ram_when_they_fit_in_pinned_memory():
    body = with_value("workload.model", "llama-3.1-70b")
    body["workload"]["quant"] = "NF4"
    body["hardware"].update(ram_gb=64, pinned_gb=56)  # 80 layers × 0.49 GiB fit in 56 GiB
    result = simulate(parse_request(body))
    assert result.best.transfer_source == "ram"


def test_it_rejects_nvfp4_on_a_gpu_without_fp4_cores():
    with pytest.raises(EngineInputError) as error:
        simulate(parse_request(with_value("workload.quant", "NVFP4")))
    assert error.value.field == "workload.quant"


def test_it_says_when_a_model_cannot_fit_at_all():
    body = copy.deepcopy(ISSUE_BODY)
    body["hardware"]["gpu"]["vram_gb"] = 8
    with pytest.raises(EngineInputError, match="cannot fit") as error:
        simulate(parse_request(body))
    assert error.value.field == "hardware.gpu.vram_gib"  # the engine quantity


def test_the_report_marks_optimal_and_greedy_rows():
    text = format_report(issue_result())
    assert "<- OPTIMAL" in text
    assert "<- GREEDY (2.6x slower)" in text


@pytest.mark.parametrize(
    "slug",
    ["deepseek-v3", "glm-4.7-flash", "llama-3.1-70b", "llama-3.1-8b", "mixtral-8x7b",
     "qwen3-235b-a22b"],
)  # fmt: skip
def test_every_shipped_model_simulates_on_an_h100(slug):
    body = with_value("workload.model", slug)
    body["hardware"]["gpu"] = "H100 80G"
    assert simulate(parse_request(body)).best.tokens_per_s > 0

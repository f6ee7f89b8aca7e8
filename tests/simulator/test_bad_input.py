"""Hand-picked bad input to POST /api/simulate and GET /api/rankings: each is a 4xx with a
JSON message naming the field at fault, and nothing is stored or sent to the broker.

Requests run with their on-commit callbacks executed, so a ranking that slipped through
would reach the broker's queue; the queue is read on the real Redis.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import redis
from django.conf import settings
from django.test import Client

from simulator.models import SimulationRun
from simulator.throttles import SimulateAnonThrottle

CELERY_QUEUE = "celery"
TEN_MB = 10 * 1024 * 1024
NESTING_DEPTH = 100_000  # far beyond the interpreter's recursion limit
FP4_LESS_GPU = {
    "name": "RTX 4090",
    "vram_gb": 24,
    "bf16_tflops": 165,
    "pcie_gbps": 22,
    "fp4": False,
}
TRAIN = {
    "workload": {
        "kind": "train",
        "model": "glm-4.7",
        "quant": "NF4d+NF2e",
        "seq_len": 1024,
        "lora_rank": 64,
        "tokens": 50_000_000,
        "utilization": 0.7,
    },
    "hardware": {"gpu": FP4_LESS_GPU, "gpu_count": 1, "nvme_gbps": 7, "ram_gb": 32},
}
INFER = {
    "workload": {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M", "context": 4096},
    "hardware": {"gpu": {**FP4_LESS_GPU, "mem_gbps": 1008}},
}
RANKING = {"workload": TRAIN["workload"], "ranking": {"gpu_count_max": 2}}

pytestmark = [pytest.mark.services, pytest.mark.django_db]


def with_value(base: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """`base` with the value at dotted `path` replaced (or added)."""
    body = copy.deepcopy(base)
    *parents, last = path.split(".")
    node = body
    for key in parents:
        node = node[key]
    node[last] = value
    return body


def with_raw(base: dict[str, Any], path: str, token: str) -> str:
    """`base` as JSON text with the value at `path` replaced by a raw token (NaN, 1e400)."""
    marker = "__RAW__"
    return json.dumps(with_value(base, path, marker)).replace(f'"{marker}"', token)


@dataclass(frozen=True)
class Bad:
    """One bad request: its body (JSON-able, or raw text), how it is sent, what comes back."""

    body: Any
    status: int
    field: str | None = None  # the key expected in "errors"; None: `detail` says it all
    detail: str = ""  # a phrase expected in "detail"
    content_type: str = "application/json"


def _json(body: Any) -> str:
    return body if isinstance(body, str) else json.dumps(body)


SIMULATE_CASES = {
    # numbers that are not numbers
    "nan-literal": Bad(with_raw(TRAIN, "workload.utilization", "NaN"), 400, detail="NaN"),
    "infinity-literal": Bad(with_raw(TRAIN, "hardware.gpu.vram_gb", "Infinity"), 400),
    "minus-infinity-literal": Bad(with_raw(TRAIN, "hardware.nvme_gbps", "-Infinity"), 400),
    "nan-string": Bad(
        with_value(TRAIN, "workload.utilization", "nan"), 400, "workload.utilization"
    ),
    "1e400-overflows-to-inf": Bad(
        with_raw(TRAIN, "hardware.gpu.bf16_tflops", "1e400"), 400, "hardware.gpu.bf16_tflops"
    ),
    "1e400-as-an-integer": Bad(
        with_raw(TRAIN, "workload.seq_len", "1e400"), 400, "workload.seq_len"
    ),
    "false-for-a-number": Bad(
        with_value(TRAIN, "hardware.gpu.vram_gb", False), 400, "hardware.gpu.vram_gb"
    ),
    "true-for-a-count": Bad(
        with_value(TRAIN, "hardware.gpu_count", True), 400, "hardware.gpu_count"
    ),
    "numeric-string": Bad(with_value(TRAIN, "workload.seq_len", "1024"), 400, "workload.seq_len"),
    "numeric-string-number": Bad(
        with_value(TRAIN, "hardware.ram_gb", "32"), 400, "hardware.ram_gb"
    ),
    "fraction-for-an-integer": Bad(
        with_value(TRAIN, "workload.lora_rank", 64.5), 400, "workload.lora_rank"
    ),
    # out of range
    "negative-bandwidth": Bad(
        with_value(TRAIN, "hardware.nvme_gbps", -7), 400, "hardware.nvme_gbps"
    ),
    "zero-vram": Bad(with_value(TRAIN, "hardware.gpu.vram_gb", 0), 400, "hardware.gpu.vram_gb"),
    "zero-gpus": Bad(with_value(TRAIN, "hardware.gpu_count", 0), 400, "hardware.gpu_count"),
    "utilization-above-1": Bad(
        with_value(TRAIN, "workload.utilization", 1.5), 400, "workload.utilization"
    ),
    "huge-sequence": Bad(with_value(TRAIN, "workload.seq_len", 10**9), 400, "workload.seq_len"),
    "huge-token-target": Bad(with_value(TRAIN, "workload.tokens", 10**30), 400, "workload.tokens"),
    "huge-gpu-count": Bad(
        with_value(TRAIN, "hardware.gpu_count", 10**6), 400, "hardware.gpu_count"
    ),
    "pinned-above-ram": Bad(with_value(TRAIN, "hardware.pinned_gb", 64), 400, "hardware.pinned_gb"),
    # numbers a device cannot have: refused by the field's range, before any arithmetic
    "tiny-tflops": Bad(
        with_value(TRAIN, "hardware.gpu.bf16_tflops", 5e-324),
        400,
        "hardware.gpu.bf16_tflops",
        "from 0.01",
    ),
    "tiny-utilization": Bad(
        with_value(TRAIN, "workload.utilization", 5e-324), 400, "workload.utilization", "0.01"
    ),
    "astronomic-vram": Bad(
        with_value(TRAIN, "hardware.gpu.vram_gb", 1e308), 400, "hardware.gpu.vram_gb"
    ),
    "integer-beyond-any-float": Bad(
        with_value(TRAIN, "hardware.ram_gb", 10**400), 400, "hardware.ram_gb"
    ),
    "tiny-cpu-clock": Bad(
        with_value(INFER, "hardware.cpu", {"name": "EPYC 9124", "ghz": 1e-9}),
        400,
        "hardware.cpu.ghz",
    ),
    "model-config-a-list": Bad(
        with_value(TRAIN, "workload.model_config", []), 400, "workload.model_config", "object"
    ),
    "model-config-zero-head-dim": Bad(
        with_value(
            TRAIN,
            "workload.model_config",
            {
                "hidden_size": 4096,
                "num_hidden_layers": 32,
                "num_attention_heads": 32,
                "intermediate_size": 14336,
                "vocab_size": 128256,
                "head_dim": 0,
            },
        ),
        400,
        "workload.model_config.head_dim",
    ),
    "model-config-huge-hidden-size": Bad(
        with_value(
            TRAIN,
            "workload.model_config",
            {
                "hidden_size": 10**400,
                "num_hidden_layers": 32,
                "num_attention_heads": 32,
                "intermediate_size": 14336,
                "vocab_size": 128256,
            },
        ),
        400,
        "workload.model_config.hidden_size",
    ),
    "model-config-a-billion-mtp-layers": Bad(
        with_value(
            TRAIN,
            "workload.model_config",
            {
                "hidden_size": 4096,
                "num_hidden_layers": 32,
                "num_attention_heads": 32,
                "intermediate_size": 14336,
                "vocab_size": 128256,
                "num_nextn_predict_layers": 10**9,
            },
        ),
        400,
        "workload.model_config.num_nextn_predict_layers",
    ),
    # wrong types
    "workload-a-list": Bad({**TRAIN, "workload": []}, 400, "workload"),
    "hardware-a-string": Bad({**TRAIN, "hardware": "fast"}, 400, "hardware"),
    "gpu-a-number": Bad(with_value(TRAIN, "hardware.gpu", 4090), 400, "hardware.gpu"),
    "fp4-a-string": Bad(with_value(TRAIN, "hardware.gpu.fp4", "yes"), 400, "hardware.gpu.fp4"),
    "quant-a-number": Bad(with_value(TRAIN, "workload.quant", 4), 400, "workload.quant"),
    "build-id-a-string": Bad({"workload": TRAIN["workload"], "build_id": "1"}, 400, "build_id"),
    "parts-an-object": Bad({"workload": TRAIN["workload"], "parts": {}}, 400, "parts"),
    "part-quantity-99": Bad(
        {"workload": TRAIN["workload"], "parts": [{"part_id": 1, "quantity": 99}]},
        400,
        "parts[0].quantity",
    ),
    "ranking-a-list": Bad({**RANKING, "ranking": []}, 400, "ranking"),
    # unknown fields: refused by name, never run at the default instead
    "misspelled-workload-field": Bad(
        with_value(TRAIN, "workload.sequence_length", 2048), 400, "workload.sequence_length"
    ),
    "unknown-hardware-field": Bad(
        with_value(TRAIN, "hardware.nvme_gb", 7), 400, "hardware.nvme_gb", "nvme_gbps"
    ),
    "unknown-gpu-field": Bad(with_value(TRAIN, "hardware.gpu.vram", 24), 400, "hardware.gpu.vram"),
    "unknown-top-level-field": Bad({**TRAIN, "hardwares": {}}, 400, "hardwares"),
    "infer-unknown-workload-field": Bad(
        with_value(INFER, "workload.ctx_size", 8192), 400, "workload.ctx_size"
    ),
    "infer-unknown-cpu-field": Bad(
        with_value(INFER, "hardware.cpu", {"name": "EPYC 9124", "threads": 32}),
        400,
        "hardware.cpu.threads",
    ),
    # unknown ids
    "unknown-model": Bad(with_value(TRAIN, "workload.model", "gpt-9"), 400, "workload.model"),
    "unknown-quant": Bad(with_value(TRAIN, "workload.quant", "NF5"), 400, "workload.quant"),
    "unknown-gpu-name": Bad(with_value(TRAIN, "hardware.gpu", "RTX 9090"), 400, "hardware.gpu"),
    "unknown-build": Bad(
        {"workload": TRAIN["workload"], "build_id": 999_999}, 404, detail="999999"
    ),
    "unknown-part": Bad(
        {"workload": TRAIN["workload"], "parts": [{"part_id": 999_999}]}, 404, detail="999999"
    ),
    "nvfp4-without-fp4-cores": Bad(
        with_value(TRAIN, "workload.quant", "NVFP4"), 400, "workload.quant", "FP4"
    ),
    "fp8-without-fp8-cores": Bad(  # Ampere: no FP8 tensor cores
        with_value(with_value(TRAIN, "workload.quant", "FP8"), "hardware.gpu", "RTX 3090"),
        400,
        "workload.quant",
        "FP8 tensor cores",
    ),
    # inference
    "infer-unknown-weight-type": Bad(
        with_value(INFER, "workload.quant", "Q3_XYZ"), 400, "workload.quant"
    ),
    "infer-batch-string": Bad(with_value(INFER, "workload.batch", "8"), 400, "workload.batch"),
    "infer-zero-context": Bad(with_value(INFER, "workload.context", 0), 400, "workload.context"),
    "infer-unknown-placement": Bad(
        with_value(INFER, "workload.placement", "moon"), 400, "workload.placement"
    ),
    "infer-unknown-kv-cache": Bad(
        with_value(INFER, "workload.kv_cache_type", "q2"), 400, "workload.kv_cache_type"
    ),
    # ranking options
    "ranking-too-many-gpus": Bad(
        with_value(RANKING, "ranking.gpu_count_max", 99), 400, "ranking.gpu_count_max"
    ),
    "ranking-budget-nan-string": Bad(
        with_value(RANKING, "ranking.budget_usd", "nan"), 400, "ranking.budget_usd"
    ),
    "ranking-negative-budget": Bad(
        with_value(RANKING, "ranking.budget_usd", -1), 400, "ranking.budget_usd"
    ),
    "ranking-sort-an-object": Bad(with_value(RANKING, "ranking.sort", {}), 400, "ranking.sort"),
    "ranking-sort-a-list": Bad(with_value(RANKING, "ranking.sort", []), 400, "ranking.sort"),
    "ranking-no-storage": Bad(
        with_value(RANKING, "ranking.storage_tiers", []), 400, "ranking.storage_tiers"
    ),
    "ranking-unknown-sort": Bad(
        with_value(RANKING, "ranking.sort", "cheapest"), 400, "ranking.sort"
    ),
    "ranking-min-above-max": Bad(
        with_value(RANKING, "ranking.gpu_count_min", 4), 400, "ranking.gpu_count_min"
    ),
    # the body as a whole
    "empty-body": Bad("", 400, "request"),
    "empty-object": Bad({}, 400, "request"),
    "a-json-array": Bad([TRAIN], 400, "request"),
    "json-null": Bad(None, 400, "request"),
    "two-forms-at-once": Bad({**TRAIN, "build_id": 1}, 400, "request"),
    "truncated-json": Bad(json.dumps(TRAIN)[:-5], 400, detail="JSON parse error"),
    "not-utf8": Bad(b'{"workload": "\xff\xfe"}', 400, detail="JSON parse error"),
    "deeply-nested": Bad(
        '{"workload": ' + "[" * NESTING_DEPTH + "]" * NESTING_DEPTH + "}",
        400,
        detail="nested too deeply",
    ),
    "a-10-mb-body": Bad({**TRAIN, "padding": "x" * TEN_MB}, 413, detail="too large"),
    "plain-text": Bad(json.dumps(TRAIN), 415, detail="text/plain", content_type="text/plain"),
    "a-form-post": Bad(
        "workload=train",
        415,
        detail="application/x-www-form-urlencoded",
        content_type="application/x-www-form-urlencoded",
    ),
}

RANKINGS_CASES = {
    "seq-len-nan": ("seq_len=nan", "seq_len"),
    "seq-len-numeric-float": ("seq_len=1024.5", "seq_len"),
    # an integer written as a decimal, padded or in another script's digits: the schema says
    # integer, so the digits only (DRF alone reads each of these as 70)
    "limit-integral-decimal": ("limit=70.0", "limit"),
    "limit-padded": ("limit=%2070", "limit"),
    "limit-arabic-indic-digits": ("limit=%D9%A7%D9%A0", "limit"),
    "power-integral-decimal": ("power_w_max=700.0", "power_w_max"),
    "tokens-negative": ("tokens=-1", "tokens"),
    "tokens-huge": ("tokens=1e400", "tokens"),
    "budget-nan": ("budget=nan", "budget"),
    "budget-infinity": ("budget=Infinity", "budget"),
    "budget-zero": ("budget=0", "budget"),
    "limit-zero": ("limit=0", "limit"),
    "limit-huge": ("limit=100000000", "limit"),
    "unknown-model": ("model=gpt-9", "model"),
    "unknown-quant": ("quant=NF5", "quant"),
    "unknown-kind": ("kind=both", "kind"),
    "context-a-word": ("kind=infer&context=long", "context"),
    "unknown-placement": ("kind=infer&placement=moon", "placement"),
    "unknown-sort": ("sort=cheapest", "sort"),
    "infer-sort-for-training": ("sort=usd_per_decode_tokens_per_s", "sort"),
}


@pytest.fixture(autouse=True)
def no_throttle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sixty requests in a row: the anonymous rate (tested elsewhere) would answer 429."""
    monkeypatch.setitem(SimulateAnonThrottle.THROTTLE_RATES, "simulate_anon", "100000/min")


def _queued_messages() -> int:
    return int(redis.Redis.from_url(settings.CELERY_BROKER_URL).llen(CELERY_QUEUE))


@pytest.fixture
def nothing_is_enqueued(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> Any:
    """Run the request with on-commit callbacks executed; then no run stored, none sent."""
    runs, messages = SimulationRun.objects.count(), _queued_messages()
    with django_capture_on_commit_callbacks(execute=True):
        yield
    assert SimulationRun.objects.count() == runs
    assert _queued_messages() == messages


def _error_names(response: Any, case: Bad) -> None:
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert case.detail in body["detail"]
    if case.field is not None:
        assert case.field in body["errors"], body


@pytest.mark.parametrize("case", SIMULATE_CASES.values(), ids=SIMULATE_CASES.keys())
def test_bad_simulate_input_is_a_4xx_naming_the_field(nothing_is_enqueued: None, case: Bad) -> None:
    body = case.body if isinstance(case.body, str | bytes) else _json(case.body)

    response = Client().post("/api/simulate", body, content_type=case.content_type)

    assert response.status_code == case.status, response.content[:500]
    _error_names(response, case)


@pytest.mark.parametrize(("query", "field"), RANKINGS_CASES.values(), ids=RANKINGS_CASES.keys())
def test_bad_rankings_query_is_a_400_naming_the_parameter(
    nothing_is_enqueued: None, query: str, field: str
) -> None:
    response = Client().get(f"/api/rankings?{query}")

    assert response.status_code == 400, response.content[:500]
    _error_names(response, Bad(body=None, status=400, field=field))

"""Bad bodies for every write endpoint of the API, in one table: POST /api/simulate (its
train, infer, build_id, parts and ranking forms), POST /api/prices and POST
/api/measurements, sent with the credentials each needs.

Each is a 4xx: 400 naming the field at fault by its JSON path (`errors`), 404 for an id
that names nothing, 413 for a body over the limit, 415 for a body that is not JSON. The
answer is JSON, no message names a Python exception, and nothing is written.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from _pytest.mark import ParameterSet
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from catalog.models import PriceChange, PriceObservation
from planner_site.api_parsers import MAX_DEPTH, PARSE_DEPTH, nesting_depth
from simulator.models import Measurement, SimulationRun
from simulator.throttles import SimulateAnonThrottle
from tests.catalog.factories import GpuFactory, UserFactory, pricing_staff

pytestmark = [pytest.mark.services, pytest.mark.django_db]

URLS = {"simulate": "/api/simulate", "prices": "/api/prices", "measurements": "/api/measurements"}
PART_ID = 4090  # the one catalog part: a GPU, alone not a build
PART_SLUG = "rtx-4090"
NESTING_DEPTH = 100_000  # far beyond the interpreter's recursion limit
OVER_THE_LIMIT = 300 * 1024  # DATA_UPLOAD_MAX_MEMORY_SIZE is 256 KiB
BEYOND_FLOAT = 10**400  # a JSON integer literal no float holds
FORM = "application/x-www-form-urlencoded"
MULTIPART = "multipart/form-data; boundary=x"

GPU = {"name": "RTX 4090", "vram_gb": 24, "bf16_tflops": 165, "pcie_gbps": 22, "fp4": False}
CPU = {"name": "EPYC 9124", "cores": 16, "mem_gbps": 460.8, "flops_per_core_cycle": 32, "ghz": 3}
TRAIN = {
    "workload": {"kind": "train", "model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": 1024,
                 "lora_rank": 64, "tokens": 50_000_000, "utilization": 0.7, "mode": "refined",
                 "lora_targets": ["q"], "activation_checkpointing": True,
                 "full_finetune": False},
    "hardware": {"gpu": GPU, "gpu_count": 1, "nvme_gbps": 7, "ram_gb": 32},
}  # fmt: skip
INFER = {
    "workload": {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M", "context": 4096,
                 "batch": 1, "placement": "gpu", "kv_cache_type": "f16"},
    "hardware": {"gpu": {**GPU, "mem_gbps": 1008}, "cpu": CPU, "ram_gb": 64},
}  # fmt: skip
MODEL_CONFIG = {"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
                "intermediate_size": 14336, "vocab_size": 128256}  # fmt: skip
CUSTOM_MODEL = {**TRAIN, "workload": {**TRAIN["workload"], "model_config": MODEL_CONFIG}}
RANKING = {"workload": TRAIN["workload"],
           "ranking": {"gpu_count_min": 1, "gpu_count_max": 2, "budget_usd": 5000,
                       "sort": "usd_per_tokens_per_s", "storage_tiers": ["gen4_x1"]}}  # fmt: skip
INFER_RANKING = {"workload": INFER["workload"], "ranking": {"systems": True}}
# a whole system is the machine: no GPU or CPU beside it
SYSTEM_INFER = {"workload": {**INFER["workload"], "placement": "unified"},
                "hardware": {"unified": "Mac Studio M3 Ultra 512GB"}}  # fmt: skip
BUILD = {"workload": TRAIN["workload"], "build_id": 1}
PARTS = {"workload": TRAIN["workload"], "parts": [{"part_id": PART_ID, "quantity": 1}]}
PRICE = {"part": PART_SLUG, "amount": "1650.00", "currency": "USD", "condition": "used",
         "vendor": "ebay", "source_url": "https://example.org/listing",
         "observed_on": "2026-02-10", "seen_price_change_id": 0}  # fmt: skip
MEASUREMENT = {
    "category": "inference_gpu_dense", "engine": "llama.cpp CUDA b4000",
    "hardware": {"gpu": "RTX 4090", "gpu_count": 1}, "model": "Llama 3 8B", "quant": "Q4_K_M",
    "workload": {"phase": "decode", "test": "tg512"}, "metric": "throughput", "value": 128.5,
    "unit": "tok/s", "source_url": "https://example.org/my-run", "command": "llama-bench -n 512",
}  # fmt: skip

# What a message must never show: a Python exception's name, a traceback, a repr of None.
PYTHON_LEAKS = re.compile(
    r"Traceback|\b[A-Z][A-Za-z]*(Error|Exception)\b|StopIteration|NoneType"
    r"|object has no attribute|File \"|<class "
)


@dataclass(frozen=True)
class Bad:
    """One bad request: its body (JSON-able, or the raw text sent as is), what comes back."""

    body: Any
    # The JSON path "errors" names (the only one, or these); None: `detail` says what it is.
    field: str | tuple[str, ...] | None
    status: int = 400
    detail: str = ""  # a phrase the detail holds
    content_type: str = "application/json"


# --- building the table ---------------------------------------------------------------------
def _steps(path: str) -> list[str | int]:
    """'parts[0].quantity' -> ['parts', 0, 'quantity']."""
    return [int(p) if p.isdigit() else p for p in re.findall(r"[^.\[\]]+", path)]


def with_value(base: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """`base` with the value at `path` replaced (or added)."""
    body = copy.deepcopy(base)
    *parents, last = _steps(path)
    node: Any = body
    for step in parents:
        node = node[step]
    node[last] = value
    return body


def without(base: dict[str, Any], path: str) -> dict[str, Any]:
    body = copy.deepcopy(base)
    *parents, last = _steps(path)
    node: Any = body
    for step in parents:
        node = node[step]
    del node[last]
    return body


def with_raw(base: dict[str, Any], path: str, token: str) -> str:
    """`base` as JSON text with the value at `path` replaced by a raw token (NaN, 1e999)."""
    marker = "__RAW__"
    return json.dumps(with_value(base, path, marker)).replace(f'"{marker}"', token)


Case = tuple[str, str, Bad]  # endpoint, id, the bad request

# Values of the wrong JSON type, by the type a field holds.
WRONG_TYPES: dict[str, dict[str, Any]] = {
    "integer": {"string": "8", "fraction": 8.5, "bool": True, "list": [8], "object": {}},
    "number": {"string": "0.5", "bool": True, "list": [0.5], "object": {}},
    "string": {"number": 4, "bool": False, "list": ["x"], "object": {}},
    "boolean": {"string": "true", "number": 1, "list": [], "object": {}},
    "object": {"list": [], "string": "x", "number": 1},
    "list": {"object": {}, "string": "x", "number": 1},
}
# Numbers no field takes, by name; each number field lists those it refuses.
NUMBERS = {"negative": -1, "zero": 0, "tiniest-float": 5e-324, "huge-float": 1e308,
           "beyond-float": BEYOND_FLOAT, "a-billion": 10**9}  # fmt: skip
ALL_BAD_NUMBERS = tuple(NUMBERS)
# C0 controls (and DEL) a text may not hold: PostgreSQL refuses NUL, the rest belong nowhere.
CONTROLS = ("\x00", "\x1b", "\x7f", "\x08", "\x0b", "\x1f")


def wrong_types(endpoint: str, base: dict[str, Any], fields: dict[str, str]) -> Iterator[Case]:
    for path, kind in fields.items():
        for name, value in WRONG_TYPES[kind].items():
            yield endpoint, f"{path}-{name}", Bad(with_value(base, path, value), path)


def bad_numbers(
    endpoint: str, base: dict[str, Any], fields: dict[str, tuple[str, ...]]
) -> Iterator[Case]:
    for path, names in fields.items():
        for name in names:
            yield endpoint, f"{path}-{name}", Bad(with_value(base, path, NUMBERS[name]), path)


def control_characters(
    endpoint: str, base: dict[str, Any], fields: dict[str, tuple[Any, str]]
) -> Iterator[Case]:
    """Each field's text with a control character in it, a character per field in turn;
    the error names the string that holds it (a key's: the object holding the key)."""
    for index, (path, (make, named)) in enumerate(fields.items()):
        char = CONTROLS[index % len(CONTROLS)]
        bad = Bad(with_value(base, path, make(char)), named, detail="control characters")
        yield endpoint, f"{path}-control-{ord(char):#04x}", bad


def unknown_fields(endpoint: str, base: dict[str, Any], paths: tuple[str, ...]) -> Iterator[Case]:
    for path in paths:
        yield endpoint, f"unknown-{path}", Bad(with_value(base, path, 1), path, detail="unknown")


def nulls(endpoint: str, base: dict[str, Any], paths: tuple[str, ...]) -> Iterator[Case]:
    for path in paths:
        yield endpoint, f"{path}-null", Bad(with_value(base, path, None), path)


def missing_fields(endpoint: str, base: dict[str, Any], paths: tuple[str, ...]) -> Iterator[Case]:
    for path in paths:
        yield endpoint, f"missing-{path}", Bad(without(base, path), path)


def too_deep(endpoint: str, base: dict[str, Any], path: str, levels: int) -> Case:
    """`base` with objects nested `levels` deep at `path`, named where they pass MAX_DEPTH
    (the top-level object is at depth 0)."""
    named = path + ".a" * (MAX_DEPTH - len(_steps(path)))
    inner = '{"a": ' * (levels - 1) + "{}" + "}" * (levels - 1)
    bad = Bad(with_raw(base, path, inner), named, detail=f"deeper than {MAX_DEPTH} levels")
    return endpoint, f"{path}-nested-{levels}-levels", bad


def whole_body_cases(
    endpoint: str, base: dict[str, Any], *, required: tuple[str, ...] = ("request",)
) -> Iterator[Case]:
    """The body as a whole: not JSON, not an object, too deep, too large, not JSON at all.
    An empty body is read as an empty object (DRF): each `required` field is named."""
    text = json.dumps(base)
    cases = {
        "empty-body": Bad("", required),
        "empty-object": Bad({}, required),
        "a-json-array": Bad([base], "request"),
        "a-json-string": Bad('"train"', "request"),
        "a-json-number": Bad(42, "request"),
        "json-null": Bad(None, "request"),
        "json-true": Bad(True, "request"),
        "truncated-json": Bad(text[:-3], None, detail="JSON parse error"),
        "single-quoted": Bad(text.replace('"', "'"), None, detail="JSON parse error"),
        "trailing-garbage": Bad(text + "}", None, detail="JSON parse error"),
        "not-utf8": Bad(b'{"x": "\xff\xfe"}', None, detail="JSON parse error"),
        "nan-literal": Bad(text[:-1] + ', "x": NaN}', None, detail="NaN"),
        "an-integer-of-5000-digits": Bad(
            text[:-1] + ', "x": 1' + "0" * 5000 + "}", None, detail="JSON parse error"
        ),
        "deeply-nested": Bad(
            '{"x": ' + "[" * NESTING_DEPTH + "]" * NESTING_DEPTH + "}",
            None,
            detail="nested too deeply",
        ),
        "over-the-size-limit": Bad({**base, "x": "x" * OVER_THE_LIMIT}, None, 413, "too large"),
        "plain-text": Bad(text, None, 415, "text/plain", content_type="text/plain"),
        "a-form": Bad("a=1", None, 415, "x-www-form-urlencoded", content_type=FORM),
        "multipart": Bad("--x--", None, 415, "multipart/form-data", content_type=MULTIPART),
        "utf-16-json": Bad(text.encode("utf-16"), None, detail="JSON parse error"),
    }
    for name, bad in cases.items():
        yield endpoint, name, bad


def _text(value: str) -> Callable[[str], str]:
    return lambda char: f"{value[:2]}{char}{value[2:]}"


def simulate_cases() -> Iterator[Case]:
    e = "simulate"
    yield from whole_body_cases(e, TRAIN)
    yield from wrong_types(e, TRAIN, {
        "workload": "object", "hardware": "object", "workload.model": "string",
        "workload.quant": "string", "workload.kind": "string", "workload.mode": "string",
        "workload.seq_len": "integer", "workload.lora_rank": "integer",
        "workload.tokens": "integer", "workload.utilization": "number",
        "workload.lora_targets": "list", "workload.activation_checkpointing": "boolean",
        "workload.full_finetune": "boolean", "workload.model_config": "object",
        "hardware.gpu_count": "integer", "hardware.ram_gb": "number",
        "hardware.nvme_gbps": "number", "hardware.gpu.name": "string",
        "hardware.gpu.vram_gb": "number", "hardware.gpu.bf16_tflops": "number",
        "hardware.gpu.fp4": "boolean",
    })  # fmt: skip
    yield from wrong_types(e, INFER, {
        "workload.context": "integer", "workload.batch": "integer",
        "workload.placement": "string", "workload.kv_cache_type": "string",
        "hardware.gpu.mem_gbps": "number", "hardware.cpu.cores": "integer",
        "hardware.cpu.ghz": "number", "hardware.cpu.name": "string",
    })  # fmt: skip
    yield from wrong_types(e, CUSTOM_MODEL, {"workload.model_config.hidden_size": "integer"})
    yield from wrong_types(e, BUILD, {"build_id": "integer"})
    yield from wrong_types(e, PARTS, {
        "parts": "list", "parts[0]": "object", "parts[0].part_id": "integer",
        "parts[0].quantity": "integer",
    })  # fmt: skip
    yield from wrong_types(e, RANKING, {
        "ranking": "object", "ranking.gpu_count_max": "integer", "ranking.budget_usd": "number",
        "ranking.sort": "string", "ranking.storage_tiers": "list",
    })  # fmt: skip
    yield from wrong_types(e, INFER_RANKING, {"ranking.systems": "boolean"})
    every = ALL_BAD_NUMBERS
    yield from bad_numbers(e, TRAIN, {
        "workload.utilization": every, "workload.seq_len": ("negative", "zero", "a-billion"),
        "workload.tokens": ("negative", "zero", "beyond-float"),
        "hardware.gpu.vram_gb": every, "hardware.gpu.bf16_tflops": every,
        "hardware.gpu.pcie_gbps": ("zero", "tiniest-float", "huge-float"),
        "hardware.ram_gb": ("negative", "huge-float", "beyond-float"),
        "hardware.nvme_gbps": every,
        "hardware.gpu_count": ("negative", "zero", "a-billion"),
    })  # fmt: skip
    yield from bad_numbers(e, INFER, {
        "workload.context": ("negative", "zero", "beyond-float"), "hardware.cpu.ghz": every,
        "hardware.gpu.mem_gbps": ("zero", "tiniest-float", "huge-float"),
    })  # fmt: skip
    yield from bad_numbers(e, CUSTOM_MODEL, {
        "workload.model_config.hidden_size": ("negative", "zero", "beyond-float"),
        "workload.model_config.head_dim": ("zero", "a-billion"),
        "workload.model_config.num_nextn_predict_layers": ("negative", "a-billion"),
        "workload.model_config.num_hidden_layers": ("zero", "a-billion"),
    })  # fmt: skip
    yield from bad_numbers(e, RANKING, {
        "ranking.gpu_count_max": ("zero", "a-billion"),
        "ranking.budget_usd": ("negative", "zero", "huge-float", "beyond-float"),
    })  # fmt: skip
    yield from bad_numbers(e, PARTS, {"parts[0].quantity": ("negative", "zero", "a-billion")})
    yield from control_characters(e, TRAIN, {
        "workload.model": (_text("glm-4.7"), "workload.model"),
        "workload.quant": (_text("NF4"), "workload.quant"),
        "workload.kind": (_text("train"), "workload.kind"),
        "workload.mode": (_text("refined"), "workload.mode"),
        "workload.lora_targets": (lambda c: [f"q{c}"], "workload.lora_targets[0]"),
        "hardware.gpu": (_text("RTX 4090"), "hardware.gpu"),
        "hardware.gpu.name": (_text("RTX 4090"), "hardware.gpu.name"),
        "workload.model_config": (lambda c: {f"hidden{c}size": 1}, "workload.model_config"),
        "hardware.gpu.vram_gb": (_text("24"), "hardware.gpu.vram_gb"),
    })  # fmt: skip
    yield from control_characters(e, INFER, {
        "hardware.cpu.name": (_text("EPYC 9124"), "hardware.cpu.name"),
        "workload.placement": (_text("gpu"), "workload.placement"),
    })  # fmt: skip
    yield from control_characters(e, RANKING, {
        "ranking.sort": (_text("usd_per_tokens_per_s"), "ranking.sort"),
        "ranking.storage_tiers": (lambda c: [f"gen4{c}_x1"], "ranking.storage_tiers[0]"),
    })  # fmt: skip
    yield from unknown_fields(e, TRAIN, (
        "hardwares", "workload.sequence_length", "hardware.nvme_gb", "hardware.gpu.vram",
    ))  # fmt: skip
    yield from unknown_fields(e, INFER, ("workload.ctx_size", "hardware.cpu.threads"))
    yield from unknown_fields(e, BUILD, ("parts_list",))
    # Deep bodies that parse: named where they pass MAX_DEPTH (900 levels once parsed, then
    # overflowed the stack when the request was hashed: a 500).
    deep = "workload.model_config.quantization_config"
    for levels in (MAX_DEPTH, PARSE_DEPTH - len(_steps(deep))):  # the deepest that parses
        yield too_deep(e, CUSTOM_MODEL, deep, levels)
    yield from missing_fields(e, TRAIN, ("workload", "workload.quant", "hardware.gpu"))
    yield from nulls(e, TRAIN, (
        "workload", "hardware", "workload.quant", "workload.seq_len", "workload.utilization",
        "hardware.gpu", "hardware.gpu_count",
    ))  # fmt: skip
    yield from nulls(e, BUILD, ("build_id",))
    yield from nulls(e, PARTS, ("parts", "parts[0].part_id"))
    yield from nulls(e, RANKING, ("ranking.sort", "ranking.gpu_count_max"))
    unknown_gpu = with_value(INFER, "hardware.gpu.name", "My accelerator")  # no table figures
    yield from missing_fields(e, unknown_gpu, ("hardware.gpu.mem_gbps",))
    yield from missing_fields(e, CUSTOM_MODEL, ("workload.model_config.hidden_size",))
    cases: dict[str, Bad] = {
        "two-forms-at-once": Bad({**TRAIN, "build_id": 1}, "request"),
        "empty-model": Bad(with_value(TRAIN, "workload.model", ""), "workload.model"),
        "a-10000-character-model": Bad(
            with_value(TRAIN, "workload.model", "m" * 10_000), "workload.model"
        ),
        "unknown-model": Bad(with_value(TRAIN, "workload.model", "gpt-9"), "workload.model"),
        "unknown-gpu": Bad(with_value(TRAIN, "hardware.gpu", "RTX 9090"), "hardware.gpu"),
        "unknown-quant": Bad(with_value(TRAIN, "workload.quant", "NF5"), "workload.quant"),
        "unknown-kind": Bad(with_value(TRAIN, "workload.kind", "both"), "workload.kind"),
        "unknown-sort": Bad(with_value(RANKING, "ranking.sort", "cheapest"), "ranking.sort"),
        "utilization-above-1": Bad(
            with_value(TRAIN, "workload.utilization", 1.5), "workload.utilization"
        ),
        "nan-string": Bad(with_value(TRAIN, "workload.utilization", "nan"), "workload.utilization"),
        "infinity-literal": Bad(
            with_raw(TRAIN, "hardware.gpu.vram_gb", "Infinity"), None, detail="Infinity"
        ),
        "1e999-overflows": Bad(
            with_raw(TRAIN, "hardware.gpu.bf16_tflops", "1e999"), "hardware.gpu.bf16_tflops"
        ),
        "pinned-above-ram": Bad(with_value(TRAIN, "hardware.pinned_gb", 64), "hardware.pinned_gb"),
        "parts-empty": Bad(with_value(PARTS, "parts", []), "parts"),
        "ranking-min-above-max": Bad(
            with_value(RANKING, "ranking.gpu_count_min", 4), "ranking.gpu_count_min"
        ),
        "ranking-no-storage": Bad(
            with_value(RANKING, "ranking.storage_tiers", []), "ranking.storage_tiers"
        ),
        "unknown-build": Bad(with_value(BUILD, "build_id", 999_999), "build_id", 404, "999999"),
        "build-id-beyond-int64": Bad(with_value(BUILD, "build_id", 2**63), "build_id", 404),
        "build-id-beyond-float": Bad(with_value(BUILD, "build_id", BEYOND_FLOAT), "build_id", 404),
        "build-id-negative": Bad(with_value(BUILD, "build_id", -1), "build_id", 404),
        "unknown-part": Bad(
            with_value(PARTS, "parts[0].part_id", 999_999), "parts[0].part_id", 404, "999999"
        ),
        "part-id-beyond-int64": Bad(
            with_value(PARTS, "parts[0].part_id", 2**63), "parts[0].part_id", 404
        ),
        "part-id-beyond-float": Bad(
            with_value(PARTS, "parts[0].part_id", BEYOND_FLOAT), "parts[0].part_id", 404
        ),
        "custom-model-slug-a-number": Bad(
            with_value(CUSTOM_MODEL, "workload.model", 4), "workload.model"
        ),
        "lora-targets-a-number-among-names": Bad(
            with_value(TRAIN, "workload.lora_targets", ["q", 4]), "workload.lora_targets"
        ),
        "unified-name-a-number": Bad(
            with_value(SYSTEM_INFER, "hardware.unified", {"name": 4}), "hardware.unified.name"
        ),
        "unified-beside-a-gpu-and-cpu": Bad(
            with_value(INFER, "hardware.unified", "Mac Studio M3 Ultra 512GB"), "hardware.unified"
        ),
    }
    for name, bad in cases.items():
        yield e, name, bad


def price_cases() -> Iterator[Case]:
    e = "prices"
    yield from whole_body_cases(e, PRICE, required=("part", "amount", "vendor", "observed_on"))
    yield from wrong_types(e, PRICE, {
        "part": "string", "vendor": "string", "source_url": "string", "observed_on": "string",
        "currency": "string", "condition": "string", "seen_price_change_id": "integer",
    })  # fmt: skip
    yield from control_characters(e, PRICE, {
        name: (_text(str(PRICE[name])), name)
        for name in ("part", "amount", "currency", "condition", "vendor", "source_url",
                     "observed_on")
    })  # fmt: skip
    yield e, "a-key-with-nul", Bad({**PRICE, "ven\x00dor": "x"}, "request", detail="control")
    yield from unknown_fields(e, PRICE, ("price", "observed"))
    yield too_deep(e, PRICE, "vendor", 40)
    yield from missing_fields(e, PRICE, ("part", "amount", "vendor", "observed_on"))
    cases: dict[str, Any] = {
        "amount": {
            "a-bool": True, "a-list": ["1650"], "an-object": {}, "a-word": "cheap", "empty": "",
            "negative": "-1.00", "zero": "0", "a-cent-fraction": "0.001", "tiniest-float": 5e-324,
            "huge-float": 1e308, "beyond-float": BEYOND_FLOAT, "eleven-digits": "123456789.00",
            "nan": "NaN", "infinity": "Infinity", "null": None,
        },
        "observed_on": {
            "february-30": "2026-02-30", "us-format": "02/10/2026", "a-word": "yesterday",
            "empty": "", "a-number": 20260210, "in-the-future": "2999-01-01",
            "year-0": "0000-01-01",
        },
        "currency": {"lowercase": "usd", "unknown": "XXX", "empty": "", "null": None},
        "condition": {"unknown": "broken", "uppercase": "NEW"},
        "part": {"unknown": "rtx-9090", "empty": "", "null": None,
                 "10000-characters": "p" * 10_000},
        "vendor": {"empty": "", "121-characters": "v" * 121, "null": None},
        "source_url": {"501-characters": "https://example.org/" + "x" * 481},
        "seen_price_change_id": {"negative": -1, "beyond-int64": 2**63,
                                 "beyond-float": BEYOND_FLOAT},
    }  # fmt: skip
    for field, values in cases.items():
        for name, value in values.items():
            yield e, f"{field}-{name}", Bad(with_value(PRICE, field, value), field)


def measurement_cases() -> Iterator[Case]:
    e = "measurements"
    yield from whole_body_cases(e, MEASUREMENT, required=(
        "category", "engine", "hardware", "model", "quant", "workload", "value", "unit",
        "source_url", "command",
    ))  # fmt: skip
    yield from wrong_types(e, MEASUREMENT, {
        "category": "string", "engine": "string", "hardware": "object", "model": "string",
        "quant": "string", "workload": "object", "metric": "string", "value": "number",
        "unit": "string", "source_url": "string", "command": "string",
    })  # fmt: skip
    yield from bad_numbers(e, MEASUREMENT, {"value": ALL_BAD_NUMBERS})
    yield from control_characters(e, MEASUREMENT, {
        **{name: (_text(str(MEASUREMENT[name])), name)
           for name in ("category", "engine", "model", "quant", "metric", "unit", "source_url",
                        "command")},
        "hardware.gpu": (_text("RTX 4090"), "hardware.gpu"),
        "workload.test": (_text("tg512"), "workload.test"),
        "hardware": (lambda c: {f"g{c}pu": "RTX 4090"}, "hardware"),
    })  # fmt: skip
    yield from unknown_fields(e, MEASUREMENT, ("status", "submitter", "predicted"))
    yield from nulls(e, MEASUREMENT, ("engine", "hardware", "value", "command", "metric"))
    yield too_deep(e, MEASUREMENT, "workload.test", 40)
    yield from missing_fields(e, MEASUREMENT, (
        "category", "engine", "hardware", "model", "quant", "workload", "value", "unit",
        "source_url", "command",
    ))  # fmt: skip
    cases: dict[str, Any] = {
        "category": {"unknown": "inference_moon", "empty": ""},
        "unit": {"unknown": "furlongs", "null": None},
        "engine": {"empty": "", "201-characters": "e" * 201},
        "model": {"empty": "", "201-characters": "m" * 201},
        "quant": {"101-characters": "q" * 101},
        "command": {"empty": "", "4001-characters": "c" * 4001},
        "source_url": {"not-a-url": "my laptop", "ftp": "ftp://example.org/run",
                       "javascript": "javascript:alert(1)", "501-characters":
                       "https://example.org/" + "x" * 481},
        "hardware": {"empty": {}, "over-4000-characters": {"gpu": "g" * 4001}},
        "workload": {"empty": {}},
        "value": {"nan-string": "NaN", "infinity-string": "Infinity", "above-1e7": 1.5e7},
    }  # fmt: skip
    for field, values in cases.items():
        for name, value in values.items():
            yield e, f"{field}-{name}", Bad(with_value(MEASUREMENT, field, value), field)


# Unknown keys deeper in a simulate body: a ranking's options and a parts line.
UNKNOWN_NESTED: list[tuple[str, str, Bad]] = [
    ("simulate", "unknown-ranking-option",
     Bad(with_value(RANKING, "ranking.gpu_count_maxx", 2), "ranking.gpu_count_maxx")),
    ("simulate", "unknown-infer-ranking-option",
     Bad(with_value(INFER_RANKING, "ranking.system", False), "ranking.system")),
    ("simulate", "unknown-parts-line-field",
     Bad(with_value(PARTS, "parts[0].qty", 2), "parts[0].qty")),
]  # fmt: skip


def table() -> list[ParameterSet]:
    cases = [*simulate_cases(), *UNKNOWN_NESTED, *price_cases(), *measurement_cases()]
    return [pytest.param(e, bad, id=f"{e}:{name}") for e, name, bad in cases]


TABLE = table()


# --- running it -----------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def no_throttle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hundreds of requests in a row: the anonymous rate (tested elsewhere) would answer 429."""
    monkeypatch.setitem(SimulateAnonThrottle.THROTTLE_RATES, "simulate_anon", "100000/min")


@pytest.fixture(autouse=True)
def one_part() -> None:
    """The part prices name, and a part that is no build on its own (the parts form)."""
    GpuFactory.create(id=PART_ID, slug=PART_SLUG)


def token_client(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


# Who may write where (tests/planner_site/test_write_permissions.py): prices need staff with
# the admin's "add price observation", measurements a signed-in user, simulate no one.
CLIENTS: dict[str, Callable[[], APIClient]] = {
    "simulate": lambda: token_client(None),
    "prices": lambda: token_client(pricing_staff()),
    "measurements": lambda: token_client(UserFactory.create()),
}


def written_rows() -> tuple[int, ...]:
    return tuple(
        model.objects.count()
        for model in (SimulationRun, PriceObservation, PriceChange, Measurement)
    )


def _raw(bad: Bad) -> str | bytes:
    return bad.body if isinstance(bad.body, str | bytes) else json.dumps(bad.body)


def test_the_table_has_a_hundred_and_twenty_bad_bodies_and_more() -> None:
    per_endpoint = {name: sum(1 for p in TABLE if p.values[0] == name) for name in URLS}
    assert sum(per_endpoint.values()) >= 120
    assert min(per_endpoint.values()) >= 40, per_endpoint


@pytest.mark.parametrize(("endpoint", "bad"), TABLE)
def test_a_bad_body_is_a_4xx_naming_the_field_and_writes_nothing(endpoint: str, bad: Bad) -> None:
    client = CLIENTS[endpoint]()
    before = written_rows()

    response = client.post(URLS[endpoint], _raw(bad), content_type=bad.content_type)

    assert response.status_code == bad.status, response.content[:500]
    assert response["Content-Type"] == "application/json"
    body = response.json()
    text = response.content.decode()
    assert not PYTHON_LEAKS.search(text), text[:500]
    assert bad.detail in body["detail"], body
    if bad.field is not None:
        fields = {bad.field} if isinstance(bad.field, str) else set(bad.field)
        assert set(body["errors"]) == fields, body
        assert all(body["errors"].values()), body
    assert written_rows() == before


GOOD_BODIES = {
    "simulate-train": ("simulate", TRAIN, 200),
    "simulate-infer": ("simulate", INFER, 200),
    "simulate-custom-model": ("simulate", CUSTOM_MODEL, 200),
    "simulate-ranking": ("simulate", RANKING, 202),
    "simulate-infer-ranking": ("simulate", INFER_RANKING, 202),
    "prices": ("prices", PRICE, 201),
    "measurements": ("measurements", MEASUREMENT, 201),
}


@pytest.mark.parametrize(("endpoint", "body", "status"), GOOD_BODIES.values(), ids=GOOD_BODIES)
def test_the_bodies_the_table_spoils_are_taken_as_they_are(
    endpoint: str, body: dict[str, Any], status: int
) -> None:
    """Each bad body is one of these with one thing wrong; these are taken, and write."""
    before = written_rows()

    response = CLIENTS[endpoint]().post(URLS[endpoint], body, format="json")

    assert response.status_code == status, response.content[:500]
    assert written_rows() != before


def test_brackets_inside_strings_and_escaped_quotes_do_not_count_as_nesting() -> None:
    text = json.dumps({"a": '[[[["{{{' + "[" * 300, "b": [[1]], "c": "\\"})
    assert nesting_depth(text) == 3
    assert nesting_depth("[]" * 1000) == 1
    assert nesting_depth("42") == 0

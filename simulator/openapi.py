"""JSON Schema of the POST /api/simulate body, for the OpenAPI document.

The engine's request parser is the validator (it names the field at fault); this schema
describes the same shape so that clients and fuzzers can generate valid requests. Physical
limits (a model that fits no GPU, NVFP4 without FP4 cores) cannot be said in a schema: such
schema-valid bodies are answered 400 with the reason.
"""

from typing import Any

from simulator.engine.quant import QUANT_FORMATS
from simulator.engine.registry import model_slugs
from simulator.ranking import SORT_FIELDS

_POSITIVE = {"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": 1e6}

TRAIN_WORKLOAD = {
    "type": "object",
    "required": ["model", "quant"],
    "properties": {
        "kind": {"type": "string", "enum": ["train"]},
        "model": {"type": "string", "enum": list(model_slugs())},
        "quant": {"type": "string", "enum": list(QUANT_FORMATS)},
        "seq_len": {"type": "integer", "minimum": 1, "maximum": 131072},
        "lora_rank": {"type": "integer", "minimum": 1, "maximum": 1024},
        "tokens": {"type": "integer", "minimum": 1, "maximum": 10**15},
        "mode": {"type": "string", "enum": ["reference", "refined"]},
        "utilization": {"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": 1},
    },
}
GPU = {
    "type": "object",
    "required": ["vram_gb", "bf16_tflops", "pcie_gbps"],
    "properties": {
        "name": {"type": "string", "maxLength": 100},
        "vram_gb": _POSITIVE,
        "bf16_tflops": _POSITIVE,
        "pcie_gbps": _POSITIVE,
        "fp4": {"type": "boolean"},
    },
}
HARDWARE = {
    "type": "object",
    "required": ["gpu"],
    "properties": {
        "gpu": GPU,
        "gpu_count": {"type": "integer", "minimum": 1, "maximum": 64},
        "nvme_gbps": _POSITIVE,
        "ram_gb": {"type": "number", "minimum": 0, "maximum": 1e6},
        "pinned_gb": {"type": "number", "minimum": 0, "maximum": 1e6},
    },
}
RANKING = {
    "type": "object",
    "properties": {
        "budget_usd": {"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": 1e9},
        "gpu_count_min": {"type": "integer", "minimum": 1, "maximum": 8},
        "gpu_count_max": {"type": "integer", "minimum": 1, "maximum": 8},
        "ram_gb_min": {"type": "integer", "minimum": 0, "maximum": 512},
        "storage_tiers": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "string",
                "enum": ["gen4_x1", "gen5_x1", "gen4_raid0_x4", "gen5_aic_x4"],
            },
        },
        "sort": {"type": "string", "enum": list(SORT_FIELDS)},
    },
}
PART_LINE = {
    "type": "object",
    "required": ["part_id"],
    "properties": {
        "part_id": {"type": "integer", "minimum": 1},
        "quantity": {"type": "integer", "minimum": 1, "maximum": 16},
    },
}


def _form(key: str, schema: dict[str, Any], title: str) -> dict[str, Any]:
    return {
        "title": title,
        "type": "object",
        "required": ["workload", key],
        "properties": {"workload": TRAIN_WORKLOAD, key: schema},
    }


SIMULATE_REQUEST: dict[str, Any] = {
    "oneOf": [
        _form("hardware", HARDWARE, "Inline hardware"),
        _form("build_id", {"type": "integer", "minimum": 1}, "Catalog build"),
        _form(
            "parts",
            {"type": "array", "minItems": 1, "maxItems": 32, "items": PART_LINE},
            "Catalog parts",
        ),
        _form("ranking", RANKING, "Ranking"),
    ]
}

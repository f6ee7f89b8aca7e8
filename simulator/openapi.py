"""JSON Schema of the POST /api/simulate body, for the OpenAPI document.

The engine's request parser is the validator (it names the field at fault); this schema
describes the same shape so that clients and fuzzers can generate valid requests. Physical
limits (a model that fits no GPU, NVFP4 without FP4 cores) cannot be said in a schema: such
schema-valid bodies are answered 400 with the reason. A workload is training's or, with
`"kind": "infer"`, inference's; inline inference hardware adds memory bandwidth, a CPU,
unified memory and the GPU link.
"""

from typing import Any

from simulator.engine import (
    AUTO,
    KV_CACHE_BYTES_PER_ELEMENT,
    MAX_BATCH,
    MAX_CONTEXT,
    MAX_CORES,
    MAX_GPU_COUNT,
    MAX_LAYER,
    MAX_LORA_RANK,
    MAX_MACHINES,
    MAX_REQUEST_RATE_PER_S,
    MAX_REQUESTS,
    MAX_SEQ_LEN,
    MAX_TOKENS,
    MIX_SEPARATOR,
    PARTS,
    PLACEMENTS,
    QUANT_FORMATS,
    WEIGHT_TYPES,
    Cpu,
    Gpu,
    System,
    devices,
    model_slugs,
)
from simulator.engine.io.train_request import (
    MAX_MICRO_BATCH_CAP,
    MAX_MICRO_BATCHES,
    MAX_PIPELINE_PARALLEL,
    MAX_TENSOR_PARALLEL,
    MAX_VIRTUAL_STAGES,
)
from simulator.engine.train.workload import OFFLOADS, OPTIMIZERS, PARALLELISMS
from simulator.ranking import INFER_SORT_FIELDS, SORT_FIELDS
from simulator.services.ranking_filters import BUYER_REGIONS, CASE_SIZES, MAX_POWER_W

# The parser bounds numbers below only (simulator/engine/io/train_request.py `_number`); values too
# large or too small to compute are answered 400 by the service.
_POSITIVE = {"type": "number", "minimum": 0, "exclusiveMinimum": True}
_NON_NEGATIVE = {"type": "number", "minimum": 0}
# Names are labels: the parser shows any value as text.
_LABEL = {"description": "a label for the tables; any value is shown as text"}


def _count(upper: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": 1, "maximum": upper}


def _optional(schema: dict[str, Any]) -> dict[str, Any]:
    """null means "not given" here."""
    return {**schema, "nullable": True}


TRAIN_WORKLOAD = {
    "type": "object",
    "required": ["model", "quant"],
    "properties": {
        "kind": {"type": "string", "enum": ["train"]},
        "model": {"type": "string", "enum": list(model_slugs())},
        "quant": {"type": "string", "enum": list(QUANT_FORMATS)},
        "seq_len": _count(MAX_SEQ_LEN),
        "lora_rank": _count(MAX_LORA_RANK),
        "tokens": _optional(_count(MAX_TOKENS)),
        "mode": {"type": "string", "enum": ["reference", "refined"]},
        "utilization": {"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": 1},
        "micro_batches": _optional(_count(MAX_MICRO_BATCHES)),
        "max_micro_batch": _count(MAX_MICRO_BATCH_CAP),
        "activation_checkpointing": {"type": "boolean"},
        "parallelism": {"type": "string", "enum": list(PARALLELISMS)},
        "full_finetune": {"type": "boolean"},
        "optimizer": {"type": "string", "enum": list(OPTIMIZERS)},
        "offload": {"type": "string", "enum": list(OFFLOADS)},
        "tensor_parallel": _count(MAX_TENSOR_PARALLEL),
        "pipeline_parallel": {
            **_count(MAX_PIPELINE_PARALLEL),
            "description": "Megatron's pipeline stages (refined mode, a data parallelism): the "
            "layers split over this many GPUs, run one-forward-one-backward over micro_batches",
        },
        "virtual_stages": {
            **_count(MAX_VIRTUAL_STAGES),
            "description": "chunks of layers per GPU under pipeline stages (the interleaved "
            "schedule), at most the model's layers over pipeline_parallel",
        },
    },
}
_SUSTAINED_BANDWIDTH = {
    **_POSITIVE,
    "description": "what a streaming benchmark (BabelStream, nvbandwidth, rocm_bandwidth_test) "
    "measured the memory to sustain, GB/s, at most mem_gbps; a runtime's fitted bandwidth "
    "efficiency is a share of it (docs/model.md, 'Sustained memory bandwidth'); default: "
    "mem_gbps times the median measured share of its kind of device",
}
GPU: dict[str, Any] = {
    "type": "object",
    "required": ["vram_gb", "bf16_tflops", "pcie_gbps"],
    "properties": {
        "name": _LABEL,
        "vram_gb": _POSITIVE,
        "bf16_tflops": _POSITIVE,
        "pcie_gbps": _POSITIVE,
        "fp4": {"type": "boolean"},
        "bf16_sustained_tflops": {
            **_POSITIVE,
            "description": "what a large BF16 matmul sustains, measured (training computes "
            "at it); default: bf16_tflops times the median measured share of non-GeForce GPUs",
        },
        "fp8_sustained_tflops": _POSITIVE,
        "compute_units": {
            "type": "integer",
            "minimum": 1,
            "maximum": 4096,
            "description": "streaming multiprocessors (NVIDIA), compute units (AMD) or Xe "
            "cores (Intel); with the runtime's fitted per-unit streaming rate they bound the "
            "memory bandwidth its kernels sustain (docs/model.md); default: none",
        },
        "mem_sustained_gbps": _SUSTAINED_BANDWIDTH,
    },
}


def _device_name(names: list[str], label: str) -> dict[str, Any]:
    return {
        "type": "string",
        "description": f"a {label} of the device table by slug, name or alias "
        "(case-insensitive); an unknown name is a 400 listing the closest ones",
        "example": names[0],
        "x-known-names": names,
    }


GPU_NAME = _device_name([d.name for d in devices(Gpu)], "GPU")
CPU_NAME = _device_name([d.name for d in devices(Cpu)], "CPU")
SYSTEM_NAME = _device_name([d.name for d in devices(System)], "whole system")
HARDWARE = {
    "type": "object",
    "required": ["gpu"],
    "properties": {
        "gpu": {"anyOf": [GPU_NAME, GPU]},
        "gpu_count": _count(MAX_GPU_COUNT),
        "nvme_gbps": _POSITIVE,
        "ram_gb": _NON_NEGATIVE,
        "pinned_gb": _NON_NEGATIVE,
    },
}

# --- inference (simulator/engine/io/serve_request.py) ---------------------------------------
_WEIGHT_TYPE = {"type": "string", "enum": list(WEIGHT_TYPES)}
_TYPE_NAMES = "|".join(WEIGHT_TYPES)
INFER_QUANT = {
    "anyOf": [
        _WEIGHT_TYPE,
        # "A+B": type A everywhere but the routed experts, which get B.
        {"type": "string", "pattern": f"^({_TYPE_NAMES})\\{MIX_SEPARATOR}({_TYPE_NAMES})$"},
        {
            "type": "object",
            "required": ["default"],
            "properties": dict.fromkeys(("default", *PARTS), _WEIGHT_TYPE),
            "additionalProperties": False,
        },
    ]
}
INFER_WORKLOAD = {
    "type": "object",
    "required": ["kind", "model", "quant"],
    "properties": {
        "kind": {"type": "string", "enum": ["infer"]},
        "model": {"type": "string", "enum": list(model_slugs())},
        "quant": INFER_QUANT,
        "placement": {"type": "string", "enum": [*PLACEMENTS, AUTO]},
        "context": _count(MAX_CONTEXT),
        "prompt_tokens": _count(MAX_CONTEXT),
        "prefill_depth_tokens": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_CONTEXT,
            "description": "tokens already in the KV cache when the prompt is processed",
        },
        "batch": _count(MAX_BATCH),
        "ubatch": _count(MAX_CONTEXT),
        "kv_cache_type": {"type": "string", "enum": list(KV_CACHE_BYTES_PER_ELEMENT)},
        "offload_from_layer": _optional(_count(MAX_LAYER)),
        "gpu_layers": _optional(
            {
                **_count(MAX_LAYER),
                "description": "placement gpu: the last this many layers on the GPUs, the first "
                "ones whole (weights, KV cache, compute) in CPU RAM (llama.cpp -ngl N is N − 1); "
                "absent: every layer, or under auto as many as fit",
            }
        ),
        "kv_cache_on_cpu": {"type": "boolean"},
        "output_tokens": _optional(
            {
                **_count(MAX_CONTEXT),
                "description": "a serving run: each request's output tokens (its prompt is "
                "prompt_tokens, at most batch in flight, context ≥ prompt + output); the answer's "
                "serving_run gives the requests in flight, latency and throughput",
            }
        ),
        "request_rate_per_s": _optional(
            {
                **_POSITIVE,
                "maximum": MAX_REQUEST_RATE_PER_S,
                "description": "a serving run's requests sent per second (absent: kept in "
                "flight by their clients)",
            }
        ),
        "requests": _optional(
            {
                **_count(MAX_REQUESTS),
                "description": "a serving run's number of requests (absent: an open stream)",
            }
        ),
        "sparse_attention": _optional(
            {
                "type": "boolean",
                "description": "whether a sparse-attention model (DeepSeek-V3.2, GLM-5) reads "
                "only its indexer's top-k cached tokens; absent or null: the runtime's "
                "kernels decide (vLLM, SGLang, TensorRT-LLM yes; llama.cpp no)",
            }
        ),
    },
}
INFER_GPU = {
    **GPU,
    "required": [*GPU["required"], "mem_gbps"],
    "properties": {
        **GPU["properties"],
        "mem_gbps": _POSITIVE,
        "fp16_tflops": _POSITIVE,
        "fp8_tflops": _POSITIVE,
        "vector_fp16_tflops": {
            **_POSITIVE,
            "description": "FP16 on the vector units where the matrix units are faster (RDNA "
            "4): what llama.cpp's ROCm prompts run at; default: fp16_tflops",
        },
    },
}
CPU = {
    "type": "object",
    "required": ["cores", "mem_gbps", "flops_per_core_cycle", "ghz"],
    "properties": {
        "name": _LABEL,
        "cores": _count(MAX_CORES),
        "mem_gbps": _POSITIVE,
        "flops_per_core_cycle": _POSITIVE,
        "ghz": {**_POSITIVE, "maximum": 10},
    },
}
UNIFIED = {
    "type": "object",
    "required": ["mem_gb", "mem_gbps", "tflops"],
    "properties": {
        "name": _LABEL,
        "mem_gb": _POSITIVE,
        "mem_gbps": _POSITIVE,
        "tflops": _POSITIVE,
        "mem_sustained_gbps": _SUSTAINED_BANDWIDTH,
    },
}
INFER_HARDWARE = {
    "type": "object",
    "properties": {
        "gpu": {"anyOf": [GPU_NAME, INFER_GPU], "nullable": True},
        "gpu_count": _count(MAX_GPU_COUNT),
        "cpu": {"anyOf": [CPU_NAME, CPU], "nullable": True},
        "unified": {"anyOf": [SYSTEM_NAME, UNIFIED], "nullable": True},
        "ram_gb": _NON_NEGATIVE,
        "link_gbps": _POSITIVE,
        "machines": {
            **_count(MAX_MACHINES),
            "description": "identical machines, each with the parts above, splitting the "
            "layers over a network (llama.cpp RPC); 1 by default",
        },
        "network_gbit_per_s": {
            **_POSITIVE,
            "description": "the network between the machines, gigabits per second (10 GbE: "
            "10); required with machines ≥ 2",
        },
    },
}
RANKING = {
    "type": "object",
    "properties": {
        "budget_usd": _optional({**_POSITIVE, "maximum": 1e9, "exclusiveMaximum": True}),
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
        "sort": {"type": "string", "enum": list(dict.fromkeys((*SORT_FIELDS, *INFER_SORT_FIELDS)))},
        "systems": {"type": "boolean", "description": "inference: rank whole systems too"},
        "include_estimates": {
            "type": "boolean",
            "description": "price rows with the planner's estimates too (marked `estimated`); "
            "by default a part with no published price leaves its builds unranked",
        },
        "exclude_stale": {
            "type": "boolean",
            "description": "leave out prices older than PRICE_STALE_AFTER_DAYS; by default "
            "they count and their rows are marked `stale`",
        },
        "new_only": {
            "type": "boolean",
            "description": "count only prices of new parts (no used or refurbished offers)",
        },
        "region": {
            "type": "string",
            "enum": [value for value, _ in BUYER_REGIONS],
            "description": "count only offers in this region and those that ship worldwide",
        },
        "power_w_max": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_POWER_W,
            "description": "leave out builds whose rated power (GPU board power + CPU TDP, or "
            "a whole system's published maximum) is above this many watts",
        },
        "case_size_max": {
            "type": "string",
            "enum": [value for value, _ in CASE_SIZES],
            "description": "leave out builds in a bigger enclosure (compact < mid_tower < "
            "full_tower < rack)",
        },
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


ANY_WORKLOAD = {"oneOf": [TRAIN_WORKLOAD, INFER_WORKLOAD]}


def _form(
    key: str, schema: dict[str, Any], title: str, workload: dict[str, Any] = ANY_WORKLOAD
) -> dict[str, Any]:
    return {
        "title": title,
        "type": "object",
        "required": ["workload", key],
        "properties": {"workload": workload, key: schema},
    }


SIMULATE_REQUEST: dict[str, Any] = {
    "oneOf": [
        _form("hardware", HARDWARE, "Inline hardware, training", TRAIN_WORKLOAD),
        _form("hardware", INFER_HARDWARE, "Inline hardware, inference", INFER_WORKLOAD),
        _form("build_id", {"type": "integer", "minimum": 1}, "Catalog build"),
        _form(
            "parts",
            {"type": "array", "minItems": 1, "maxItems": 32, "items": PART_LINE},
            "Catalog parts",
        ),
        _form("ranking", _optional(RANKING), "Ranking"),
    ]
}

"""The workload section of a serving request (`"kind": "infer"`), validated into an
`InferWorkload`; errors name the JSON path of the bad value."""

from __future__ import annotations

import json
from collections.abc import Mapping

from simulator.engine.calibration.efficiency import INFERENCE_RUNTIMES
from simulator.engine.errors import EngineInputError
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.io.fields import (
    choice,
    integer,
    number,
    optional_boolean,
    optional_integer,
    require_known_fields,
)
from simulator.engine.io.hardware import MAX_GPU_COUNT
from simulator.engine.io.model import workload_model
from simulator.engine.serve.kv_cache import DEFAULT_KV_CACHE_TYPE, KV_CACHE_BYTES_PER_ELEMENT
from simulator.engine.serve.placement import PLACEMENTS
from simulator.engine.serve.workload import (
    DEFAULT_CONTEXT,
    DEFAULT_PROMPT_TOKENS,
    DEFAULT_UBATCH,
    INFER,
    InferWorkload,
    model_as_run,
)

MAX_CONTEXT = 10_000_000
MAX_BATCH = 4096
MAX_LAYER = 10_000
KV_CACHE_TYPES = tuple(KV_CACHE_BYTES_PER_ELEMENT)

INFER_WORKLOAD_FIELDS = frozenset({
    "kind", "model", "model_config", "quant", "placement", "context", "prompt_tokens", "batch",
    "kv_cache_type", "ubatch", "offload_from_layer", "runtime", "prefill_depth_tokens",
    "tensor_parallel", "sparse_attention", "kv_cache_on_cpu", "gpu_layers", "output_tokens",
    "request_rate_per_s", "requests",
})  # fmt: skip
MAX_REQUESTS = 10_000_000
MAX_REQUEST_RATE_PER_S = 1e6


def parse_infer_workload(workload: Mapping[str, object]) -> InferWorkload:
    path = "workload"
    require_known_fields(workload, INFER_WORKLOAD_FIELDS, path)
    choice(workload, "kind", path, (INFER,), INFER)
    if workload.get("quant") is None:
        raise EngineInputError(field="workload.quant", message="is required")
    runtime = _runtime(workload)
    output_tokens = optional_integer(workload, "output_tokens", path, upper=MAX_CONTEXT)
    rate = (
        None
        if workload.get("request_rate_per_s") is None
        else number(workload, "request_rate_per_s", path, upper=MAX_REQUEST_RATE_PER_S)
    )
    requests = optional_integer(workload, "requests", path, upper=MAX_REQUESTS)
    if output_tokens is None and (rate is not None or requests is not None):
        field = "request_rate_per_s" if rate is not None else "requests"
        raise EngineInputError(
            field=f"{path}.{field}",
            message="describes a serving run, which needs workload.output_tokens",
        )
    return InferWorkload(
        model=model_as_run(workload_model(workload), runtime),
        quant=weight_scheme(workload["quant"]),
        placement=choice(workload, "placement", path, PLACEMENTS, "gpu"),
        context=integer(workload, "context", path, DEFAULT_CONTEXT, upper=MAX_CONTEXT),
        prompt_tokens=integer(
            workload, "prompt_tokens", path, DEFAULT_PROMPT_TOKENS, upper=MAX_CONTEXT
        ),
        prefill_depth_tokens=integer(
            workload, "prefill_depth_tokens", path, 0, lower=0, upper=MAX_CONTEXT
        ),
        batch=integer(workload, "batch", path, 1, upper=MAX_BATCH),
        tensor_parallel=integer(workload, "tensor_parallel", path, 1, upper=MAX_GPU_COUNT),
        kv_cache_type=choice(
            workload, "kv_cache_type", path, KV_CACHE_TYPES, DEFAULT_KV_CACHE_TYPE
        ),
        ubatch=integer(workload, "ubatch", path, DEFAULT_UBATCH, upper=MAX_CONTEXT),
        offload_from_layer=optional_integer(workload, "offload_from_layer", path, upper=MAX_LAYER),
        runtime=runtime,
        sparse_attention=optional_boolean(workload, "sparse_attention", path),
        kv_cache_on_cpu=bool(optional_boolean(workload, "kv_cache_on_cpu", path)),
        gpu_layers=optional_integer(workload, "gpu_layers", path, upper=MAX_LAYER),
        quant_json=json.dumps(workload.get("quant"), sort_keys=True),
        output_tokens=output_tokens,
        request_rate_per_s=rate,
        requests=requests,
    )


def _runtime(workload: Mapping[str, object]) -> str | None:
    """The runtime family whose constants apply; None → the usual one per device class."""
    if workload.get("runtime") is None:
        return None
    return choice(workload, "runtime", "workload", INFERENCE_RUNTIMES, INFERENCE_RUNTIMES[0])

"""JSON-safe views of inference requests and results (memory in GiB under `_gb` names, as the
training results; bytes as plain numbers; seconds under `_s`)."""

from __future__ import annotations

import json
from typing import Any

from simulator.engine.io.hardware import hardware_to_json
from simulator.engine.serve.decode import LocationStep
from simulator.engine.serve.hardware import DEVICE_CLASSES, streamed_bandwidth_efficiency
from simulator.engine.serve.inference import InferenceResult
from simulator.engine.serve.serving_run import ServingRun
from simulator.engine.serve.workload import INFER, InferWorkload
from simulator.engine.units import GIB
from simulator.engine.version import ENGINE_VERSION
from simulator.engine.workload import InferenceRequest


def inference_request_to_json(request: InferenceRequest) -> dict[str, Any]:
    """The normalized body: defaults filled in; `parse_request` reads it back as is."""
    return {
        "workload": infer_workload_to_json(request.workload, request.model_config_json),
        "hardware": hardware_to_json(request.hardware, kind=INFER),
    }


def infer_workload_to_json(w: InferWorkload, model_config_json: str | None) -> dict[str, Any]:
    """The normalized workload section; `parse_infer_workload` reads it back."""
    workload: dict[str, Any] = {
        "kind": INFER,
        "model": w.model.slug,
        "quant": json.loads(w.quant_json) if w.quant_json else w.quant.name,
        "placement": w.placement,
        "context": int(w.context),
        "prompt_tokens": int(w.prompt_tokens),
        "batch": int(w.batch),
        "kv_cache_type": w.kv_cache_type,
        "ubatch": int(w.ubatch),
        "offload_from_layer": w.offload_from_layer,
    }
    if w.runtime is not None:  # only when named, so earlier requests keep their input hash
        workload["runtime"] = w.runtime
    if w.prefill_depth_tokens:  # likewise
        workload["prefill_depth_tokens"] = int(w.prefill_depth_tokens)
    if w.tensor_parallel > 1:
        workload["tensor_parallel"] = int(w.tensor_parallel)
    if w.sparse_attention is not None:
        workload["sparse_attention"] = w.sparse_attention
    if w.kv_cache_on_cpu:  # only when set, so earlier requests keep their input hash
        workload["kv_cache_on_cpu"] = True
    if w.gpu_layers is not None:  # likewise
        workload["gpu_layers"] = int(w.gpu_layers)
    if w.output_tokens is not None:  # a serving run, only when asked for
        workload["output_tokens"] = int(w.output_tokens)
    if w.request_rate_per_s is not None:
        workload["request_rate_per_s"] = float(w.request_rate_per_s)
    if w.requests is not None:
        workload["requests"] = int(w.requests)
    if model_config_json is not None:
        workload["model_config"] = json.loads(model_config_json)
    return workload


def _location_to_json(step: LocationStep) -> dict[str, Any]:
    return {
        "location": step.location,
        "weight_bytes": float(step.weight_bytes),
        "kv_bytes": float(step.kv_bytes),
        "flops": float(step.flops),
        "memory_s": float(step.memory_s),
        "compute_s": float(step.compute_s),
        "overhead_s": float(step.overhead_s),
        "time_s": float(step.time_s),
    }


def _constants_to_json(result: InferenceResult) -> dict[str, Any]:
    """The constants each device class used (the runtime's; every class when not recorded),
    and the bandwidth share its reads sustained (the fitted share of what the memory sustains
    in a streaming benchmark, `bandwidth_share`, or the per-SM cap below it:
    streamed_bandwidth_efficiency)."""
    if not result.devices:
        return {
            name: {
                "bandwidth_efficiency": c.bandwidth_efficiency,
                "flops_efficiency": c.flops_efficiency,
                "layer_overhead_s": c.layer_overhead_s,
            }
            for name, c in DEVICE_CLASSES.items()
        }
    return {
        d.location: {
            "bandwidth_efficiency": d.device_class.bandwidth_efficiency,
            "flops_efficiency": d.device_class.flops_efficiency,
            "layer_overhead_s": d.device_class.layer_overhead_s,
            "moe_layer_extra": d.device_class.moe_layer_extra,
            "unit_stream_gbps": d.device_class.unit_stream_gbps,
            "compute_units": d.compute_units,
            "bandwidth_share": d.bandwidth_share,
            "streamed_bandwidth_efficiency": streamed_bandwidth_efficiency(d),
        }
        for d in result.devices
    }


def inference_result_to_json(result: InferenceResult) -> dict[str, Any]:
    decode, prefill, placement = result.decode, result.prefill, result.placement
    return {
        "engine_version": ENGINE_VERSION,
        "kind": INFER,
        **inference_request_to_json(result.request),
        "placement": placement.name,
        "prefill_tokens_per_s": float(prefill.tokens_per_s),
        "decode_tokens_per_s": float(decode.tokens_per_s),
        "weights_gb": {s.location: float(s.stored_bytes / GIB) for s in placement.shares},
        "kv_cache_gb": float(result.kv_cache_bytes / GIB),
        "kv_cache_location": placement.kv_location,
        # under a layer split, the KV cache's GB in each location (placement.kv_share)
        "kv_cache_gb_by_location": {
            s.location: float(result.kv_cache_bytes * placement.kv_share(s.location) / GIB)
            for s in placement.shares
        },
        "cpu_layers": int(placement.cpu_layers),
        "kv_bytes_per_token": float(result.kv_bytes_per_token),
        "max_context": int(result.max_context),
        "bottleneck": decode.bottleneck,
        "decode": {
            "step_s": float(decode.step_s),
            "batch": int(decode.batch),
            "locations": [_location_to_json(step) for step in decode.locations],
            "link_bytes": float(decode.link_bytes),
            "link_s": float(decode.link_s),
            "network_s": float(decode.network_s),
        },
        "prefill": {
            "tokens": int(prefill.tokens),
            "time_s": float(prefill.time_s),
            "flops": float(prefill.flops),
            "compute_s": float(prefill.compute_s),
            "weight_read_s": float(prefill.weight_read_s),
            "overhead_s": float(prefill.overhead_s),
            "link_bytes": float(prefill.link_bytes),
            "link_s": float(prefill.link_s),
            "network_s": float(prefill.network_s),
        },
        "device_classes": _constants_to_json(result),
        "serving_run": None if result.serving is None else _serving_to_json(result.serving),
    }


def _serving_to_json(run: ServingRun) -> dict[str, Any]:
    return {
        "concurrency": int(run.concurrency),
        "request_latency_s": float(run.request_latency_s),
        "requests_per_s": float(run.requests_per_s),
        "output_tokens_per_s": float(run.output_tokens_per_s),
        "total_tokens_per_s": float(run.total_tokens_per_s),
        "duration_s": None if run.duration_s is None else float(run.duration_s),
        "saturated": run.saturated,
    }


def format_inference_report(result: InferenceResult) -> str:
    """A few plain lines for the `simulate` command's text output."""
    body = inference_result_to_json(result)
    weights = ", ".join(f"{loc} {gb:.2f} GB" for loc, gb in body["weights_gb"].items())
    lines = [
        f"{result.request.workload.model.display_name} in {result.placement.name} placement",
        f"  weights: {weights}; KV cache {body['kv_cache_gb']:.2f} GB "
        f"on {body['kv_cache_location']}; max context {body['max_context']}",
        f"  prefill: {body['prefill_tokens_per_s']:.1f} tok/s",
        f"  decode:  {body['decode_tokens_per_s']:.2f} tok/s (bottleneck: {body['bottleneck']})",
    ]
    run = result.serving
    if run is not None:
        queue = "saturated: requests queue for a slot" if run.saturated else "keeps pace"
        lines.append(
            f"  serving run: {run.concurrency} in flight ({queue}), "
            f"{run.request_latency_s:.2f} s a request, {run.requests_per_s:.2f} requests/s, "
            f"{run.output_tokens_per_s:.1f} output tok/s"
        )
    machines = result.request.hardware.machines
    if machines > 1:
        lines.append(
            f"    network: {machines} machines, {body['decode']['network_s'] * 1e3:.2f} ms of "
            f"each decode step crossing their boundaries"
        )
    for step in body["decode"]["locations"]:
        constants = body["device_classes"].get(step["location"], {})
        read_at = _read_at(
            constants.get("streamed_bandwidth_efficiency"), constants.get("bandwidth_share", 1.0)
        )
        lines.append(
            f"    {step['location']}: {step['weight_bytes'] / 1e9:.2f} GB weights, "
            f"{step['kv_bytes'] / 1e9:.2f} GB KV, {step['time_s'] * 1e3:.2f} ms{read_at}"
        )
    return "\n".join(lines)


def _read_at(share: float | None, memory_share: float) -> str:
    """ " (read at 77% of peak bandwidth; a streaming benchmark sustains 90%)", or nothing."""
    if share is None:
        return ""
    benchmark = f"; a streaming benchmark sustains {memory_share:.0%}" if memory_share < 1 else ""
    return f" (read at {share:.0%} of peak bandwidth{benchmark})"

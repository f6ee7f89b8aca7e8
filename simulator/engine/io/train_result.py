"""JSON-safe views of training requests and results: plain Python floats, ints, strings
and lists, no NumPy."""

from __future__ import annotations

import json
from typing import Any

from simulator.engine.io.hardware import hardware_to_json
from simulator.engine.train.memory import DOUBLE_BUFFER_LAYERS, vram_breakdown_gib
from simulator.engine.train.reference import SplitResult
from simulator.engine.train.result import ModelFacts, TrainResult
from simulator.engine.train.workload import (
    DEFAULT_OPTIMIZER,
    NO_OFFLOAD,
    PIPELINE,
    TRAIN,
    TrainWorkload,
)
from simulator.engine.units import GIB
from simulator.engine.version import ENGINE_VERSION
from simulator.engine.workload import TrainRequest


def split_to_json(row: SplitResult) -> dict[str, Any]:
    return {
        "resident_layers": int(row.resident_layers),
        "streamed_layers": int(row.streamed_layers),
        "free_vram_gb": float(row.free_vram_gib),
        "micro_batch": int(row.micro_batch),
        "micro_batches": int(row.micro_batches),
        "compute_s": float(row.compute_s),
        "transfer_s": float(row.transfer_s),
        "bubble_s": float(row.bubble_s),
        "step_s": float(row.step_s),
        "overhead_pct": float(row.overhead_pct),
        "tokens_per_s": float(row.tokens_per_s),
        "bottleneck": row.bottleneck,
        "transfer_source": row.transfer_source,
    }


def train_workload_to_json(w: TrainWorkload, model_config_json: str | None) -> dict[str, Any]:
    """The normalized workload section: defaults filled in; `parse_workload` reads it back."""
    workload: dict[str, Any] = {
        "kind": "train",
        "model": w.model.slug,
        "quant": w.quant.name,
        "seq_len": int(w.seq_len),
        "lora_rank": int(w.lora.rank),
        "lora_targets": list(w.lora.targets),
        "tokens": None if w.tokens is None else int(w.tokens),
        "mode": w.mode,
        "utilization": float(w.utilization),
        "micro_batches": None if w.micro_batches is None else int(w.micro_batches),
        "max_micro_batch": int(w.max_micro_batch),
    }
    if not w.activation_checkpointing:  # only when off: stored inputs of other runs unchanged
        workload["activation_checkpointing"] = False
    if w.parallelism != PIPELINE:  # likewise
        workload["parallelism"] = w.parallelism
    if w.full_finetune:
        workload["full_finetune"] = True
    if w.optimizer != DEFAULT_OPTIMIZER:
        workload["optimizer"] = w.optimizer
    if w.tensor_parallel != 1:
        workload["tensor_parallel"] = int(w.tensor_parallel)
    if w.pipeline_parallel != 1:
        workload["pipeline_parallel"] = int(w.pipeline_parallel)
    if w.virtual_stages != 1:
        workload["virtual_stages"] = int(w.virtual_stages)
    if w.offload != NO_OFFLOAD:
        workload["offload"] = w.offload
    if model_config_json is not None:
        workload["model_config"] = json.loads(model_config_json)
    return workload


def train_request_to_json(request: TrainRequest) -> dict[str, Any]:
    """The normalized request body: defaults filled in; `parse_request` reads it back."""
    return {
        "workload": train_workload_to_json(request.workload, request.model_config_json),
        "hardware": hardware_to_json(request.hardware, kind=TRAIN),
    }


def _facts_to_json(facts: ModelFacts) -> dict[str, Any]:
    return {
        "params_per_layer": int(facts.params_per_layer),
        "active_params_per_layer": int(facts.active_params_per_layer),
        "expert_fraction": float(facts.expert_fraction),
        "layer_gb": float(facts.layer_gib),
        "lora_params_per_layer": int(facts.lora_params_per_layer),
        "lora_bytes_per_layer": int(facts.lora_bytes_per_layer),
        "num_layers": int(facts.num_layers),
        "layers_per_gpu": int(facts.layers_per_gpu),
    }


def _vram_breakdown(result: TrainResult) -> dict[str, float]:
    """One GPU's VRAM at the best split, GiB (the double buffer is two of the largest layer)."""
    facts, best = result.facts, result.best
    buffer = DOUBLE_BUFFER_LAYERS * facts.layer_gib if best.streamed_layers else 0.0
    parts = vram_breakdown_gib(
        vram_gib=result.request.hardware.require_gpu().vram_gib,
        free_vram_gib=best.free_vram_gib,
        lora_gib=facts.lora_bytes_per_layer * facts.layers_per_gpu / GIB,
        buffer_gib=buffer,
    )
    return {name: float(gib) for name, gib in parts.items()}


def train_result_to_json(result: TrainResult) -> dict[str, Any]:
    """The response body: memory in GiB under `_gb` names (units.py)."""
    hours = result.hours_for_tokens
    return {
        "engine_version": ENGINE_VERSION,
        "mode": result.request.workload.mode,
        **train_request_to_json(result.request),
        "model_facts": _facts_to_json(result.facts),
        "best": split_to_json(result.best),
        "vram_breakdown_gb": _vram_breakdown(result),
        "greedy": None if result.greedy is None else split_to_json(result.greedy),
        "curve": [split_to_json(row) for row in result.curve],
        "tie_rule": result.tie_rule,
        "hours_for_tokens": None if hours is None else float(hours),
        "refinements": list(result.refinements),
        "timeline": None if result.timeline is None else result.timeline.to_json(),
    }

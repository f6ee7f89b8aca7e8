"""Headline facts about a model under a workload (seed 000's architecture and LoRA tables)."""

from __future__ import annotations

from simulator.engine.formats.training import layer_gib
from simulator.engine.hardware import Hardware
from simulator.engine.model.layers import LayerShape, active_params, expert_params, total_params
from simulator.engine.model.lora import lora_bytes_per_layer, lora_params_per_layer
from simulator.engine.train.memory import layers_per_gpu
from simulator.engine.train.result import ModelFacts
from simulator.engine.train.workload import TrainWorkload


def model_facts(layer: LayerShape, workload: TrainWorkload, hardware: Hardware) -> ModelFacts:
    total = total_params(layer)
    return ModelFacts(
        params_per_layer=total,
        active_params_per_layer=active_params(layer),
        expert_fraction=expert_params(layer) / total,
        layer_gib=layer_gib(layer, workload.quant, model_slug=workload.model.measured_sizes_slug),
        lora_params_per_layer=lora_params_per_layer(layer, workload.lora),
        lora_bytes_per_layer=lora_bytes_per_layer(layer, workload.lora),
        num_layers=workload.model.num_layers,
        layers_per_gpu=layers_per_gpu(workload.model.num_layers, hardware.gpu_count),
    )

"""Activation memory and the per-GPU VRAM budget (reference-model.md §4 and §6)."""

from __future__ import annotations

import math
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from simulator.engine.hardware import GPU_RESERVE_GIB, PYTORCH
from simulator.engine.model.layers import LayerShape, qkv_width

BF16_BYTES = 2
FP32_BYTES = 4
FRAGMENTATION_FACTOR = 1.2  # §4: applied to the peak of one layer
ALLOCATOR_FACTOR = 1.2  # §4: applied again when fitting B into free VRAM
CUDA_CONTEXT_GIB = GPU_RESERVE_GIB[PYTORCH]  # §6: what PyTorch keeps on each GPU
DOUBLE_BUFFER_LAYERS = 2  # §6: one layer computing, one arriving
MAX_MICRO_BATCH = 256  # §4: B is searched in 1..256
GIB = 1024**3
FloatOrArray = TypeVar("FloatOrArray", float, NDArray[np.floating[Any]])


def activation_bytes(layer: LayerShape, micro_batch: int, seq_len: int) -> float:
    """§4: peak activation bytes of one layer for B sequences of S tokens (T = B·S), gradient
    checkpointing and flash attention, fragmentation included; the larger of the attention
    and the MLP peaks."""
    tokens, h, att = micro_batch * seq_len, layer.hidden_size, layer.attention
    hidden_state = tokens * h * BF16_BYTES  # input, attention output and output grad alike
    qkv = tokens * qkv_width(att) * BF16_BYTES
    flash_workspace = micro_batch * att.num_heads * seq_len * FP32_BYTES
    shared_mlp = 2 * tokens * layer.mlp_intermediate_size * BF16_BYTES
    routed_mlp = layer.experts_per_token * 2 * tokens * layer.expert_intermediate_size * BF16_BYTES
    router_logits = tokens * layer.num_experts * FP32_BYTES
    peak_attention = 3 * hidden_state + qkv + flash_workspace
    peak_mlp = 3 * hidden_state + shared_mlp + routed_mlp + router_logits
    return FRAGMENTATION_FACTOR * max(peak_attention, peak_mlp)


def activation_bytes_per_sequence(layer: LayerShape, seq_len: int) -> float:
    """§4 for B = 1. Every term is linear in B, so activation(B) = B × this (`manage.py
    simulate --validate` checks it)."""
    return activation_bytes(layer, 1, seq_len)


def budget_gib_per_sequence(layer: LayerShape, seq_len: int) -> float:
    """VRAM one more sequence of micro-batch costs, allocator overhead included."""
    return ALLOCATOR_FACTOR * activation_bytes_per_sequence(layer, seq_len) / GIB


def micro_batch_for(free_gib: float, gib_per_sequence: float, max_micro_batch: int) -> int:
    """Largest B in 1..max with B·gib_per_sequence ≤ free; 0 when not even one fits.
    Closed form of §4's search, exact because activation memory is linear in B."""
    if free_gib <= 0:
        return 0
    return min(max_micro_batch, math.floor(free_gib / gib_per_sequence))


def layers_per_gpu(num_layers: int, gpu_count: int) -> int:
    return math.ceil(num_layers / gpu_count)  # §6: L = ceil(N / G)


def fixed_vram_gib(lora_gib: FloatOrArray) -> FloatOrArray:
    """§6: what every split holds on a GPU whatever it streams: the LoRA adapters of its
    layers and the stack's own reserve (floats or arrays)."""
    return lora_gib + CUDA_CONTEXT_GIB


def double_buffer_gib(layer_gib: FloatOrArray) -> FloatOrArray:
    """§6: room for two streamed layers, one computing and one arriving."""
    return DOUBLE_BUFFER_LAYERS * layer_gib


def vram_breakdown_gib(
    *, vram_gib: float, free_vram_gib: float, lora_gib: float, buffer_gib: float
) -> dict[str, float]:
    """Where one GPU's VRAM goes at a split (§6): what is not free, LoRA, the context or the
    double buffer is resident weights; the free part holds the activations."""
    held = vram_gib - free_vram_gib
    return {
        "resident_weights": held - lora_gib - CUDA_CONTEXT_GIB - buffer_gib,
        "stream_buffer": buffer_gib,
        "lora": lora_gib,
        "cuda_context": CUDA_CONTEXT_GIB,
        "activations_and_headroom": free_vram_gib,
    }

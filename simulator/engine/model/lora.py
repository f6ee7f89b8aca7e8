"""LoRA adapters: parameter count and GPU bytes per layer (reference-model.md §3)."""

from __future__ import annotations

from dataclasses import dataclass

from simulator.engine.errors import EngineInputError
from simulator.engine.model.layers import LayerShape

# bf16 weight 2 + bf16 grad 2 + fp32 master, momentum and variance 12 (§3).
LORA_BYTES_PER_PARAM = 16
DEFAULT_LORA_RANK = 64
# Q, K, V, O and gate/up/down of the always-on MLP (shared expert or dense MLP); routed
# experts are never adapted (seed 000 "LoRA Configuration").
ALL_TARGETS = ("q", "k", "v", "o", "gate", "up", "down")


@dataclass(frozen=True, slots=True, kw_only=True)
class LoraConfig:
    rank: int = DEFAULT_LORA_RANK
    targets: tuple[str, ...] = ALL_TARGETS

    def __post_init__(self) -> None:
        unknown = [t for t in self.targets if t not in ALL_TARGETS]
        if unknown:
            raise EngineInputError(
                field="workload.lora_targets",
                message=f"unknown projection(s) {unknown}; choose from {list(ALL_TARGETS)}",
            )


def projection_dims(layer: LayerShape, target: str) -> tuple[int, int]:
    """(in, out) of the adapted projection. MLA maps q→q_b (or q), k→kv_a_proj_with_mqa,
    v→kv_b, o→o_proj, as PEFT's usual targets on DeepSeek-style attention."""
    h, att, inter = layer.hidden_size, layer.attention, layer.mlp_intermediate_size
    if att.kind == "mla":
        qk_out = att.num_heads * att.head_dim
        attention = {
            "q": (att.q_lora_rank or h, qk_out),
            "k": (h, att.kv_lora_rank + att.qk_rope_head_dim),
            "v": (att.kv_lora_rank, att.num_heads * (att.qk_nope_head_dim + att.v_head_dim)),
            "o": (att.num_heads * att.v_head_dim, h),
        }
    else:
        q_width, kv_width = att.num_heads * att.head_dim, att.num_kv_heads * att.head_dim
        attention = {"q": (h, q_width), "k": (h, kv_width), "v": (h, kv_width), "o": (q_width, h)}
    mlp = {"gate": (h, inter), "up": (h, inter), "down": (inter, h)}
    return {**attention, **mlp}[target]


def lora_params_per_layer(layer: LayerShape, lora: LoraConfig) -> int:
    """Each adapted projection in→out adds r·in + out·r params (§3); an absent MLP adds 0."""
    total = 0
    for target in lora.targets:
        fan_in, fan_out = projection_dims(layer, target)
        if fan_in and fan_out:
            total += lora.rank * fan_in + fan_out * lora.rank
    return total


def projection_width(layer: LayerShape) -> int:
    """Σ in + out features of the layer's seven projections (those adapters may target)."""
    return sum(sum(projection_dims(layer, target)) for target in ALL_TARGETS)


def lora_bytes_per_layer(layer: LayerShape, lora: LoraConfig) -> int:
    return lora_params_per_layer(layer, lora) * LORA_BYTES_PER_PARAM

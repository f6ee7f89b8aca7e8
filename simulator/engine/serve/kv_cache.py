"""KV cache bytes per token and the longest context that fits.

GQA keeps a key and a value vector per KV head per layer (`layers × 2 × kv_heads × head_dim`
elements per token). MLA (DeepSeek-V2 §2.1.2, llama.cpp/ik_llama.cpp's MLA cache) keeps the
compressed latent `c_kv` (`kv_lora_rank`) and the shared rope key (`qk_rope_head_dim`) per
layer per token.
"""

from __future__ import annotations

import math

from simulator.engine.errors import EngineInputError
from simulator.engine.model.config import ModelShape

# Bytes per cached element: f16/bf16 are 2 bytes; q8_0 is ggml's block_q8_0 (34 B per 32);
# q4_0 is block_q4_0 (18 B per 32); fp8 is one byte (vLLM's --kv-cache-dtype fp8).
KV_CACHE_BYTES_PER_ELEMENT: dict[str, float] = {
    "f16": 2.0,
    "bf16": 2.0,
    "q8_0": 34 / 32,
    "q4_0": 18 / 32,
    "fp8": 1.0,
}
DEFAULT_KV_CACHE_TYPE = "f16"


def kv_bytes_per_token(model: ModelShape, cache_type: str = DEFAULT_KV_CACHE_TYPE) -> float:
    """Bytes one token adds to the cache across all layers, each at `model.attention`'s cache
    width; a sequence's cache is this × `model.attended_positions(context)`, which weighs
    sliding, linear and full-attention layers of another width (Gemma 4) as they keep."""
    if cache_type not in KV_CACHE_BYTES_PER_ELEMENT:
        known = ", ".join(KV_CACHE_BYTES_PER_ELEMENT)
        raise EngineInputError(
            field="workload.kv_cache_type", message=f"unknown cache type; known: {known}"
        )
    per_layer = model.attention.cache_width
    # layers sharing an earlier layer's indexer choice cache no indexer key
    shared_keys = model.shared_indexer_layers * model.attention.index_head_dim
    elements = model.num_layers * per_layer - shared_keys
    return elements * KV_CACHE_BYTES_PER_ELEMENT[cache_type]


def max_context(
    free_bytes: float,
    bytes_per_token: float,
    *,
    sequences: int = 1,
    model: ModelShape | None = None,
) -> int:
    """The most tokens per sequence whose cache fits in `free_bytes` (0 if none), and never
    past the context the model was configured for (`model.trained_context`). A sliding layer
    keeps at most `sliding_window` positions and a chunked one at most `attention_chunk`, so
    past its bound only the other layers' share of `bytes_per_token` grows with the context;
    a linear-attention layer keeps a fixed state per sequence (`recurrent_state_bytes`) and
    no positions."""
    if model is not None:
        free_bytes -= sequences * model.recurrent_state_bytes
    if free_bytes <= 0:
        return 0
    per_sequence = free_bytes / (bytes_per_token * sequences)  # in mean positions per layer
    tokens = float(per_sequence)
    if model is not None and (
        model.bounded_layers or model.linear_layers or model.full_attention is not None
    ):
        tokens = _tokens_within(per_sequence * model.num_layers, model)
    if model is not None and model.trained_context is not None:
        tokens = min(tokens, float(model.trained_context))
    return math.floor(tokens) if math.isfinite(tokens) else 0


def _tokens_within(layer_positions: float, model: ModelShape) -> float:
    """The context T at which Σ over layers of the positions each keeps, a full layer T (×
    its cache width ratio) and a bounded layer min(T, bound), reaches `layer_positions`; inf
    if only bounded layers fill up and they fit."""
    bounded = sorted(model.bounded_layers)
    growing = model.full_layers * model.full_cache_ratio + sum(c for _, c in bounded)
    # DeepSeek V4's compressed entries grow with the context at their ratio, whatever the
    # window does: a context of one token keeps compressed_positions(1) of them
    growing += model.compressed_growth
    filled = 0.0  # the bounded layers that stopped growing: their positions
    for bound, count in bounded:
        if growing == 0:
            return math.inf
        tokens = (layer_positions - filled) / growing
        if tokens <= bound:
            return tokens
        filled += count * bound
        growing -= count
    return math.inf if growing == 0 else (layer_positions - filled) / growing

"""What a transformers decoder layer keeps for its backward when it runs eagerly without
activation checkpointing: the tensors PyTorch's autograd saves, per token.

- Each of the two RMSNorms keeps its FP32 upcast input, 4h (transformers' `LlamaRMSNorm`:
  `hidden_states.to(torch.float32)`, which `pow` and `* rsqrt` read again in the backward),
  and, when its weight is trained, the normalized BF16 tensor `weight *` multiplies (2h).
- Attention (SDPA) keeps q, k, v and its output: 2·q + 2·2·kv + 2·q bytes for q and kv widths.
- The MLP keeps SiLU's input (the gate's output) and both factors of `act(gate) * up`: 3 × 2i.
- A projection keeps its input only when its weight is trained (full fine-tuning: q/k/v's and
  gate/up's normed inputs, 2h each, o's 2·q, down's 2i); a frozen weight's product needs the
  weight alone for the input's gradient.
- PEFT's LoRA casts each adapted projection's input to the adapters' FP32
  (`_cast_input_dtype`), which lora_A keeps (4 × in features), and lora_A's FP32 output (4r).

Against the planner's H200 runs without checkpointing (benchmarks/results/calibration-nvidia-
h200-2026-11-28-*.json, peak less weights, optimizer state and the loss's logits, per token and
layer): Llama 3.1 8B 288 KB against 286 measured (C001), Llama 3.2 3B 192 against 184 (C011),
Llama 3.2 1B 154 against 139 (C005), Qwen3-0.6B 78 against 86 (C013: its q/k norms, not
counted, keep 4 B a q and k element more).
"""

from __future__ import annotations

from simulator.engine.model.layers import LayerShape
from simulator.engine.model.lora import LoraConfig, projection_dims

BF16_BYTES = 2
FP32_BYTES = 4
NORMS_PER_LAYER = 2
MLP_SAVED_INTERMEDIATES = 3  # the gate's output, SiLU's output, the up projection's output


def eager_saved_bytes_per_token(
    layer: LayerShape, lora: LoraConfig | None, *, trained_base: bool
) -> float:
    """Bytes one token leaves in a dense layer for its backward (`lora` None: no adapters)."""
    h, att, inter = layer.hidden_size, layer.attention, layer.mlp_intermediate_size
    q, kv = att.num_heads * att.head_dim, att.num_kv_heads * att.head_dim
    norms = NORMS_PER_LAYER * FP32_BYTES * h
    attention = BF16_BYTES * (q + 2 * kv + q)
    mlp = MLP_SAVED_INTERMEDIATES * BF16_BYTES * inter
    saved = norms + attention + mlp
    if trained_base:
        normalized = NORMS_PER_LAYER * BF16_BYTES * h
        inputs = BF16_BYTES * (h + q + h + inter)  # q/k/v (one tensor), o, gate/up, down
        saved += normalized + inputs
    if lora is not None:
        for target in lora.targets:
            fan_in, _ = projection_dims(layer, target)
            saved += FP32_BYTES * (fan_in + lora.rank)
    return float(saved)

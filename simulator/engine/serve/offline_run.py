"""An offline throughput run: many prompts queued at once (`vllm bench throughput`, `vllm
bench serve` without a rate or concurrency limit). The runtime's continuous batching then
keeps as many requests in flight as its batch cap and its KV cache allow; this is that
number, from the runtime's published defaults, so such a run is the serving phase at that
concurrency (docs/model.md, "Offline throughput runs").

- vLLM (V1 engine, `vllm/engine/arg_utils.py`, `EngineArgs.get_batch_defaults`, read at
  vllm-project/vllm@99d7eb5d6a512cfcc5a2b104f24ebf2d6cda772b on 2026-11-26): `max_num_seqs`
  defaults to 1024 on a GPU of ≥ 70 GiB whose name does not contain "a100" (H100, H200,
  MI300X, B200), else 256. The KV cache is what `gpu_memory_utilization` (default 0.9) of
  the GPUs' memory leaves after the weights; blocks are allocated as tokens are produced, so
  a request holds on average its prompt and half its output.

TensorRT-LLM's `trtllm-bench` has no such default: it builds with "a slightly optimistic
upper bound" of the batch and its runtime "relies on its runtime tuning features to adjust the
runtime max batch size according to incoming traffic" (`tensorrt_llm/bench/build/tuning.py`,
`calc_engine_setting`, NVIDIA/TensorRT-LLM@04cba882084a25665e7f80f5bda71b35b9790b6f, read
2026-11-26), so its rows stay not modeled.

Activations and CUDA graphs take some of that memory too; the engine leaves them out, so the
concurrency is an upper bound where the KV cache binds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from simulator.engine.model.config import ModelShape
from simulator.engine.units import GIB


@dataclass(frozen=True, slots=True, kw_only=True)
class OfflineBatching:
    """How a runtime batches a queue of prompts. `kv_fraction` of the GPUs' memory
    (`of_memory_left`: of what the weights leave) holds the KV cache; a request holds its
    prompt and `output_share` of its output on average; at most `max_batch(gpu)` requests."""

    kv_fraction: float
    of_memory_left: bool
    output_share: float
    large_gpu_batch: int
    small_gpu_batch: int
    large_gpu_gib: float = 0.0  # per-GPU memory from which `large_gpu_batch` applies
    small_gpu_names: tuple[str, ...] = ()  # names that keep `small_gpu_batch` whatever memory

    def max_batch(self, gpu_name: str, gpu_vram_gib: float) -> int:
        small = any(word in gpu_name.lower() for word in self.small_gpu_names)
        if gpu_vram_gib >= self.large_gpu_gib and not small:
            return self.large_gpu_batch
        return self.small_gpu_batch


VLLM_BATCHING = OfflineBatching(
    kv_fraction=0.9,
    of_memory_left=False,
    output_share=0.5,
    large_gpu_batch=1024,
    small_gpu_batch=256,
    large_gpu_gib=70.0,
    small_gpu_names=("a100",),
)


def offline_concurrency(
    batching: OfflineBatching,
    *,
    queued: int,
    prompt_tokens: int,
    gen_tokens: int,
    gpu_name: str,
    gpu_vram_gib: float,
    gpu_count: int,
    weight_bytes: float,
    kv_bytes_per_token: float,
    model: ModelShape,
) -> int:
    """Requests in flight at once: min(queued prompts, the runtime's batch cap, KV cache
    bytes / one request's cache). 0 when not one request's cache fits."""
    memory = gpu_vram_gib * GIB * gpu_count
    if batching.of_memory_left:
        cache = batching.kv_fraction * (memory - weight_bytes)
    else:
        cache = batching.kv_fraction * memory - weight_bytes
    held = prompt_tokens + batching.output_share * gen_tokens
    per_request = kv_bytes_per_token * model.attended_positions(held) + model.recurrent_state_bytes
    fits = math.floor(cache / per_request) if cache > 0 else 0
    return max(0, min(queued, batching.max_batch(gpu_name, gpu_vram_gib), fits))

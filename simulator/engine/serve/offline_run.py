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

- SGLang (0.5.3–0.5.6, read in the released PyPI wheels on 2026-11-28: sglang-0.5.5 sha256
  3c57f135ec0a7a5cf6ae4ed5e0b231d7bf7e0fae588bbc1a881560f1c18db995; line numbers of 0.5.5):
  `mem_fraction_static` of each GPU's memory holds the weights and the KV cache, (G − R) / G
  with G the GPU's memory in MiB and R = 512 + 1.5 × max(chunked_prefill_size, 2048) + 2 ×
  cuda_graph_max_bs + 128 × tp MiB, at least 10,240 MiB on a GPU of more than 60 GiB
  (`server_args.py`, `ServerArgs._handle_gpu_memory_settings`, lines 665–830; the chunk and
  graph sizes step with G: < 20 GiB 2,048 and 8; < 35 GiB 2,048 and 24 (80 from tp 4); < 60
  GiB 4,096 and 32 (160); < 160 GiB 8,192 and 256 (512); else 16,384 and 512). The KV pool is
  that fraction less the weights (`model_runner.py`, `profile_max_num_token`, lines
  1260–1323), and `max_running_requests` min(pool tokens // 2, clamp(pool tokens × 512 /
  context length, 2,048, 4,096)) (`model_runner.py` lines 1554–1563, `tp_worker.py` lines
  281–289).

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
from collections.abc import Callable
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
    # SGLang: the KV fraction by GPU memory and tensor parallelism, and a batch cap of pool
    # tokens × `slots_per_context` / context length, clamped to [small, large]_gpu_batch
    fraction_by_gpu: Callable[[float, int], float] | None = None
    slots_per_context: int = 0

    def fraction(self, gpu_vram_gib: float, gpu_count: int) -> float:
        if self.fraction_by_gpu is not None:
            return self.fraction_by_gpu(gpu_vram_gib, gpu_count)
        return self.kv_fraction

    def max_batch(self, gpu_name: str, gpu_vram_gib: float) -> int:
        small = any(word in gpu_name.lower() for word in self.small_gpu_names)
        if gpu_vram_gib >= self.large_gpu_gib and not small:
            return self.large_gpu_batch
        return self.small_gpu_batch


def sglang_mem_fraction_static(gpu_vram_gib: float, tensor_parallel: int) -> float:
    """SGLang's default `mem_fraction_static` for a GPU of `gpu_vram_gib` (module docstring)."""
    gpu_mib = gpu_vram_gib * 1024
    small = tensor_parallel < 4
    if gpu_vram_gib < 20:
        chunk, graph = 2048, 8
    elif gpu_vram_gib < 35:
        chunk, graph = 2048, 24 if small else 80
    elif gpu_vram_gib < 60:
        chunk, graph = 4096, 32 if small else 160
    elif gpu_vram_gib < 160:
        chunk, graph = 8192, 256 if small else 512
    else:
        chunk, graph = 16384, 512
    reserve = 512 + 1.5 * max(chunk, 2048) + 2 * graph + 128 * tensor_parallel
    if gpu_vram_gib > 60:
        reserve = max(reserve, 10 * 1024)
    return round((gpu_mib - reserve) / gpu_mib, 3)


VLLM_BATCHING = OfflineBatching(
    kv_fraction=0.9,
    of_memory_left=False,
    output_share=0.5,
    large_gpu_batch=1024,
    small_gpu_batch=256,
    large_gpu_gib=70.0,
    small_gpu_names=("a100",),
)

SGLANG_BATCHING = OfflineBatching(
    kv_fraction=0.0,  # by GPU: sglang_mem_fraction_static
    of_memory_left=False,
    output_share=0.5,
    large_gpu_batch=4096,
    small_gpu_batch=2048,
    fraction_by_gpu=sglang_mem_fraction_static,
    slots_per_context=512,
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
    fraction = batching.fraction(gpu_vram_gib, gpu_count)
    if batching.of_memory_left:
        cache = fraction * (memory - weight_bytes)
    else:
        cache = fraction * memory - weight_bytes
    held = prompt_tokens + batching.output_share * gen_tokens
    per_request = kv_bytes_per_token * model.attended_positions(held) + model.recurrent_state_bytes
    fits = math.floor(cache / per_request) if cache > 0 else 0
    if batching.slots_per_context:
        pool_tokens = max(cache, 0.0) / kv_bytes_per_token if kv_bytes_per_token else math.inf
        context = model.trained_context or 0
        by_context = pool_tokens * batching.slots_per_context / context if context else math.inf
        cap = min(
            pool_tokens // 2,
            min(max(by_context, batching.small_gpu_batch), batching.large_gpu_batch),
        )
    else:
        cap = batching.max_batch(gpu_name, gpu_vram_gib)
    return max(0, int(min(queued, cap, fits)))

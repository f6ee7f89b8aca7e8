"""Serving figures across context depth, and where each part of a placed model lives.

`context_sweep` runs one placed request (its placement and `offload_from_layer` fixed) at
each of a list of context depths: the KV cache it holds, decode with that many cached
tokens, and prefill of the request's prompt on top of that many (llama-bench's `-d`). A
depth whose cache does not fit where the placement keeps it has no speeds.

`batch_sweep` runs it with more requests decoding together (continuous batching, llama.cpp's
`-np`, vLLM's concurrent sequences), each holding the workload's context: the cache grows
with every request, and each step reads the weights once for all of them.

`placement_contents` splits each location's stored bytes by what they are (attention,
always-on MLPs, routed experts, embeddings and LM head) and adds the KV cache where it lives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from simulator.engine.calibration.efficiency import Efficiency
from simulator.engine.serve.hardware import CPU
from simulator.engine.serve.inference import (
    CapacityError,
    InferenceResult,
    kv_cache_size,
    simulate_inference,
)
from simulator.engine.serve.inference import (
    kv_room_bytes as placement_kv_room,
)
from simulator.engine.serve.placement import HOME, Placement
from simulator.engine.serve.workload import InferWorkload, without_serving_run
from simulator.engine.workload import InferenceRequest

# The first depth of a sweep (llama-bench's usual smallest -d step above 0) and the doubling
# steps' largest when the model states no trained context.
FIRST_DEPTH_TOKENS = 512
LONGEST_DEPTH_TOKENS = 131_072

# Concurrent requests of a batch sweep: doublings up to 64 (llama-batched-bench's usual -npl).
BATCH_LEVELS = (1, 2, 4, 8, 16, 32, 64)

# What a location holds, by kind, in the order a chart stacks them.
ATTENTION, ALWAYS_ON, EXPERTS, TABLES, KV_CACHE = (
    "attention", "always_on_mlp", "routed_experts", "embeddings_and_head", "kv_cache",
)  # fmt: skip
CONTENT_KINDS = (ATTENTION, ALWAYS_ON, EXPERTS, TABLES, KV_CACHE)


@dataclass(frozen=True, slots=True, kw_only=True)
class DepthPoint:
    """One context depth: the KV cache of that many tokens (bytes, all sequences) and the
    speeds there (tokens/s; None where the cache does not fit)."""

    depth_tokens: int
    kv_cache_bytes: float
    decode_tokens_per_s: float | None
    prefill_tokens_per_s: float | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextSweep:
    """The points, and the bytes left for the KV cache where it lives (its location's usable
    capacity less the weights stored there)."""

    points: tuple[DepthPoint, ...]
    kv_room_bytes: float


def sweep_depths(workload: InferWorkload) -> tuple[int, ...]:
    """Doublings from `FIRST_DEPTH_TOKENS` up to the model's trained context (else
    `LONGEST_DEPTH_TOKENS`), and the workload's own context, in order."""
    trained = workload.model.trained_context or LONGEST_DEPTH_TOKENS
    ceiling = max(workload.context, min(trained, LONGEST_DEPTH_TOKENS))
    doublings = set()
    depth = FIRST_DEPTH_TOKENS
    while depth <= ceiling:
        doublings.add(depth)
        depth *= 2
    return tuple(sorted(doublings | {workload.context}))


def _speed(request: InferenceRequest, efficiency: Efficiency | None) -> InferenceResult | None:
    try:
        return simulate_inference(request, efficiency)
    except CapacityError:
        return None


def context_sweep(
    request: InferenceRequest,
    depths: Sequence[int],
    efficiency: Efficiency | None = None,
) -> ContextSweep:
    """`request` (placement and offload layer fixed) at each depth of `depths`; raises what
    `simulate_inference` raises for the request itself (a cache too large at one depth is
    that point's answer, not an error)."""
    request = replace(request, workload=without_serving_run(request.workload))
    base = simulate_inference(request, efficiency)
    points = []
    for depth in depths:
        decode_w = replace(request.workload, context=depth, prefill_depth_tokens=0)
        prefill_w = replace(request.workload, context=depth, prefill_depth_tokens=depth)
        decode = _speed(replace(request, workload=decode_w), efficiency)
        prefill = _speed(replace(request, workload=prefill_w), efficiency)
        points.append(
            DepthPoint(
                depth_tokens=depth,
                kv_cache_bytes=kv_cache_size(decode_w),
                decode_tokens_per_s=None if decode is None else float(decode.decode.tokens_per_s),
                prefill_tokens_per_s=None
                if prefill is None
                else float(prefill.prefill.tokens_per_s),
            )
        )
    return ContextSweep(points=tuple(points), kv_room_bytes=kv_room_bytes(base))


@dataclass(frozen=True, slots=True, kw_only=True)
class BatchPoint:
    """`requests` decoding together at the workload's context: their KV cache (bytes) and
    decode tokens/s, all requests together (None where their cache does not fit)."""

    requests: int
    kv_cache_bytes: float
    decode_tokens_per_s: float | None

    @property
    def per_request_tokens_per_s(self) -> float | None:
        speed = self.decode_tokens_per_s
        return None if speed is None else speed / self.requests


def batch_sweep(
    request: InferenceRequest,
    levels: Sequence[int] = BATCH_LEVELS,
    efficiency: Efficiency | None = None,
) -> tuple[BatchPoint, ...]:
    """`request` decoding with each count of `levels` requests at once."""
    request = replace(request, workload=without_serving_run(request.workload))
    points = []
    for requests in levels:
        workload = replace(request.workload, batch=requests)
        result = _speed(replace(request, workload=workload), efficiency)
        points.append(
            BatchPoint(
                requests=requests,
                kv_cache_bytes=kv_cache_size(workload),
                decode_tokens_per_s=None if result is None else float(result.decode.tokens_per_s),
            )
        )
    return tuple(points)


def kv_room_bytes(result: InferenceResult) -> float:
    """The KV cache the placement has room for beside the weights (bytes; the tighter
    location's under a layer split)."""
    devices = {device.location: device for device in result.devices}
    return max(0.0, placement_kv_room(result.placement, devices))


def placement_contents(
    placement: Placement, workload: InferWorkload, kv_cache_bytes: float
) -> dict[str, dict[str, float]]:
    """Bytes per location per kind (`CONTENT_KINDS`); each location's weights add up to its
    share's `stored_bytes`, and the KV cache sits where the placement keeps it."""
    if placement.cpu_layers:
        return _split_contents(placement, workload, kv_cache_bytes)
    parts, bpw = placement.parts, workload.quant.bytes_per_weight
    expert_layer_bytes = parts.num_experts * placement.expert_bytes
    contents: dict[str, dict[str, float]] = {}
    for share in placement.shares:
        home = share.location == HOME[placement.name]  # all but offloaded experts
        tables = parts.embeddings * bpw("embeddings")
        if not parts.tied:
            tables += parts.output * bpw("output")
        contents[share.location] = {
            ATTENTION: parts.attention * bpw("attention") if home else 0.0,
            ALWAYS_ON: parts.dense * bpw("dense") if home else 0.0,
            EXPERTS: share.expert_layers * expert_layer_bytes,
            TABLES: tables if home else 0.0,
            KV_CACHE: kv_cache_bytes if share.location == placement.kv_location else 0.0,
        }
    return contents


def _split_contents(
    placement: Placement, workload: InferWorkload, kv_cache_bytes: float
) -> dict[str, dict[str, float]]:
    """A layer split's contents: each location's layers' attention (in proportion to its
    layers) and experts, the rest of its layers' weights always on; the token embedding on
    the CPU, the LM head on the GPU; the KV cache beside its layers."""
    parts, bpw = placement.parts, workload.quant.bytes_per_weight
    expert_layer_bytes = parts.num_experts * placement.expert_bytes
    # the LM head: a tied embedding's copy, else its own matrix
    head = parts.embeddings * bpw("embeddings") if parts.tied else parts.output * bpw("output")
    contents: dict[str, dict[str, float]] = {}
    for share in placement.shares:
        attention = parts.attention * bpw("attention") * share.layers / parts.num_layers
        experts = share.expert_layers * expert_layer_bytes
        tables = placement.cpu_table_bytes if share.location == CPU else head
        contents[share.location] = {
            ATTENTION: attention,
            ALWAYS_ON: share.stored_bytes - attention - experts - tables,
            EXPERTS: experts,
            TABLES: tables,
            KV_CACHE: kv_cache_bytes * placement.kv_share(share.location),
        }
    return contents

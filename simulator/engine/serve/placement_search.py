"""The placement that serves a model fastest on one machine (pure: engine calls only).

A machine offers the placements its hardware allows: a whole system (unified memory) only
`unified`; a PC with a GPU and a CPU `gpu`, `hybrid` and `cpu`. Hybrid keeps as many
layers' routed experts on the GPUs as fit (the largest `offload_from_layer` whose GPU share
and KV cache fit), unless the workload fixes it. `gpu` on a PC keeps every layer on the
GPUs when they fit, else as many whole layers as fit, the rest in host RAM (the largest
`gpu_layers`, llama.cpp's -ngl as high as the card allows), unless the workload fixes it.
The winner is the best decode speed; a tie keeps the earlier placement in `PLACEMENT_ORDER`
(fewer devices, fewer moving parts).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from simulator.engine.errors import EngineInputError
from simulator.engine.io.request import parse_request
from simulator.engine.serve.hardware import GPU
from simulator.engine.serve.inference import CapacityError, InferenceResult, simulate_inference
from simulator.engine.serve.placement import model_parts
from simulator.engine.serve.workload import INFER
from simulator.engine.workload import InferenceRequest

AUTO = "auto"
PLACEMENT_ORDER = ("unified", "gpu", "hybrid", "cpu")


@dataclass(frozen=True, slots=True)
class PlacementSearch:
    """The winning result (None: no placement runs) and what each placement gave:
    decode tokens/s, or the reason it cannot run."""

    best: InferenceResult | None
    tried: dict[str, float | str]


def placements_for(hardware: Mapping[str, Any]) -> tuple[str, ...]:
    return offered_placements(
        gpu=hardware.get("gpu") is not None,
        cpu=hardware.get("cpu") is not None,
        unified=hardware.get("unified") is not None,
    )


def offered_placements(*, gpu: bool, cpu: bool, unified: bool) -> tuple[str, ...]:
    """The placements a machine with these parts offers, in `PLACEMENT_ORDER`."""
    if unified:
        return ("unified",)
    offered = {"gpu": gpu, "hybrid": gpu and cpu, "cpu": cpu}
    return tuple(name for name in PLACEMENT_ORDER if offered.get(name))


def search_workload(workload: Mapping[str, Any]) -> dict[str, Any]:
    """The workload section as the search parses it: inference, its placement set per run."""
    return {**workload, "kind": INFER, "placement": "gpu"}


def _with(request: InferenceRequest, **changes: Any) -> InferenceRequest:
    return replace(request, workload=replace(request.workload, **changes))


def _most_on_gpu(request: InferenceRequest, field: str, low: int, high: int) -> int:
    """The largest value of workload `field` in low…high whose GPU share and KV cache fit the
    GPUs: the GPU share only grows with it, so a bisection finds the edge (`low` when none
    above it fits); host RAM is checked by the run that uses it."""
    while low < high:
        middle = (low + high + 1) // 2
        try:
            simulate_inference(_with(request, **{field: middle}))
            low = middle
        except CapacityError as exc:
            if exc.location == GPU:
                high = middle - 1
            else:
                low = middle  # the GPU share fits; CPU RAM is checked below
    return low


def _largest_gpu_share(request: InferenceRequest) -> InferenceResult:
    """Hybrid with the fewest layers' experts in CPU RAM that still fits on the GPUs."""
    parts = model_parts(request.workload.model)
    layer = _most_on_gpu(request, "offload_from_layer", parts.first_moe_layer, parts.num_layers)
    return simulate_inference(_with(request, offload_from_layer=layer))


def splits_when_short(request: InferenceRequest) -> bool:
    """Whether the `gpu` placement may keep whole layers in host RAM when the GPUs are short:
    a CPU to hold them, one machine, no tensor parallelism, the KV cache beside its layers and
    no split fixed by the workload."""
    w, hw = request.workload, request.hardware
    return (
        w.gpu_layers is None
        and hw.cpu is not None
        and hw.machines == 1
        and w.tensor_parallel == 1
        and not w.kv_cache_on_cpu
    )


def _most_gpu_layers(request: InferenceRequest) -> InferenceResult:
    """Every layer on the GPUs when they fit; else the most whole layers whose share and KV
    cache fit (the GPU share only grows with `gpu_layers`), the rest in host RAM; when not one
    layer fits, the whole model's refusal."""
    try:
        return simulate_inference(request)
    except CapacityError as exc:
        if exc.location != GPU:
            raise
        refusal = exc
    low = _most_on_gpu(request, "gpu_layers", 0, request.workload.model.num_layers - 1)
    if low == 0:
        raise refusal
    return simulate_inference(_with(request, gpu_layers=low))


def _run(request: InferenceRequest, placement: str) -> InferenceResult:
    """`placement` as the search runs it; a workload's `gpu_layers` is the `gpu` placement's
    split, so the others run without it."""
    on_gpu = request.workload.gpu_layers if placement == GPU else None
    placed = _with(request, placement=placement, gpu_layers=on_gpu)
    if placement == "hybrid" and request.workload.offload_from_layer is None:
        return _largest_gpu_share(placed)
    if placement == GPU and splits_when_short(placed):
        return _most_gpu_layers(placed)
    return simulate_inference(placed)


def placement_search(
    *,
    workload: Mapping[str, Any],
    hardware: Mapping[str, Any],
    only: str | None = None,
) -> PlacementSearch:
    """Every placement the hardware offers for this inference workload (or `only` that
    one), best decode first; workload.placement is ignored. Raises EngineInputError for a
    malformed workload or hardware."""
    body = {"workload": search_workload(workload), "hardware": hardware}
    request: InferenceRequest = parse_request(body)
    offered = placements_for(hardware)
    return search_placements(offered, only, lambda placement: _run(request, placement))


def search_placements(
    offered: tuple[str, ...], only: str | None, run: Callable[[str], InferenceResult]
) -> PlacementSearch:
    """`run` each offered placement (or `only` that one) and keep the best decode; an
    `EngineInputError` is that placement's answer."""
    if only is not None and only not in offered:
        return PlacementSearch(best=None, tried={only: f"this build has no {only} placement"})
    best: InferenceResult | None = None
    tried: dict[str, float | str] = {}
    for placement in offered if only is None else (only,):
        try:
            result = run(placement)
        except EngineInputError as exc:
            tried[placement] = exc.message
            continue
        tried[placement] = float(result.decode.tokens_per_s)
        if best is None or result.decode.tokens_per_s > best.decode.tokens_per_s:
            best = result
    return PlacementSearch(best=best, tried=tried)

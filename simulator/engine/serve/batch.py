"""Many machines serving one inference workload at once: the path serving rankings take.

`placement_search` answers one machine at a time and stays the readable specification;
`best_placements` gives the same answer for each of many machines, bit for bit
(tests/simulator/engine/test_serve_batch.py). What depends on the workload alone is worked
out once: the parsed workload, the model's parts, and the workload in each placement with
the counts of its decode step and its prompt (`PlacedWorkload`). Where the search bisects
the hybrid `offload_from_layer` with a full simulation per step, the GPUs' need at every
layer is one array and each machine's largest fitting layer one `searchsorted` over all the
machines. Each machine's seconds then come from the scalar rules (`devices_for`,
`run_placed`), so no formula is written twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from simulator.engine.calibration.efficiency import Efficiency, load_efficiency
from simulator.engine.errors import EngineInputError
from simulator.engine.hardware import Hardware
from simulator.engine.io.model import model_config_json
from simulator.engine.io.request import parse_workload
from simulator.engine.serve.hardware import GPU
from simulator.engine.serve.inference import (
    InferenceResult,
    PlacedWorkload,
    devices_for,
    kv_cache_size,
    needed_bytes,
    placed_workload,
    run_placed,
)
from simulator.engine.serve.placement import HYBRID, ModelParts, Placement, model_parts, place
from simulator.engine.serve.placement_search import (
    PlacementSearch,
    offered_placements,
    search_placements,
    search_workload,
    splits_when_short,
)
from simulator.engine.serve.workload import InferWorkload
from simulator.engine.workload import SimulationRequest

Layout = Callable[[str, int | None, int | None], PlacedWorkload | EngineInputError]


@dataclass(frozen=True, slots=True, kw_only=True)
class _Shared:
    """What every machine's search shares: the workload, its constants and its layouts."""

    workload: InferWorkload
    efficiency: Efficiency
    layout: Layout
    model_config_json: str | None

    def run(
        self,
        hardware: Hardware,
        placement: str,
        offload_from_layer: int,
        gpu_layers: int | None = None,
    ) -> InferenceResult:
        """The workload in `placement` on `hardware`, as `simulate_inference` runs it (hybrid
        at `offload_from_layer`, `gpu` with `gpu_layers` when it splits them); raises what it
        raises."""
        placed = self.layout(
            placement,
            offload_from_layer if placement == HYBRID else None,
            gpu_layers if placement == GPU else None,
        )
        if isinstance(placed, EngineInputError):
            raise placed.with_traceback(None)
        w = placed.workload
        devices = devices_for(
            hardware,
            placement,
            runtime=w.runtime,
            efficiency=self.efficiency,
            tensor_parallel=w.tensor_parallel,
            weights=w.quant.dense.name,
            kv_cache_on_cpu=w.kv_cache_on_cpu,
            splits_layers=w.splits_layers,
        )
        request = SimulationRequest(
            workload=placed.workload, hardware=hardware, model_config_json=self.model_config_json
        )
        return run_placed(placed, request, devices, network_hop_s=self.efficiency.network_hop_s)


def _layouts(workload: InferWorkload, parts: ModelParts, table: Efficiency) -> Layout:
    """The workload in a placement (and, for hybrid, an offload layer, for `gpu` the layers
    on the GPUs; None keeps the workload's), each worked out on first use; a refusal answers
    on every machine."""

    @cache
    def layout(
        placement: str, offload_from_layer: int | None, gpu_layers: int | None
    ) -> PlacedWorkload | EngineInputError:
        layer = workload.offload_from_layer if offload_from_layer is None else offload_from_layer
        # a workload's `gpu_layers` is the `gpu` placement's split (placement_search._run)
        on_gpu = gpu_layers if gpu_layers is not None else workload.gpu_layers
        on_gpu = on_gpu if placement == GPU else None
        placed = replace(workload, placement=placement, offload_from_layer=layer, gpu_layers=on_gpu)
        try:
            return placed_workload(
                placed,
                parts,
                routing_pool_fraction=table.routing_pool_fraction,
            )
        except EngineInputError as exc:
            return exc

    return layout


def _gpu_needs(placements: Iterable[Placement], kv_cache_bytes: float) -> NDArray[np.float64]:
    """What the GPUs must hold in each placement: their share of the weights and the KV
    cache (`needed_bytes`)."""
    need = []
    for placement in placements:
        gpu = placement.share(GPU)
        assert gpu is not None  # hybrid's and gpu's home share
        need.append(needed_bytes(gpu, placement, kv_cache_bytes))
    return np.array(need, dtype=np.float64)


def gpu_need_bytes(workload: InferWorkload, parts: ModelParts) -> NDArray[np.float64]:
    """What the GPUs must hold under hybrid at each `offload_from_layer` from the first MoE
    layer to the last: their share of the weights and the KV cache. It grows with the layer
    (more layers' experts stay on the GPUs), which is why the search can bisect it."""
    placements = (
        place(
            parts,
            workload.quant,
            HYBRID,
            offload_from_layer=layer,
            kv_cache_on_cpu=workload.kv_cache_on_cpu,
        )
        for layer in range(parts.first_moe_layer, parts.num_layers + 1)
    )
    return _gpu_needs(placements, kv_cache_size(workload))


def offload_layers(
    workload: InferWorkload, parts: ModelParts, gpu_capacity_bytes: NDArray[np.float64]
) -> NDArray[np.int64]:
    """Each machine's hybrid `offload_from_layer`: the workload's if it fixes one, else what
    `placement_search`'s bisection finds, for every machine at once: the largest layer whose
    GPU share and KV cache fit the GPUs (`check_fits`: need ≤ capacity), or the first MoE
    layer where none does."""
    machines = len(gpu_capacity_bytes)
    if workload.offload_from_layer is not None:
        return np.full(machines, workload.offload_from_layer, dtype=np.int64)
    try:
        need = gpu_need_bytes(workload, parts)
    except EngineInputError:
        # No hybrid placement at any layer (a dense model): each machine gets the refusal.
        return np.full(machines, parts.first_moe_layer, dtype=np.int64)
    fitting = np.searchsorted(need, gpu_capacity_bytes, side="right")
    return (parts.first_moe_layer + np.maximum(fitting - 1, 0)).astype(np.int64)


def gpu_layer_counts(
    workload: InferWorkload,
    parts: ModelParts,
    gpu_capacity_bytes: NDArray[np.float64],
    splits: Sequence[bool],
) -> list[int | None]:
    """Each machine's `gpu_layers` under placement `gpu`: None when every layer fits its
    GPUs, where it may not split (`placement_search.splits_when_short`) or where not one layer
    fits; else what `placement_search`'s bisection finds, the most whole layers whose GPU share
    (their weights, the LM head and their share of the KV cache, growing with the layers) fits
    (`check_fits`: need ≤ capacity)."""
    if not any(splits):
        return [None] * len(splits)
    # G = 1 … L − 1 layers on the GPUs, then all L (no split)
    placements = [
        place(parts, workload.quant, GPU, gpu_layers=g) for g in range(1, parts.num_layers)
    ]
    need = _gpu_needs([*placements, place(parts, workload.quant, GPU)], kv_cache_size(workload))
    whole, need = need[-1], need[:-1]
    fitting = np.searchsorted(need, gpu_capacity_bytes, side="right")
    return [
        int(count) if split and capacity < whole and count > 0 else None
        for split, capacity, count in zip(splits, gpu_capacity_bytes, fitting, strict=True)
    ]


def _gpu_capacity_bytes(shared: _Shared, hardware: Hardware) -> float:
    """What the GPUs of `hardware` hold under hybrid (0 where it has none to offer)."""
    w = shared.workload
    try:
        devices = devices_for(hardware, HYBRID, runtime=w.runtime, efficiency=shared.efficiency)
    except EngineInputError:
        return 0.0
    return devices[GPU].capacity_bytes


def best_placements(
    workload: Mapping[str, Any], hardware: Sequence[Hardware], only: str | None = None
) -> list[PlacementSearch]:
    """`placement_search(workload=workload, hardware=h, only=only)` for each parsed machine
    `h` of `hardware`, in order: the same best result and the same `tried`. Raises
    EngineInputError for a malformed workload."""
    section = search_workload(workload)
    parsed = parse_workload(section)
    assert isinstance(parsed, InferWorkload)  # search_workload makes it an inference one
    table, parts = load_efficiency(), model_parts(parsed.model)
    shared = _Shared(
        workload=parsed,
        efficiency=table,
        layout=_layouts(parsed, parts, table),
        model_config_json=model_config_json(section),
    )
    capacity = np.array([_gpu_capacity_bytes(shared, h) for h in hardware], dtype=np.float64)
    layers = offload_layers(parsed, parts, capacity)
    splits = [_splits_when_short(parsed, h) for h in hardware]
    on_gpu = gpu_layer_counts(parsed, parts, capacity, splits)
    return [
        _search(shared, h, int(layer), count, only)
        for h, layer, count in zip(hardware, layers, on_gpu, strict=True)
    ]


def _splits_when_short(workload: InferWorkload, hardware: Hardware) -> bool:
    return splits_when_short(SimulationRequest(workload=workload, hardware=hardware))


def _search(
    shared: _Shared,
    hardware: Hardware,
    offload_from_layer: int,
    gpu_layers: int | None,
    only: str | None,
) -> PlacementSearch:
    offered = offered_placements(
        gpu=hardware.gpu is not None,
        cpu=hardware.cpu is not None,
        unified=hardware.unified is not None,
    )
    return search_placements(
        offered,
        only,
        lambda placement: shared.run(hardware, placement, offload_from_layer, gpu_layers),
    )

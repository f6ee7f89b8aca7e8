"""Inference of one model on one machine: `simulate_inference(request) -> InferenceResult`.

Checks that the weights and the KV cache fit where the placement puts them, then predicts
decode (decode.py) at `context` cached tokens and prefill (prefill.py) of `prompt_tokens`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from simulator.engine.calibration.efficiency import (
    PIPELINING_RUNTIMES,
    RUNTIMES_COMPUTING_EXPERTS_ON_CPU,
    Efficiency,
    load_efficiency,
    runtime_describes,
    tensor_path,
)
from simulator.engine.errors import EngineInputError
from simulator.engine.hardware import Hardware
from simulator.engine.serve.decode import (
    DecodeInputs,
    DecodeStep,
    DecodeWork,
    decode_time,
    decode_work,
)
from simulator.engine.serve.hardware import (
    CPU,
    GPU,
    UNIFIED,
    Device,
    cpu_device,
    gpu_device,
    tensor_parallel_allreduce_s,
    unified_device,
)
from simulator.engine.serve.kv_cache import kv_bytes_per_token, max_context
from simulator.engine.serve.network import check_machines, network_s
from simulator.engine.serve.placement import ModelParts, Placement, Share, model_parts, place
from simulator.engine.serve.prefill import (
    PrefillRun,
    PrefillWork,
    layer_split_pipeline_factor,
    prefill_time,
    prefill_work,
)
from simulator.engine.serve.runtimes import default_runtime
from simulator.engine.serve.serving_run import ServingRun, batch_latency_s, serving_run
from simulator.engine.serve.workload import InferWorkload, without_serving_run
from simulator.engine.units import GIB
from simulator.engine.workload import InferenceRequest

# The hardware quantity that bounds what each location holds.
CAPACITY_FIELDS = {
    GPU: "hardware.gpu.vram_gib",
    CPU: "hardware.ram_gib",
    UNIFIED: "hardware.unified.mem_gib",
}


class CapacityError(EngineInputError):
    """What a placement puts in one location does not fit its memory."""

    def __init__(self, *, location: str, message: str) -> None:
        super().__init__(field=CAPACITY_FIELDS[location], message=message)
        self.location = location


@dataclass(frozen=True, slots=True, kw_only=True)
class InferenceResult:
    request: InferenceRequest
    placement: Placement
    kv_bytes_per_token: float
    kv_cache_bytes: float
    max_context: int
    decode: DecodeStep
    prefill: PrefillRun
    devices: tuple[Device, ...] = ()  # with the constants this result used
    serving: ServingRun | None = None  # the workload's serving run, when it asks for one


def devices_for(
    hardware: Hardware,
    placement: str,
    *,
    runtime: str | None = None,
    efficiency: Efficiency | None = None,
    tensor_parallel: int = 1,
    weights: str = "",
    kv_cache_on_cpu: bool = False,
    splits_layers: bool = False,
) -> dict[str, Device]:
    """The devices the placement needs, each with `runtime`'s constants on its class
    (`efficiency`, default the shipped fit) and the GPU at the tensor peak of the kernel path
    `runtime` takes for `weights` (a weight type name); `EngineInputError` naming a missing
    part."""
    table = load_efficiency() if efficiency is None else efficiency
    runtime = runtime or default_runtime(hardware)
    if tensor_parallel > 1:
        _check_tensor_parallel(hardware, placement, tensor_parallel)
    check_machines(hardware, placement, runtime=runtime, tensor_parallel=tensor_parallel)
    one_machine_host_ram = (
        (kv_cache_on_cpu, "workload.kv_cache_on_cpu", "one machine's cache in its host RAM, "
         "beside GPUs that split layers"),
        (splits_layers, "workload.gpu_layers", "the first layers in one machine's host RAM"),
    )  # fmt: skip
    for asked, field, what in one_machine_host_ram:
        if asked and (tensor_parallel > 1 or hardware.machines > 1):
            raise EngineInputError(
                field=field,
                message=f"keeps {what}: not with tensor parallelism or several machines",
            )
    needs = {GPU: (GPU,), CPU: (CPU,), UNIFIED: (UNIFIED,), "hybrid": (GPU, CPU)}[placement]
    if (kv_cache_on_cpu or (splits_layers and placement == GPU)) and CPU not in needs:
        needs = (*needs, CPU)  # the CPU holds the cache, or the layers, and computes over them
    devices: dict[str, Device] = {}
    for location in needs:
        constants = table.device_class(runtime, location)
        if location == GPU and hardware.gpu is not None:
            _check_runtime_describes(hardware, hardware.gpu.maker, runtime)
            path = tensor_path(runtime, weights)
            devices[GPU] = gpu_device(hardware, constants, path, tensor_parallel)
        elif location == CPU and hardware.cpu is not None:
            devices[CPU] = cpu_device(hardware.cpu, hardware.ram_gib, constants, weights)
        elif location == UNIFIED and hardware.unified is not None:
            devices[UNIFIED] = unified_device(
                hardware.unified, constants, machines=hardware.machines
            )
        else:
            message = f"placement {placement!r} needs a {location} in the hardware"
            if location == CPU and placement == GPU and splits_layers:
                message = (
                    "workload.gpu_layers below the model's layers needs a cpu in the "
                    "hardware: it holds and computes the other layers"
                )
            elif location == CPU and placement == GPU:  # the KV cache in host RAM needs it
                message = (
                    "workload.kv_cache_on_cpu needs a cpu in the hardware: it holds the KV "
                    "cache and computes the attention over it"
                )
            raise EngineInputError(field=f"hardware.{location}", message=message)
    return devices


def _check_runtime_describes(hardware: Hardware, maker: str, runtime: str) -> None:
    if not runtime_describes(runtime, maker):
        message = (
            f"no constants for {runtime} on {maker} GPUs (published runs there "
            f"read far slower than its constants predict); {default_runtime(hardware)} has them"
        )
        raise EngineInputError(field="workload.runtime", message=message)


def _check_tensor_parallel(hardware: Hardware, placement: str, tensor_parallel: int) -> None:
    field = "workload.tensor_parallel"
    if placement != GPU:
        message = (
            f"tensor parallelism splits layers across GPUs: placement 'gpu', not {placement!r}"
        )
        raise EngineInputError(field=field, message=message)
    count = hardware.gpu_count if hardware.gpu is not None else 0
    if count % tensor_parallel:
        message = f"must divide the machine's {count} GPU(s) into equal groups"
        raise EngineInputError(field=field, message=message)


def needed_bytes(share: Share, placement: Placement, kv_cache_bytes: float) -> float:
    """What `share`'s location must hold: its weights, and its share of the KV cache."""
    return share.stored_bytes + kv_cache_bytes * placement.kv_share(share.location)


def check_fits(placement: Placement, devices: dict[str, Device], kv_cache_bytes: float) -> None:
    for share in placement.shares:
        need = needed_bytes(share, placement, kv_cache_bytes)
        have = devices[share.location].capacity_bytes
        if need > have:
            message = (
                f"needs {need / GIB:.1f} GB of weights and KV cache in {share.location} memory, "
                f"has {have / GIB:.1f} GB usable"
            )
            raise CapacityError(location=share.location, message=message)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlacedWorkload:
    """A workload in its placement, before any machine: the bytes each location holds, the KV
    cache, and the counts of one decode step and of the prompt. Everything of a simulation
    that the hardware does not change, so a batch of machines works it out once."""

    workload: InferWorkload
    placement: Placement
    kv_bytes_per_token: float
    kv_cache_bytes: float
    decode: DecodeWork
    prefill: PrefillWork


def kv_cache_size(workload: InferWorkload) -> float:
    """Bytes of the whole KV cache: `context` tokens of each of `batch` sequences (a prompt
    at `prefill_depth_tokens` needs that depth and the prompt), sliding layers holding at
    most their window, linear-attention layers their fixed state."""
    w = workload
    tokens = max(w.context, w.prefill_depth_tokens + w.prompt_tokens)
    per_token = kv_bytes_per_token(w.model, w.kv_cache_type)
    per_sequence = per_token * w.model.attended_positions(tokens) + w.model.recurrent_state_bytes
    return per_sequence * w.batch


def placed_workload(
    workload: InferWorkload,
    parts: ModelParts,
    *,
    routing_pool_fraction: float,
) -> PlacedWorkload:
    """`workload` in `workload.placement`; `parts`: `model_parts(workload.model)`; the
    efficiency table's routing pool fraction (decode's one global fitted constant)."""
    w = workload
    placement = place(
        parts,
        w.quant,
        w.placement,
        offload_from_layer=w.offload_from_layer,
        kv_cache_on_cpu=w.kv_cache_on_cpu,
        gpu_layers=w.gpu_layers,
    )
    per_token = kv_bytes_per_token(w.model, w.kv_cache_type)
    sparse = w.reads_top_k
    inputs = DecodeInputs(
        placement=placement,
        model=w.model,
        kv_bytes_per_token=per_token,
        context=w.context,
        batch=w.batch,
        routing_pool_fraction=routing_pool_fraction,
        sparse_attention=sparse,
    )
    return PlacedWorkload(
        workload=w,
        placement=placement,
        kv_bytes_per_token=per_token,
        kv_cache_bytes=kv_cache_size(w),
        decode=decode_work(inputs),
        prefill=prefill_work(
            placement,
            w.model,
            tokens=w.prompt_tokens,
            depth=w.prefill_depth_tokens,
            kv_bytes_per_token=per_token,
            ubatch=w.ubatch,
            experts_compute_on_cpu=w.runtime in RUNTIMES_COMPUTING_EXPERTS_ON_CPU
            or w.repacked_experts,
            sparse_attention=sparse,
            sequences=w.batch,
        ),
    )


def run_placed(
    placed: PlacedWorkload,
    request: InferenceRequest,
    devices: dict[str, Device],
    *,
    network_hop_s: float = 0.0,
) -> InferenceResult:
    """`placed` on the request's machine (`devices`: its `devices_for` the placement);
    `network_hop_s`: the constants table's cost of a machine boundary (network.py);
    `CapacityError` when a location cannot hold its share."""
    placement, link_gbps = placed.placement, request.hardware.link_gbps
    check_fits(placement, devices, placed.kv_cache_bytes)
    w = request.workload
    allreduce = partial(
        tensor_parallel_allreduce_s,
        layers=placement.parts.num_layers,
        hidden_size=placement.parts.hidden_size,
        tensor_parallel=w.tensor_parallel,
        link_gbps=gpu_link_gbps(request.hardware),
    )
    network = partial(
        network_s,
        request.hardware,
        hidden_size=placement.parts.hidden_size,
        hop_s=network_hop_s,
    )
    free = kv_room_bytes(placement, devices)
    return InferenceResult(
        request=request,
        placement=placement,
        kv_bytes_per_token=placed.kv_bytes_per_token,
        kv_cache_bytes=placed.kv_cache_bytes,
        max_context=max_context(
            free,
            placed.kv_bytes_per_token,
            sequences=request.workload.batch,
            model=request.workload.model,
        ),
        devices=tuple(devices.values()),
        decode=replace(
            decode_time(placed.decode, devices, link_gbps),
            allreduce_s=allreduce(tokens=w.batch),
            network_s=network(tokens=w.batch, micro_batches=1),
        ),
        prefill=replace(
            prefill_time(placed.prefill, devices, link_gbps),
            allreduce_s=allreduce(tokens=w.prompt_tokens),
            pipeline_factor=_pipeline_factor(request, placement.name),
            network_s=network(tokens=w.prompt_tokens, micro_batches=placed.prefill.micro_batches),
        ),
    )


def kv_room_bytes(placement: Placement, devices: dict[str, Device]) -> float:
    """Bytes of KV cache the placement can hold: the room beside each location's weights over
    the share of the cache it keeps there, the tighter location's."""
    shares = ((s, placement.kv_share(s.location)) for s in placement.shares)
    return min((devices[s.location].capacity_bytes - s.stored_bytes) / kv for s, kv in shares if kv)


def _pipeline_factor(request: InferenceRequest, placement: str) -> float:
    """llama.cpp's layer split pipelines a prompt's micro-batches over the GPUs (prefill.py,
    layer_split_pipeline_factor); other runtimes and tensor parallelism do not."""
    w, gpus = request.workload, request.hardware.gpu_count
    runtime = w.runtime or default_runtime(request.hardware)
    if placement != GPU or w.tensor_parallel > 1 or runtime not in PIPELINING_RUNTIMES:
        return 1.0
    return layer_split_pipeline_factor(w.prompt_tokens, w.ubatch, gpus)


def gpu_link_gbps(hardware: Hardware) -> float:
    """The GPU–GPU link: NVLink where stated, else the GPUs' PCIe (0 without a GPU)."""
    if hardware.interconnect_gbps:
        return hardware.interconnect_gbps
    return hardware.gpu.pcie_gbps if hardware.gpu is not None else 0.0


def simulate_inference(
    request: InferenceRequest,
    efficiency: Efficiency | None = None,
    *,
    placed: PlacedWorkload | None = None,
) -> InferenceResult:
    """`efficiency`: the constants table (None → the shipped fit, `load_efficiency()`);
    `placed`: the workload's `placed_workload` at that table's two global constants, when
    the caller already has it (the fit predicts each row at hundreds of tables)."""
    w, table = request.workload, load_efficiency() if efficiency is None else efficiency
    devices = devices_for(
        request.hardware,
        w.placement,
        runtime=w.runtime,
        efficiency=table,
        tensor_parallel=w.tensor_parallel,
        weights=w.quant.dense.name,
        kv_cache_on_cpu=w.kv_cache_on_cpu,
        splits_layers=w.splits_layers,
    )
    if placed is None:
        placed = placed_workload(
            w,
            model_parts(w.model),
            routing_pool_fraction=table.routing_pool_fraction,
        )
    result = run_placed(placed, request, devices, network_hop_s=table.network_hop_s)
    if w.output_tokens is None:
        return result
    run = serving_run_of(request, partial(simulate_inference, efficiency=table))
    return replace(result, serving=run)


def serving_run_of(
    request: InferenceRequest, run_at: Callable[[InferenceRequest], InferenceResult]
) -> ServingRun:
    """The workload's serving run (serve/serving_run.py), `run_at` simulating it with a
    count in flight: each count decodes at the requests' mean context, their prompt and half
    their output (blocks are held as tokens come). The calibration passes its cached runs."""
    w = request.workload
    if w.output_tokens is None:
        raise EngineInputError(field="workload.output_tokens", message="is required")
    output = w.output_tokens
    if w.context < w.prompt_tokens + output:
        raise EngineInputError(
            field="workload.context",
            message=f"must hold a request's prompt and output tokens "
            f"({w.prompt_tokens} + {output}), got {w.context}",
        )
    mean = replace(without_serving_run(w), context=w.prompt_tokens + output // 2)

    def latency_s(concurrency: int) -> float:
        run = run_at(replace(request, workload=replace(mean, batch=concurrency)))
        return batch_latency_s(
            concurrency=concurrency,
            prompt_tokens=w.prompt_tokens,
            output_tokens=output,
            prefill_tokens_per_s=run.prefill.tokens_per_s,
            decode_step_s=run.decode.step_s,
        )

    return serving_run(
        latency_s,
        prompt_tokens=w.prompt_tokens,
        output_tokens=output,
        max_concurrency=w.batch,
        requests=w.requests,
        request_rate_per_s=w.request_rate_per_s,
    )

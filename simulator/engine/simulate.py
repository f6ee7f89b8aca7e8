"""The engine's entry point for one configuration: `simulate(request)`, a `TrainResult` for a
training request and an `InferenceResult` for an inference one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, overload

from simulator.engine.errors import EngineInputError
from simulator.engine.formats.training import require_supported
from simulator.engine.model.layers import moe_layer, reference_layer
from simulator.engine.serve.inference import InferenceResult, simulate_inference
from simulator.engine.serve.workload import InferWorkload
from simulator.engine.train.data_parallel import (
    data_parallel_need_gib,
    data_parallel_split,
    require_model_parallel,
)
from simulator.engine.train.facts import model_facts
from simulator.engine.train.memory import DOUBLE_BUFFER_LAYERS, fixed_vram_gib, layers_per_gpu
from simulator.engine.train.offload import require_offload
from simulator.engine.train.precision import with_gemm_precision
from simulator.engine.train.reference import (
    TIE_RULE,
    LayerCosts,
    SplitResult,
    greedy_split,
    optimal_split,
    reference_costs,
    reference_curve,
)
from simulator.engine.train.refined import (
    ALL_REFINEMENTS,
    refined_curve,
    refined_greedy,
    refined_timeline,
)
from simulator.engine.train.result import TrainResult
from simulator.engine.train.timeline import Timeline
from simulator.engine.train.workload import (
    MODE_REFERENCE,
    MODE_REFINED,
    NO_OFFLOAD,
    PIPELINE,
    TrainWorkload,
)
from simulator.engine.workload import InferenceRequest, SimulationRequest, TrainRequest


def minimum_vram_gib(costs: LayerCosts, gpu_count: int) -> float:
    """The least VRAM that trains at all: one sequence beside the smaller of streaming
    (double buffer) or keeping every layer resident, plus LoRA and the CUDA context."""
    per_gpu = layers_per_gpu(costs.num_layers, gpu_count)
    weights = min(DOUBLE_BUFFER_LAYERS, per_gpu) * costs.layer_gib
    fixed = fixed_vram_gib(per_gpu * costs.lora_gib_per_layer)
    return weights + fixed + costs.gib_per_sequence


def cannot_fit(
    request: TrainRequest, costs: LayerCosts, need_gib: float | None = None
) -> EngineInputError:
    """Too little VRAM: `need_gib` (one GPU's need for one sequence), by default the layer
    pipeline's minimum."""
    w, hw = request.workload, request.hardware
    gpu = hw.require_gpu()
    need = minimum_vram_gib(costs, hw.gpu_count) if need_gib is None else need_gib
    message = (
        f"{w.model.display_name} in {w.quant.name} at seq_len {w.seq_len} cannot fit: "
        f"needs at least {need:.1f} GB per GPU, {gpu.name} has {gpu.vram_gib:g} GB"
    )
    return EngineInputError(field="hardware.gpu.vram_gib", message=message)


def simulate_reference(request: TrainRequest) -> TrainResult:
    w, hw = request.workload, request.hardware
    costs = reference_costs(w)
    curve = reference_curve(costs, w, hw)
    best = optimal_split(curve)
    if best is None:
        raise cannot_fit(request, costs)
    return TrainResult(
        request=request,
        facts=model_facts(reference_layer(w.model), w, hw),
        best=best,
        greedy=greedy_split(costs, w, hw),
        curve=curve,
        tie_rule=TIE_RULE,
    )


def simulate_data_parallel(request: TrainRequest) -> TrainResult:
    """Refined mode's data-parallel run (DDP, FSDP) or full fine-tuning: one split, every
    layer on every GPU."""
    w, hw = request.workload, request.hardware
    require_model_parallel(w, hw)
    if w.parallelism == PIPELINE and w.offload == NO_OFFLOAD:
        raise EngineInputError(
            field="workload.parallelism",
            message="full fine-tuning runs data parallel: use 'ddp' or 'fsdp'",
        )
    require_offload(w, hw)
    best = data_parallel_split(w, hw, ALL_REFINEMENTS)
    if best is None:
        need = data_parallel_need_gib(w, hw, ALL_REFINEMENTS)
        raise cannot_fit(request, reference_costs(w), need)
    return _refined_result(request, best=best, greedy=best, curve=(best,))


def _refined_result(
    request: TrainRequest,
    *,
    best: SplitResult,
    greedy: SplitResult | None,
    curve: tuple[SplitResult, ...],
    timeline: Timeline | None = None,
) -> TrainResult:
    w = request.workload
    layer = moe_layer(w.model) if w.model.is_moe else reference_layer(w.model)
    return TrainResult(
        request=request,
        facts=model_facts(layer, w, request.hardware),
        best=best,
        greedy=greedy,
        curve=curve,
        tie_rule=TIE_RULE,
        refinements=ALL_REFINEMENTS.names(),
        timeline=timeline,
    )


def simulate_refined(request: TrainRequest) -> TrainResult:
    """Every refinement of `refined.Refinements` on; the best split's timeline as data."""
    w, hw = request.workload, request.hardware
    if not w.runs_layer_pipeline:
        return simulate_data_parallel(request)
    curve = refined_curve(w, hw, ALL_REFINEMENTS)
    best = optimal_split(curve)
    if best is None:
        raise cannot_fit(request, reference_costs(w))
    return _refined_result(
        request,
        best=best,
        greedy=refined_greedy(w, hw, ALL_REFINEMENTS),
        curve=curve,
        timeline=refined_timeline(w, hw, best.resident_layers, ALL_REFINEMENTS),
    )


TRAINING_MODES: dict[str, Callable[[TrainRequest], TrainResult]] = {
    MODE_REFERENCE: simulate_reference,
    MODE_REFINED: simulate_refined,
}


def simulate_training(request: TrainRequest) -> TrainResult:
    """Training in the request's mode, on a GPU that supports its format."""
    w, gpu = request.workload, request.hardware.require_gpu()
    if w.mode not in TRAINING_MODES:
        raise EngineInputError(field="workload.mode", message=f"{w.mode!r} is not available")
    if w.mode == MODE_REFERENCE and not w.runs_layer_pipeline:
        fields = (
            (w.parallelism != PIPELINE, "workload.parallelism"),
            (w.full_finetune, "workload.full_finetune"),
            (w.tensor_parallel > 1, "workload.tensor_parallel"),
            (w.pipeline_parallel > 1, "workload.pipeline_parallel"),
            (w.offload != NO_OFFLOAD, "workload.offload"),
        )
        field = next(name for refused, name in fields if refused)
        message = "seed 000's reference mode is a QLoRA pipeline: use mode 'refined'"
        raise EngineInputError(field=field, message=message)
    require_supported(w.quant, gpu_name=gpu.name, gpu_has_fp4=gpu.fp4)
    request = replace(request, workload=with_gemm_precision(w, gpu))
    return TRAINING_MODES[w.mode](request)


# The rules that simulate each kind of workload, by the workload's type.
SIMULATORS: dict[type, Callable[[Any], TrainResult | InferenceResult]] = {
    TrainWorkload: simulate_training,
    InferWorkload: simulate_inference,
}


@overload
def simulate(request: TrainRequest) -> TrainResult: ...
@overload
def simulate(request: InferenceRequest) -> InferenceResult: ...
@overload
def simulate(request: SimulationRequest[Any]) -> TrainResult | InferenceResult: ...
def simulate(request: SimulationRequest[Any]) -> TrainResult | InferenceResult:
    """Simulate one configuration, with the rules of its workload's kind."""
    return SIMULATORS[type(request.workload)](request)

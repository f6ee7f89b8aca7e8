"""Predict each corpus row with the engine paths the rankings use, at the fitted constants."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from simulator.engine.calibration.corpus import MeasurementRow
from simulator.engine.calibration.efficiency import TRAIN, Efficiency, load_efficiency
from simulator.engine.calibration.not_modeled import NotModeled
from simulator.engine.calibration.setups import (
    InferSetup,
    Setup,
    TrainSetup,
    latency_scale,
    per_gpu,
    per_user,
    row_setup,
    runtime_of,
    tokens_per_s_scale,
)
from simulator.engine.errors import EngineInputError
from simulator.engine.serve.inference import (
    InferenceResult,
    PlacedWorkload,
    placed_workload,
    serving_run_of,
    simulate_inference,
)
from simulator.engine.serve.placement import model_parts
from simulator.engine.serve.workload import InferWorkload
from simulator.engine.simulate import simulate
from simulator.engine.workload import InferenceRequest, TrainRequest


@dataclass(frozen=True, slots=True, kw_only=True)
class Prediction:
    """`signed_error` = (predicted − measured) / measured. `reason`: why a row is not modeled,
    or for a modeled row what bounds the prediction (e.g. "decode: gpu memory bandwidth")."""

    row_id: str
    category: str
    modeled: bool
    measured: float
    unit: str
    predicted: float | None
    signed_error: float | None
    reason: str
    runtime: str = ""  # the runtime family whose constants predict it ("" when unknown)


def _runtime(row: MeasurementRow) -> str:
    try:
        return runtime_of(row)
    except NotModeled:
        return ""


def _setup_runtime(setup: Setup) -> str:
    """The runtime whose constants the setup runs with (llama.cpp named on an Apple system
    is its Metal backend: setups._backend_on)."""
    if isinstance(setup, InferSetup):
        return setup.request.workload.runtime or ""
    return setup.runtime


# A workload's placement and counts depend on the table only through its routing pool
# fraction, so the fit, which predicts each row at hundreds of tables, works them out once per
# (workload, routing pool fraction). Bounded: a grid over the routing pool makes ~80 entries
# for each batched MoE decode row.
@lru_cache(maxsize=16384)
def _placed(workload: InferWorkload, routing_pool_fraction: float) -> PlacedWorkload:
    return placed_workload(
        workload, model_parts(workload.model), routing_pool_fraction=routing_pool_fraction
    )


def _simulate(setup: InferSetup, efficiency: Efficiency) -> InferenceResult:
    w = setup.request.workload
    placed = _placed(w, efficiency.routing_pool_fraction)
    return simulate_inference(setup.request, efficiency, placed=placed)


def _prefill_bound(setup: InferSetup, efficiency: Efficiency) -> tuple[float, str]:
    run = _simulate(setup, efficiency).prefill
    terms = {
        "compute": run.compute_s,
        "weight reads": run.weight_read_s,
        "per-layer overhead": run.overhead_s,
        "link": run.link_s,
    }
    home = setup.request.workload.placement
    return run.tokens_per_s, f"prefill ({home}): {max(terms, key=lambda k: terms[k])}"


def _decode_bound(setup: InferSetup, efficiency: Efficiency) -> tuple[float, str]:
    step = _simulate(setup, efficiency).decode
    return step.tokens_per_s, f"decode: {step.bottleneck}"


def _serving_bound(setup: InferSetup, efficiency: Efficiency) -> tuple[float, str]:
    """The workload's serving run, the engine's (serve/inference.serving_run_of), each count
    in flight simulated through the fit's caches. Output (or, for a total figure, input and
    output) tokens per second of the run."""
    runs: dict[int, InferenceResult] = {}

    def run_at(request: InferenceRequest) -> InferenceResult:
        run = runs[request.workload.batch] = _simulate(replace(setup, request=request), efficiency)
        return run

    served = serving_run_of(setup.request, run_at)
    n, run = served.concurrency, runs[served.concurrency]
    w = setup.request.workload
    prefill_s = n * w.prompt_tokens / run.prefill.tokens_per_s
    decode_s = (w.output_tokens or 0) * run.decode.step_s
    bound = "prefill" if prefill_s > decode_s else f"decode: {run.decode.bottleneck}"
    value = served.total_tokens_per_s if setup.total else served.output_tokens_per_s
    return value, f"serving ({n} concurrent): {bound}"


def _train_bound(setup: TrainSetup, efficiency: Efficiency) -> tuple[float, str]:
    return _trained(setup.request, efficiency.get(setup.runtime, TRAIN).flops_efficiency)


# A training prediction depends on the table only through its runtime's utilization, and the
# fit's rounds revisit the same grid values: each (request, utilization) is simulated once.
@lru_cache(maxsize=16384)
def _trained(request: TrainRequest, utilization: float) -> tuple[float, str]:
    w = replace(request.workload, utilization=utilization)
    result = simulate(replace(request, workload=w))
    return result.best.tokens_per_s, f"training step: {result.best.bottleneck}"


def predicted_value(setup: Setup, efficiency: Efficiency, unit: str = "tok/s") -> tuple[float, str]:
    """(predicted tokens/s, what bounds it) for a resolved setup in the row's `unit`: per GPU
    when `unit` is, in thousands for "k TPS"; a training figure published as a time per step
    or a rate of samples in that unit (`figures.StepFigure`)."""
    value, bound = _machine_value(setup, efficiency)
    if isinstance(setup, TrainSetup) and setup.figure is not None:
        return setup.figure.published(value), bound
    if per_gpu(unit) or (isinstance(setup, TrainSetup) and setup.per_gpu):
        value /= setup.request.hardware.gpu_count
    if isinstance(setup, InferSetup) and per_user(unit):
        value /= setup.request.workload.batch
    latency = latency_scale(unit)
    if latency is not None:  # a time per token: the inverse of one sequence's speed
        return latency / value, bound
    return value / tokens_per_s_scale(unit), bound


def _machine_value(setup: Setup, efficiency: Efficiency) -> tuple[float, str]:
    if isinstance(setup, TrainSetup):
        return _train_bound(setup, efficiency)
    if setup.phase == "prefill":
        return _prefill_bound(setup, efficiency)
    if setup.phase == "serving":
        return _serving_bound(setup, efficiency)
    return _decode_bound(setup, efficiency)


def _not_modeled(row: MeasurementRow, reason: str) -> Prediction:
    return Prediction(
        row_id=row.id,
        category=row.category,
        modeled=False,
        measured=row.value,
        unit=row.unit,
        predicted=None,
        signed_error=None,
        reason=reason,
        runtime=_runtime(row),
    )


def predict_row(row: MeasurementRow, efficiency: Efficiency | None = None) -> Prediction:
    """The engine's figure for `row` (None: the shipped fitted constants)."""
    table = load_efficiency() if efficiency is None else efficiency
    if row.schema_error:
        return _not_modeled(row, row.schema_error)
    try:
        setup = row_setup(row)
        predicted, bound = predicted_value(setup, table, row.unit)
    except NotModeled as error:
        return _not_modeled(row, str(error))
    except EngineInputError as error:
        return _not_modeled(row, f"the engine rejects the setup: {error}")
    except (ValueError, TypeError, ArithmeticError) as error:
        # a user's row whose figures make no run ("prompt_tokens": -5): listed, not fatal
        return _not_modeled(row, f"the row's setup makes no run: {error!r}")
    if not math.isfinite(predicted) or predicted <= 0:
        return _not_modeled(row, f"the row's setup makes no run: predicted {predicted}")
    return Prediction(
        row_id=row.id,
        category=row.category,
        modeled=True,
        measured=row.value,
        unit=row.unit,
        predicted=predicted,
        signed_error=(predicted - row.value) / row.value,
        reason=bound,
        runtime=_setup_runtime(setup) or _runtime(row),
    )


def predict_all(
    rows: Sequence[MeasurementRow], efficiency: Efficiency | None = None
) -> tuple[Prediction, ...]:
    table = load_efficiency() if efficiency is None else efficiency
    return tuple(predict_row(row, table) for row in rows)

"""Many hardware configurations under one training workload at once: the path rankings take.

Reference mode runs on the vectorised sweep (sweep.py), refined mode on its vectorised form
(refined_sweep.py); both give bit-identical answers to `simulate` one configuration at a time,
which stays the readable specification they are tested against. Each configuration gets its best
split, or the `EngineInputError` `simulate` would raise for it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from simulator.engine.errors import EngineInputError
from simulator.engine.formats.training import require_supported
from simulator.engine.hardware import Hardware
from simulator.engine.simulate import cannot_fit, simulate
from simulator.engine.train.reference import SplitResult, reference_costs
from simulator.engine.train.refined_sweep import refined_best_splits
from simulator.engine.train.sweep import HardwareBatch, sweep
from simulator.engine.train.workload import MODE_REFERENCE, MODE_REFINED, TrainWorkload
from simulator.engine.workload import SimulationRequest

BestSplit = SplitResult | EngineInputError


def _unsupported(workload: TrainWorkload, hardware: Hardware) -> EngineInputError | None:
    try:
        require_supported(
            workload.quant,
            gpu_name=hardware.require_gpu().name,
            gpu_has_fp4=hardware.require_gpu().fp4,
        )
    except EngineInputError as error:
        return error
    return None


def _one(workload: TrainWorkload, hardware: Hardware) -> BestSplit:
    try:
        return simulate(SimulationRequest(workload=workload, hardware=hardware)).best
    except EngineInputError as error:
        return error


def _pipeline_lora(workload: TrainWorkload) -> bool:
    """The batch solvers cover the layer pipeline of adapters; data-parallel runs and full
    fine-tuning take the scalar path (one split each, no curve to sweep), as FP8 GEMMs do."""
    # FP8's speedup is each GPU's own FP8/BF16 ratio: one request per GPU
    return workload.runs_layer_pipeline and not workload.quant.fp8_gemms


def best_splits(workload: TrainWorkload, hardware: Sequence[Hardware]) -> list[BestSplit]:
    """The best split of each configuration, in order (the tie rule of reference.TIE_RULE)."""
    if workload.mode not in BATCH_SOLVERS or not _pipeline_lora(workload):
        return [_one(workload, config) for config in hardware]
    answers: list[BestSplit | None] = [_unsupported(workload, config) for config in hardware]
    runnable = [i for i, answer in enumerate(answers) if answer is None]
    if not runnable:
        return [answer for answer in answers if answer is not None]
    rows = BATCH_SOLVERS[workload.mode](workload, [hardware[i] for i in runnable])
    costs = reference_costs(workload)
    for i, row in zip(runnable, rows, strict=True):
        request = SimulationRequest(workload=workload, hardware=hardware[i])
        answers[i] = cannot_fit(request, costs) if row is None else row
    return [answer for answer in answers if answer is not None]


def _reference_splits(
    workload: TrainWorkload, hardware: Sequence[Hardware]
) -> list[SplitResult | None]:
    result = sweep(HardwareBatch.from_hardware(hardware), workload)
    return [result.row(i) for i in range(len(hardware))]


BATCH_SOLVERS: dict[
    str, Callable[[TrainWorkload, Sequence[Hardware]], list[SplitResult | None]]
] = {MODE_REFERENCE: _reference_splits, MODE_REFINED: refined_best_splits}

"""Which training mode predicts the corpus's fine-tuning rows better, cross-validated.

Every fine-tuning row the engine can describe is predicted twice, in reference mode (seed
000's equations) and in refined mode, each with the constants fitted without the row's own
source. The mode with the smaller median |error| over the rows both express, and no fewer rows
expressed, is the one a request gets when it names none (`train.workload.DEFAULT_MODE`).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache

from simulator.engine.calibration.corpus import MeasurementRow, load_corpus
from simulator.engine.calibration.crossval import CrossValidation, load_crossval
from simulator.engine.calibration.not_modeled import NotModeled
from simulator.engine.calibration.predict import predicted_value
from simulator.engine.calibration.setups import TrainSetup, row_setup
from simulator.engine.errors import EngineInputError
from simulator.engine.train.workload import MODE_REFERENCE, MODE_REFINED

MODES = (MODE_REFERENCE, MODE_REFINED)


@dataclass(frozen=True, slots=True, kw_only=True)
class ModeScore:
    """One mode on the fine-tuning rows: `errors` maps row id → cross-validated signed error
    for the rows it expresses; `refused` maps row id → why the mode cannot express it."""

    mode: str
    errors: dict[str, float]
    refused: dict[str, str]

    def median_abs_error(self, row_ids: Sequence[str]) -> float | None:
        values = [abs(self.errors[i]) for i in row_ids if i in self.errors]
        return statistics.median(values) if values else None


@dataclass(frozen=True, slots=True, kw_only=True)
class ModeComparison:
    scores: dict[str, ModeScore]
    common: tuple[str, ...]  # rows every mode expresses

    @property
    def better(self) -> str:
        """The mode that expresses the most rows, then has the smaller median |error| on the
        rows both express (refined on a tie: it is the one that expresses more setups)."""

        def key(mode: str) -> tuple[int, float]:
            score = self.scores[mode]
            median = score.median_abs_error(self.common)
            return (-len(score.errors), median if median is not None else float("inf"))

        return min((MODE_REFINED, MODE_REFERENCE), key=key)


def _setup_in(setup: TrainSetup, mode: str) -> TrainSetup:
    workload = replace(setup.request.workload, mode=mode)
    return replace(setup, request=replace(setup.request, workload=workload))


def compare_modes(rows: Sequence[MeasurementRow], crossval: CrossValidation) -> ModeComparison:
    """Both modes on every training row the engine can describe, cross-validated."""
    errors: dict[str, dict[str, float]] = {mode: {} for mode in MODES}
    refused: dict[str, dict[str, str]] = {mode: {} for mode in MODES}
    for row in rows:
        try:
            setup = row_setup(row)
        except NotModeled:
            continue
        if not isinstance(setup, TrainSetup):
            continue
        table = crossval.table_for(row)
        for mode in MODES:
            try:
                predicted, _ = predicted_value(_setup_in(setup, mode), table, row.unit)
            except EngineInputError as error:
                refused[mode][row.id] = str(error)
                continue
            errors[mode][row.id] = float((predicted - row.value) / row.value)
    common = tuple(sorted(set.intersection(*(set(errors[mode]) for mode in MODES))))
    scores = {
        mode: ModeScore(mode=mode, errors=errors[mode], refused=refused[mode]) for mode in MODES
    }
    return ModeComparison(scores=scores, common=common)


@cache
def shipped_mode_comparison() -> ModeComparison:
    """Both modes on the shipped corpus with the shipped held-out constants."""
    _, rows = load_corpus()
    return compare_modes(rows, load_crossval())

"""Writes the pages ask for: every one goes through the simulator's services (which store
the run, or reuse a stored one for the same input)."""

from dataclasses import dataclass
from typing import Any

from simulator.engine import MODE_REFERENCE, MODE_REFINED, EngineInputError
from simulator.models import SimulationRun
from simulator.services.simulate import simulation_request_submit


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildRuns:
    """A build (or inline hardware) simulated in the chosen mode (`run`, the headline) and in
    the other mode (`comparison`; None with `comparison_refused` saying why when that mode
    cannot express the workload). `refined` is whichever of the two ran in refined mode: the
    pipeline timeline comes from it."""

    run: SimulationRun
    comparison: SimulationRun | None
    comparison_refused: str = ""

    @property
    def refined(self) -> SimulationRun | None:
        for run in (self.run, self.comparison):
            if run is not None and run.input["workload"].get("mode") == MODE_REFINED:
                return run
        return None


def build_simulate(
    *, target: dict[str, Any], workload: dict[str, Any], with_comparison: bool = True
) -> BuildRuns:
    """`target` is {"build_id": id}, {"parts": [...]} or {"hardware": {...}} (inline, a GPU
    the catalog may not have); EngineInputError names a bad field."""
    run = simulation_request_submit(body={"workload": workload, **target})
    if not with_comparison:
        return BuildRuns(run=run, comparison=None)
    chosen = run.input["workload"]["mode"]
    other = MODE_REFERENCE if chosen == MODE_REFINED else MODE_REFINED
    try:
        comparison = simulation_request_submit(
            body={"workload": {**workload, "mode": other}, **target}
        )
    except EngineInputError as exc:
        return BuildRuns(run=run, comparison=None, comparison_refused=str(exc))
    return BuildRuns(run=run, comparison=comparison)


def ranking_request(*, body: dict[str, Any]) -> SimulationRun:
    """Every candidate build ranked for the workload: the stored ranking at the current
    prices, or a run queued on the workers (QueueFullError when too many wait)."""
    return simulation_request_submit(body=body)

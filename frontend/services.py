"""Writes the pages ask for: every one goes through the simulator's services (which store
the run, or reuse a stored one for the same input)."""

from dataclasses import dataclass
from typing import Any

from simulator.models import SimulationRun
from simulator.services.simulate import simulation_request_submit


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildRuns:
    """A build (or inline hardware) simulated in the chosen mode, and in refined mode for
    the pipeline timeline (the same run when the chosen mode is refined)."""

    run: SimulationRun
    refined: SimulationRun


def build_simulate(*, target: dict[str, Any], workload: dict[str, Any]) -> BuildRuns:
    """`target` is {"build_id": id}, {"parts": [...]} or {"hardware": {...}} (inline, a GPU
    the catalog may not have); EngineInputError names a bad field."""
    run = simulation_request_submit(body={"workload": workload, **target})
    if workload.get("mode") == "refined":
        return BuildRuns(run=run, refined=run)
    refined_body = {"workload": {**workload, "mode": "refined"}, **target}
    return BuildRuns(run=run, refined=simulation_request_submit(body=refined_body))


def ranking_request(*, body: dict[str, Any]) -> SimulationRun:
    """Every candidate build ranked for the workload: the stored ranking at the current
    prices, or a run queued on the workers (QueueFullError when too many wait)."""
    return simulation_request_submit(body=body)

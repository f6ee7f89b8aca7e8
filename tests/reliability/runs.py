"""Rankings sized for the fault tests (a few seconds of work per task) and the checks
that a finished one holds exactly one complete result."""

import json
from importlib import resources
from typing import Any
from uuid import UUID

from simulator.models import RunStatus, SimulationRun
from simulator.services.rankings import ranking_create
from tests.reliability.conftest import wait_for

# Seconds of work per task: GLM-4.7's layer shape 400 layers deep in refined mode, whose
# per-layer timeline costs each build about 10 ms on the batch path (the (layer x resident
# count) arrays grow as L squared); with RANKING_CHUNK_SIZE_TRAIN=170 (conftest.PROCESS_ENV)
# the 340 1-GPU builds make 2 chunks of 1.6 s each on an idle machine.
DEEP_LAYERS = 400
_GLM = json.loads(
    resources.files("simulator.engine").joinpath("data/models/glm-4.7.json").read_text("utf-8")
)
WORKLOAD = {
    "kind": "train",
    "model": "glm-4.7-deep",
    "model_config": {**_GLM, "num_hidden_layers": DEEP_LAYERS},
    "quant": "NF4d+NF2e",
    "seq_len": 1024,
    "mode": "refined",
}
ONE_GPU = {"gpu_count_max": 1}


def ranking_queue(*, workload: dict[str, Any] | None = None, **ranking: Any) -> SimulationRun:
    """A ranking queued through the service, as the API does (sent after commit)."""
    body = {"workload": {**WORKLOAD, **(workload or {})}, "ranking": ranking or ONE_GPU}
    return ranking_create(body=body)


def run_state(run_id: UUID | str) -> SimulationRun:
    return SimulationRun.objects.get(pk=run_id)


def wait_finished(run: SimulationRun, *, timeout_s: float) -> tuple[SimulationRun, float]:
    """The run once done or failed, and the seconds waited."""
    waited = wait_for(
        lambda: run_state(run.pk).is_finished, timeout_s=timeout_s, what=f"run {run.pk}"
    )
    return run_state(run.pk), waited


def assert_one_complete_result(run: SimulationRun) -> None:
    """Done, every chunk stored once, and each candidate in the merged result once."""
    assert run.status == RunStatus.DONE, run.error
    indexes = sorted(run.chunks.values_list("index", flat=True))
    assert indexes == list(range(run.chunks_total))
    assert run.chunks_done == run.chunks_total >= 1
    assert run.result is not None
    names = [row["name"] for row in run.result["rows"]] + [
        item["name"] for item in run.result["excluded"]
    ]
    assert len(names) == len(set(names)) == len(run.plan["candidates"])

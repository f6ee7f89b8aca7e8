"""A worker's process killed mid-ranking: the work is delivered again and the ranking ends
with exactly one result."""

import os
import signal
import time
from typing import Any

import pytest

from planner_site.celery import app as celery_app
from simulator.models import SimulationRun
from tests.reliability.conftest import (
    STALE_AFTER_S,
    SWEEP_INTERVAL_S,
    VISIBILITY_TIMEOUT_S,
    CeleryFactory,
    CeleryProcess,
    wait_for,
)
from tests.reliability.runs import (
    assert_one_complete_result,
    ranking_queue,
    run_state,
    wait_finished,
)

RUN_TIMEOUT_S = 60.0


def _running_chunk(worker: CeleryProcess) -> dict[str, Any]:
    """A ranking chunk the worker is computing right now (polled until there is one)."""
    found: list[dict[str, Any]] = []

    def chunk_active() -> bool:
        found[:] = [t for t in worker.active_tasks() if t["name"] == "simulator.ranking_chunk"]
        return bool(found)

    wait_for(chunk_active, timeout_s=RUN_TIMEOUT_S, what="a ranking chunk to run")
    return found[0]


@pytest.mark.services
def test_a_ranking_whose_task_process_is_killed_reruns_and_ends_with_one_result(
    celery_processes: CeleryFactory,
) -> None:
    worker = celery_processes.worker(concurrency=1)
    run = ranking_queue()
    chunk = _running_chunk(worker)

    os.kill(chunk["worker_pid"], signal.SIGKILL)
    killed_at = time.monotonic()
    run, _ = wait_finished(run, timeout_s=RUN_TIMEOUT_S)

    print(f"\nprocess killed → ranking done in {time.monotonic() - killed_at:.1f} s")
    assert_one_complete_result(run)
    assert run.chunks_total > 1
    assert run.attempts == 1  # the chunk was redelivered, the ranking not restarted
    assert "WorkerLostError" in worker.log()
    assert worker.proc.poll() is None  # the worker itself lives on with a new child


@pytest.mark.services
def test_a_ranking_on_a_killed_worker_is_finished_by_another_worker(
    celery_processes: CeleryFactory,
) -> None:
    first = celery_processes.worker(concurrency=1)
    celery_processes.beat()
    run = ranking_queue()
    _running_chunk(first)

    first.kill()
    killed_at = time.monotonic()
    celery_processes.worker(concurrency=1)
    run, _ = wait_finished(run, timeout_s=RUN_TIMEOUT_S)
    recovered_s = time.monotonic() - killed_at

    how = "the sweep re-sent it" if run.swept_at else "Redis restored the unacked chunk"
    print(f"\nworker killed → ranking done in {recovered_s:.1f} s ({how})")
    assert_one_complete_result(run)
    # Redelivery after the visibility timeout or a re-send by the sweep, whichever is first,
    # then the remaining chunks (about 2 s each) and a new worker's start.
    assert recovered_s < VISIBILITY_TIMEOUT_S + STALE_AFTER_S + SWEEP_INTERVAL_S + 20


PRODUCTION_RECOVERY_S = 60.0


def _watch_progress(run: SimulationRun, *, timeout_s: float) -> list[int]:
    """progress_pct as seen every POLL_S until the run finishes."""
    seen: list[int] = []

    def finished() -> bool:
        state = run_state(run.pk)
        seen.append(state.progress_pct)
        return state.is_finished

    wait_for(finished, timeout_s=timeout_s, what=f"run {run.pk} to finish")
    return seen


@pytest.mark.services
def test_a_ranking_whose_whole_worker_is_killed_completes_within_60_s_at_production_settings(
    celery_processes: CeleryFactory,
) -> None:
    # The settings' own timeouts (task limits 300/360 s, visibility 720 s, heartbeat 5 s, sweep
    # every 10 s, stale after 20 s): only the chunk size is scaled (conftest.PROCESS_ENV), so
    # that the ranking is several chunks of seconds each and one can be killed mid-way.
    celery_processes.scaled_timeouts = False
    doomed = celery_processes.worker(concurrency=1)
    survivor = celery_processes.worker(concurrency=1)  # as compose runs worker-1 and worker-2
    celery_processes.beat()
    run = ranking_queue(gpu_count_max=2)
    chunk = _running_chunk(doomed)
    killed_index = chunk["args"][1]

    doomed.kill()
    killed_at = time.monotonic()
    progress = _watch_progress(run, timeout_s=PRODUCTION_RECOVERY_S)
    recovered_s = time.monotonic() - killed_at
    run = run_state(run.pk)

    print(f"\nwhole worker killed → ranking done in {recovered_s:.1f} s (chunk {killed_index})")
    assert_one_complete_result(run)
    assert run.swept_at is not None  # the sweep re-sent it: the broker would wait 720 s
    assert progress == sorted(progress), "progress went backwards"
    assert recovered_s < PRODUCTION_RECOVERY_S

    # The killed worker's unacknowledged message comes back once the visibility timeout
    # (720 s) has passed; the same message sent now stands in for it. It changes nothing.
    finished_at, result = run.finished_at, run.result
    late_id = celery_app.send_task("simulator.ranking_chunk", args=[str(run.pk), killed_index]).id
    wait_for(
        lambda: f"simulator.ranking_chunk[{late_id}] succeeded" in survivor.log(),
        timeout_s=PRODUCTION_RECOVERY_S,
        what="the late redelivery to be taken",
    )
    late = run_state(run.pk)
    assert (late.finished_at, late.result, late.progress_pct) == (finished_at, result, 100)
    assert late.chunks.count() == late.chunks_total

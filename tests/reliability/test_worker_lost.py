"""A worker's process killed mid-ranking: the work is delivered again and the ranking ends
with exactly one result."""

import os
import signal
import time
from typing import Any

import pytest

from tests.reliability.conftest import (
    STALE_AFTER_S,
    SWEEP_INTERVAL_S,
    VISIBILITY_TIMEOUT_S,
    CeleryFactory,
    CeleryProcess,
    wait_for,
)
from tests.reliability.runs import assert_one_complete_result, ranking_queue, wait_finished

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

"""A ranking whose task runs past the hard time limit: the worker kills the task's
process, the run is failed with a readable error, and nothing sends it again."""

import time

import pytest

from simulator.models import RunStatus
from tests.reliability.conftest import STALE_AFTER_S, SWEEP_INTERVAL_S, CeleryFactory
from tests.reliability.runs import ranking_queue, run_state, wait_finished

# A chunk of the tests' rankings takes about 2 s: a 1 s hard limit always cuts it, and no
# soft limit (0) lets it get that far.
HARD_LIMIT_S = 1
RUN_TIMEOUT_S = 30.0


@pytest.mark.services
def test_a_ranking_past_the_hard_time_limit_fails_with_a_readable_error_once(
    celery_processes: CeleryFactory,
) -> None:
    limits = {"CELERY_TASK_SOFT_TIME_LIMIT_S": "0", "CELERY_TASK_TIME_LIMIT_S": str(HARD_LIMIT_S)}
    worker = celery_processes.worker(concurrency=1, **limits)
    celery_processes.beat(**limits)
    run = ranking_queue()

    run, waited = wait_finished(run, timeout_s=RUN_TIMEOUT_S)
    # Long enough for the sweep to have sent it again, were it going to.
    time.sleep(STALE_AFTER_S + 2 * SWEEP_INTERVAL_S)

    print(f"\nhard time limit: failed after {waited:.1f} s")
    assert run.status == RunStatus.FAILED
    assert run.error == (
        f"The simulation ran past its hard time limit ({HARD_LIMIT_S} s) and was stopped."
    )
    log = worker.log()
    assert "Hard time limit (1s) exceeded" in log
    again = run_state(run.pk)
    assert (again.status, again.attempts, again.finished_at) == (
        RunStatus.FAILED,
        1,
        run.finished_at,
    )
    # Each message was taken once: the killed chunk was acknowledged, not requeued.
    assert log.count("Task simulator.ranking_start[") == 2  # received, then succeeded
    broker = celery_processes.broker.client()
    waiting = broker.lrange("celery", 0, -1) + broker.hvals("unacked")
    assert not [m for m in waiting if str(run.pk).encode() in m]

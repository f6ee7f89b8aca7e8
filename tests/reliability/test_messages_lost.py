"""A ranking whose messages are all gone (its worker killed and the broker emptied, as a
Redis without persistence would be after a restart): only the table knows about it, and
the beat sweep sends it again."""

import time

import pytest
from django.utils import timezone

from tests.reliability.conftest import STALE_AFTER_S, SWEEP_INTERVAL_S, CeleryFactory, wait_for
from tests.reliability.runs import assert_one_complete_result, ranking_queue, wait_finished

RUN_TIMEOUT_S = 60.0


@pytest.mark.services
def test_a_ranking_whose_messages_were_lost_is_sent_again_by_the_sweep(
    celery_processes: CeleryFactory,
) -> None:
    first = celery_processes.worker(concurrency=1)
    celery_processes.beat()
    run = ranking_queue()
    wait_for(
        lambda: any(t["name"] == "simulator.ranking_chunk" for t in first.active_tasks()),
        timeout_s=RUN_TIMEOUT_S,
        what="a ranking chunk to run",
    )

    first.kill()
    celery_processes.broker.client().flushall()
    lost_at, lost_wall = time.monotonic(), timezone.now()
    celery_processes.worker(concurrency=1)
    run, _ = wait_finished(run, timeout_s=RUN_TIMEOUT_S)
    recovered_s = time.monotonic() - lost_at

    print(f"\nmessages lost → the sweep re-sent the ranking, done in {recovered_s:.1f} s")
    assert_one_complete_result(run)
    assert run.swept_at is not None
    assert run.attempts == 2  # the first start, then the sweep's
    # The sweep re-sent it once it was idle for STALE_AFTER_S, at its next pass (a few
    # seconds of slack for process start-up); the chunks' own time is not the sweep's.
    resent_after_s = (run.swept_at - lost_wall).total_seconds()
    assert resent_after_s < STALE_AFTER_S + SWEEP_INTERVAL_S + 5

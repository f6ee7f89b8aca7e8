"""Redis killed (SIGKILL) and started again from its append-only file while 5 rankings
wait in the queue: the messages survive, the worker reconnects and takes work again within
10 s, and every ranking completes."""

import time

import pytest

from simulator.models import RunStatus, SimulationRun
from tests.reliability.conftest import CeleryFactory, CeleryProcess, RedisServer, wait_for
from tests.reliability.runs import assert_one_complete_result, ranking_queue, run_state

# One storage tier of 1-GPU builds is one chunk (~2 s); two sequence lengths make the
# inputs, and so the runs, distinct.
WAITING = [
    ({"seq_len": seq_len}, {"gpu_count_max": 1, "storage_tiers": [tier]})
    for seq_len in (2048, 4096)
    for tier in ("gen4_x1", "gen5_x1", "gen4_raid0_x4")
][:5]
RESUME_WITHIN_S = 10.0
RUN_TIMEOUT_S = 90.0
DOWN_S = 1.0


def _run_ids_in_broker(broker: RedisServer) -> set[str]:
    """Ids of the runs named by a message waiting in the queue or held unacknowledged."""
    client = broker.client()
    messages = client.lrange("celery", 0, -1) + client.hvals("unacked")
    ids = {str(pk) for pk in SimulationRun.objects.values_list("pk", flat=True)}
    return {run_id for run_id in ids for m in messages if run_id.encode() in m}


def _received(worker: CeleryProcess) -> int:
    return worker.log().count("] received")


def _all_finished(runs: list[SimulationRun]) -> bool:
    return all(run_state(run.pk).is_finished for run in runs)


@pytest.mark.services
def test_rankings_queued_while_redis_restarts_all_complete(
    celery_processes: CeleryFactory,
) -> None:
    broker = celery_processes.broker
    worker = celery_processes.worker(concurrency=1)
    celery_processes.beat()
    # A 3-chunk ranking keeps the worker busy, so the next five wait in the queue.
    blocker = ranking_queue()
    wait_for(
        lambda: any(t["name"] == "simulator.ranking_chunk" for t in worker.active_tasks()),
        timeout_s=RUN_TIMEOUT_S,
        what="the first chunk to run",
    )
    runs = [ranking_queue(workload=workload, **ranking) for workload, ranking in WAITING]
    queued = {str(r.pk) for r in runs if run_state(r.pk).status == RunStatus.QUEUED}

    waiting = _run_ids_in_broker(broker)
    broker.kill()
    time.sleep(DOWN_S)
    broker.start()
    restarted = time.monotonic()
    survived = _run_ids_in_broker(broker)
    received = _received(worker)
    resumed_s = wait_for(
        lambda: _received(worker) > received,
        timeout_s=RESUME_WITHIN_S,
        what="the worker to take a message after the restart",
    )
    wait_for(lambda: _all_finished([blocker, *runs]), timeout_s=RUN_TIMEOUT_S, what="the runs")
    finished_s = time.monotonic() - restarted

    print(
        f"\nRedis restart: {len(queued)} runs queued, worker took work again after"
        f" {resumed_s:.1f} s, all done {finished_s:.1f} s after the restart"
    )
    assert queued == {str(r.pk) for r in runs}
    assert queued <= waiting <= survived  # the append-only file kept their messages
    for run in [blocker, *runs]:
        assert_one_complete_result(run_state(run.pk))

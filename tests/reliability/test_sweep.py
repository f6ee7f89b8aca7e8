"""The sweep of stalled rankings, against a real Redis broker (no worker: what it sends
stays in the queue to be counted)."""

import json
from base64 import b64decode
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from simulator.models import RunChunk, RunKind, RunStatus, SimulationRun
from simulator.services.runs import simulation_run_heartbeat
from simulator.services.sweep import simulation_run_sweep_stuck
from tests.reliability.conftest import RedisServer, wait_for

IDLE_S = 600
THRESHOLD_S = 300
QUEUE = "celery"


def _ranking(*, idle_s: float = IDLE_S, **fields: Any) -> SimulationRun:
    run = SimulationRun.objects.create(
        kind=RunKind.RANKING, input={}, input_hash="a" * 64, engine_version="test", **fields
    )
    # created_at is set on insert: age the row as if it had waited that long.
    SimulationRun.objects.filter(pk=run.pk).update(
        created_at=timezone.now() - timedelta(seconds=idle_s)
    )
    return run


def _sent(broker: RedisServer) -> list[tuple[str, list[Any]]]:
    """(task name, args) of each message waiting in the queue."""
    messages = [json.loads(raw) for raw in broker.client().lrange(QUEUE, 0, -1)]
    # A Celery message body is base64 JSON: [args, kwargs, embed].
    return [(m["headers"]["task"], json.loads(b64decode(m["body"]))[0]) for m in messages]


@pytest.fixture
def sweep(own_redis: RedisServer, django_capture_on_commit_callbacks: Any) -> Callable[..., Any]:
    def run_sweep(**kwargs: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return simulation_run_sweep_stuck(older_than_s=THRESHOLD_S, **kwargs)

    return run_sweep


@pytest.mark.services
@pytest.mark.django_db
def test_the_sweep_sends_an_idle_ranking_again(
    own_redis: RedisServer, sweep: Callable[..., Any]
) -> None:
    run = _ranking(status=RunStatus.RUNNING, attempts=1)

    report = sweep()

    assert report.resent == [str(run.pk)]
    assert _sent(own_redis) == [("simulator.ranking_start", [str(run.pk)])]
    run.refresh_from_db()
    assert run.swept_at is not None
    assert run.status == RunStatus.RUNNING


@pytest.mark.services
@pytest.mark.django_db
def test_the_sweep_leaves_a_ranking_with_a_recent_chunk_alone(
    own_redis: RedisServer, sweep: Callable[..., Any]
) -> None:
    run = _ranking(status=RunStatus.RUNNING, attempts=1, chunks_total=2)
    RunChunk.objects.create(run=run, index=0, result={"rows": [], "excluded": []})

    report = sweep()

    assert report.resent == report.failed == []
    assert _sent(own_redis) == []


@pytest.mark.services
@pytest.mark.django_db
def test_a_ranking_sent_again_is_not_sent_again_before_the_threshold(
    own_redis: RedisServer, sweep: Callable[..., Any]
) -> None:
    _ranking(status=RunStatus.QUEUED)
    sweep()
    own_redis.client().delete(QUEUE)  # as if a worker had taken it

    report = sweep()

    assert report.resent == []
    assert _sent(own_redis) == []


@pytest.mark.services
@pytest.mark.django_db
def test_the_sweep_fails_a_ranking_started_too_often_with_a_readable_error(
    own_redis: RedisServer, sweep: Callable[..., Any]
) -> None:
    run = _ranking(status=RunStatus.RUNNING, attempts=3)

    report = sweep(max_attempts=3)

    assert report.failed == [str(run.pk)]
    assert _sent(own_redis) == []
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error.startswith("The ranking was started 3 times and never finished")
    assert run.finished_at is not None


@pytest.mark.services
@pytest.mark.django_db
def test_the_sweep_waits_while_messages_wait_in_the_queue(
    own_redis: RedisServer, sweep: Callable[..., Any]
) -> None:
    _ranking(status=RunStatus.QUEUED)
    own_redis.client().lpush(QUEUE, "a message of another run")

    report = sweep()

    assert report.resent == []
    assert report.skipped == "1 messages wait"


@pytest.mark.services
@pytest.mark.django_db
def test_the_sweep_leaves_finished_rankings_and_single_runs_alone(
    own_redis: RedisServer, sweep: Callable[..., Any]
) -> None:
    _ranking(status=RunStatus.DONE)
    _ranking(status=RunStatus.FAILED)
    single = _ranking(status=RunStatus.RUNNING)
    SimulationRun.objects.filter(pk=single.pk).update(kind=RunKind.SINGLE)

    report = sweep()

    assert report.resent == report.failed == []


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_ranking_whose_worker_beats_is_not_stale_however_long_its_chunk_runs(
    own_redis: RedisServer, sweep: Callable[..., Any]
) -> None:
    run = _ranking(status=RunStatus.RUNNING, attempts=1)  # idle for IDLE_S by its timestamps

    with simulation_run_heartbeat(run_id=str(run.pk), every_s=0.05):
        # The heartbeat thread's own connection stamps the run, now and every 0.05 s.
        first = _heartbeat_after(run, None)
        second = _heartbeat_after(run, first)
        report = sweep()

    assert second > first
    assert report.resent == []
    assert _sent(own_redis) == []


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_once_the_heartbeat_stops_the_run_is_stale_after_the_threshold(
    own_redis: RedisServer, sweep: Callable[..., Any]
) -> None:
    run = _ranking(status=RunStatus.RUNNING, attempts=1)
    with simulation_run_heartbeat(run_id=str(run.pk), every_s=0.05):
        _heartbeat_after(run, None)
    SimulationRun.objects.filter(pk=run.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=THRESHOLD_S + 1)
    )

    assert sweep().resent == [str(run.pk)]


def _heartbeat_after(run: SimulationRun, previous: Any) -> Any:
    """The run's heartbeat_at once it is set and later than `previous`."""
    stamps: list[Any] = []

    def beat_seen() -> bool:
        stamps[:] = [SimulationRun.objects.get(pk=run.pk).heartbeat_at]
        return stamps[0] is not None and (previous is None or stamps[0] > previous)

    wait_for(beat_seen, timeout_s=5.0, what="a heartbeat")
    return stamps[0]

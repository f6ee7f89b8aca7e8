"""Celery tasks of the simulator: adapters that take a run id and call one service.

Delivery is at least once (acks_late, reject on worker lost): every service they call is
idempotent, and the SimulationRun row is the source of truth.
"""

from typing import Any

from celery import Task, group, shared_task
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerError

from catalog.services import price_changes_refresh_send
from simulator.services import rankings as ranking_services
from simulator.services.runs import (
    simulation_run_fail,
    simulation_run_heartbeat,
    simulation_run_start,
)
from simulator.services.sweep import simulation_run_sweep_stuck

# Database hiccups are worth a retry; anything else is a bug or bad input and fails the run.
TRANSIENT_ERRORS = (OperationalError, InterfaceError)
RETRY_POLICY: dict[str, Any] = {
    "autoretry_for": TRANSIENT_ERRORS,
    "retry_backoff": True,
    "retry_backoff_max": 30,
    "max_retries": 3,
    "acks_late": True,
    "reject_on_worker_lost": True,
}


class RunTask(Task):  # type: ignore[type-arg]
    """Marks the run failed, with a readable error, once retries are exhausted."""

    def on_failure(
        self,
        exc: Exception,
        task_id: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        einfo: Any,
    ) -> None:
        run_id = kwargs.get("run_id") or (args[0] if args else None)
        if run_id is None or isinstance(exc, BrokerError):
            # The broker was away while fanning out: the run is intact, and the sweep
            # sends it again once the broker is back.
            return
        simulation_run_fail(run_id=str(run_id), error=failure_message(exc))


def failure_message(exc: BaseException) -> str:
    if isinstance(exc, SoftTimeLimitExceeded):
        return "The simulation ran past its time limit and was stopped."
    if isinstance(exc, TimeLimitExceeded):
        # The worker killed the task's process: the hard limit, seen from the parent.
        return (
            "The simulation ran past its hard time limit"
            f" ({settings.CELERY_TASK_TIME_LIMIT} s) and was stopped."
        )
    return f"{type(exc).__name__}: {exc}"


@shared_task(name="simulator.ping")
def ping(payload: str = "pong") -> dict[str, str]:
    """Proves the path web → broker → worker → result backend end to end."""
    return {"reply": payload}


@shared_task(name="simulator.ranking_start", base=RunTask, **RETRY_POLICY)
def ranking_start(run_id: str) -> None:
    """Fan a queued ranking out as one task per chunk that is not stored yet."""
    run = simulation_run_start(run_id=run_id)
    if run is None:
        return
    pending = ranking_services.ranking_pending_chunks(run=run)
    if not pending:
        ranking_services.ranking_merge(run_id=run_id)
        return
    group(ranking_chunk.s(run_id, index) for index in pending).apply_async()


@shared_task(name="simulator.ranking_chunk", base=RunTask, **RETRY_POLICY)
def ranking_chunk(run_id: str, index: int) -> None:
    with simulation_run_heartbeat(run_id=run_id, every_s=settings.RUN_HEARTBEAT_S):
        ranking_services.ranking_chunk_process(run_id=run_id, index=index)


@shared_task(name="simulator.rankings_refresh_defaults", **RETRY_POLICY)
def rankings_refresh_defaults() -> list[str]:
    """Queue the default rankings the current parts and engine lack (after a price change:
    none, unless a part was added; rankings follow prices when they are read)."""
    return ranking_services.ranking_defaults_enqueue()


@shared_task(name="simulator.runs_sweep", **RETRY_POLICY)
def runs_sweep() -> dict[str, object]:
    """Periodic (Celery beat): re-send rankings that stopped making progress, and the
    rankings refresh owed for price changes made while the broker was down."""
    report = simulation_run_sweep_stuck(older_than_s=settings.RUN_SWEEP_STALE_AFTER_S)
    return {**report.as_json(), "price_changes_announced": price_changes_refresh_send()}

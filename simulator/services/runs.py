"""The life of a SimulationRun: create (or reuse), start, record chunks, finish, fail.

The run row is the source of truth; every step is idempotent so that a task delivered twice
(acks_late, worker lost) changes nothing the second time.
"""

import hashlib
import json
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from typing import Any

from django.db import DatabaseError, connection, transaction
from django.db.models import F, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from simulator.models import (
    UNFINISHED_STATUSES,
    RunChunk,
    RunKind,
    RunStatus,
    SimulationRun,
)

# Progress shown once a run starts, before any chunk is done, so a client sees it moving.
STARTED_PROGRESS_PCT = 1
# Progress the chunks can reach; the merge takes the last step to 100.
CHUNKS_PROGRESS_PCT = 95
# What a client is told to wait when the queue is full: about one ranking's run time.
QUEUE_FULL_RETRY_AFTER_S = 30
# pg_advisory_xact_lock key of the queue cap (any constant no other code locks).
QUEUE_LOCK_KEY = 0x51_4D_41_58  # "QMAX"

logger = logging.getLogger(__name__)


class QueueFullError(Exception):
    """Too many runs are waiting: the client should come back after `retry_after_s`."""

    def __init__(self, *, waiting: int, retry_after_s: int) -> None:
        super().__init__(f"{waiting} simulations are already waiting; try again later.")
        self.retry_after_s = retry_after_s


def simulation_input_hash(
    *, body: dict[str, Any], engine_version: str, price_epoch: str, hardware_epoch: str = ""
) -> str:
    """A ranking's key has a hardware epoch and no price epoch (its prices are read when it
    is shown); a single build's has neither (its prices are in its input)."""
    key: dict[str, Any] = {"input": body, "engine": engine_version, "prices": price_epoch}
    if hardware_epoch:
        key["hardware"] = hardware_epoch
    canonical = json.dumps(key, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def simulation_run_get_or_create(
    *,
    kind: RunKind,
    body: dict[str, Any],
    engine_version: str,
    price_epoch: str,
    prices_observed_on: Callable[[], date | None],
    hardware_epoch: str = "",
    plan: dict[str, Any] | None = None,
    chunks_total: int = 0,
    max_waiting: int | None = None,
) -> tuple[SimulationRun, bool]:
    """The stored run for this input and these epochs if one is done or under way (not
    failed), else a new queued one. Returns (run, created). With `max_waiting`, refuses
    (QueueFullError) to queue a new run while that many of its kind are unfinished.
    `prices_observed_on` is called only when a run is created."""
    input_hash = simulation_input_hash(
        body=body,
        engine_version=engine_version,
        price_epoch=price_epoch,
        hardware_epoch=hardware_epoch,
    )
    # Unlocked first: a repeated request finds its run, and a full queue answers at once.
    # Under a flood of new requests the queue is full nearly all the time, and waiting for
    # the lock only to be refused held a web thread per request (docs/benchmarks.md, Load).
    existing = _run_for_input(input_hash)
    if existing is not None:
        return existing, False
    if max_waiting is not None:
        _queue_room_check(kind=kind, max_waiting=max_waiting)
    fields = {
        "kind": kind,
        "input": body,
        "input_hash": input_hash,
        "engine_version": engine_version,
        "price_epoch": price_epoch,
        "hardware_epoch": hardware_epoch,
        "plan": plan or {},
        "chunks_total": chunks_total,
    }
    with transaction.atomic():
        _input_lock(input_hash)
        if max_waiting is None:
            # Again under the lock: concurrent identical requests (a client's retries) must
            # not each store a run of the same input.
            existing = _run_for_input(input_hash)
            if existing is not None:
                return existing, False
            run = SimulationRun.objects.create(**fields, prices_observed_on=prices_observed_on())
            return run, True
        _queue_lock()
        # Again under the lock: count-then-create must not race (see _queue_lock).
        existing = _run_for_input(input_hash)
        if existing is not None:
            return existing, False
        _queue_room_check(kind=kind, max_waiting=max_waiting)
        run = SimulationRun.objects.create(**fields, prices_observed_on=prices_observed_on())
    return run, True


def _run_for_input(input_hash: str) -> SimulationRun | None:
    return (
        SimulationRun.objects.filter(input_hash=input_hash)
        .exclude(status=RunStatus.FAILED)
        .order_by("-created_at")
        # A ranking's result is megabytes of JSON: read it only where it is used.
        .defer("result", "plan")
        .first()
    )


def _queue_room_check(*, kind: RunKind, max_waiting: int) -> None:
    waiting = SimulationRun.objects.filter(kind=kind, status__in=UNFINISHED_STATUSES).count()
    if waiting >= max_waiting:
        raise QueueFullError(waiting=waiting, retry_after_s=QUEUE_FULL_RETRY_AFTER_S)


def _input_lock(input_hash: str) -> None:
    """Check-then-create of one input under one lock (PostgreSQL: a transaction-scoped
    advisory lock keyed by the input's hash; SQLite already serializes writers)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            # 60 bits of the hash: a bigint, and apart from QUEUE_LOCK_KEY but by chance.
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [int(input_hash[:15], 16)])


def _queue_lock() -> None:
    """Count-then-create under one lock: without it, concurrent requests each see one free
    place and the queue overshoots its cap (the load test saw 21 of 20). PostgreSQL: a
    transaction-scoped advisory lock; SQLite already serializes writers."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [QUEUE_LOCK_KEY])


def simulation_run_start(*, run_id: str) -> SimulationRun | None:
    """Mark a queued (or redelivered running) run as running; None if it is finished or
    gone (a message can outlive its run, e.g. after the table was cleared)."""
    with transaction.atomic():
        run = SimulationRun.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.is_finished:
            return None
        if run.status == RunStatus.QUEUED:
            run.status = RunStatus.RUNNING
            run.started_at = timezone.now()
            run.progress_pct = max(run.progress_pct, STARTED_PROGRESS_PCT)
        run.attempts += 1
        run.save(update_fields=["status", "started_at", "progress_pct", "attempts"])
    return run


def simulation_run_record_chunk(*, run_id: str, index: int, result: Any) -> bool:
    """Store one chunk's result once; True when this call completed the last chunk."""
    with transaction.atomic():
        _, created = RunChunk.objects.get_or_create(
            run_id=run_id, index=index, defaults={"result": result}
        )
        if not created:
            return False
        SimulationRun.objects.filter(pk=run_id).update(chunks_done=F("chunks_done") + 1)
        # Not the plan or the result: a ranking's plan is megabytes of JSON to decode.
        run = (
            SimulationRun.objects.select_for_update()
            .only("pk", "progress_pct", "chunks_done", "chunks_total")
            .get(pk=run_id)
        )
        run.progress_pct = max(
            run.progress_pct, CHUNKS_PROGRESS_PCT * run.chunks_done // max(run.chunks_total, 1)
        )
        run.save(update_fields=["progress_pct"])
        return run.chunks_done == run.chunks_total


def simulation_run_finish(*, run_id: str, result: dict[str, Any]) -> None:
    with transaction.atomic():
        run = (
            SimulationRun.objects.select_for_update()
            .only("pk", "status", "started_at", "finished_at", "progress_pct")
            .get(pk=run_id)
        )
        if run.is_finished:
            return
        run.status = RunStatus.DONE
        run.result = result
        run.progress_pct = 100
        run.finished_at = timezone.now()
        run.started_at = run.started_at or run.finished_at
        run.save(update_fields=["status", "result", "progress_pct", "finished_at", "started_at"])


def simulation_run_fail(*, run_id: str, error: str) -> None:
    with transaction.atomic():
        run = SimulationRun.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.is_finished:
            return
        run.status = RunStatus.FAILED
        run.error = error
        run.finished_at = timezone.now()
        run.save(update_fields=["status", "error", "finished_at"])


def simulation_run_execute_inline(
    *, run: SimulationRun, compute: Callable[[dict[str, Any]], dict[str, Any]]
) -> SimulationRun:
    """Run a small simulation in the request: compute, then finish the run in one UPDATE
    (or fail it and re-raise). No "running" step is stored: nobody could watch it, and the
    four statements it took were a fifth of a single-build request's time (Load, b)."""
    if run.is_finished:
        return run
    try:
        result = compute(run.input)
    except Exception as exc:
        simulation_run_fail(run_id=str(run.pk), error=f"{type(exc).__name__}: {exc}")
        raise
    now = timezone.now()
    # A concurrent identical request may have finished it first; then its result stands.
    finished_here = SimulationRun.objects.filter(pk=run.pk, status__in=UNFINISHED_STATUSES).update(
        status=RunStatus.DONE,
        result=result,
        progress_pct=100,
        started_at=Coalesce("started_at", Value(now)),
        finished_at=now,
        attempts=F("attempts") + 1,
    )
    if not finished_here:
        run.refresh_from_db()
        return run
    # What the UPDATE wrote, without reading it back (a query less a request). Nothing else
    # starts an inline run, so the stored started_at was empty unless this copy has it.
    run.status, run.result, run.progress_pct = RunStatus.DONE, result, 100
    run.started_at, run.finished_at = run.started_at or now, now
    run.attempts += 1
    return run


@contextmanager
def simulation_run_heartbeat(*, run_id: str, every_s: float) -> Iterator[None]:
    """While the block computes a chunk of the run, stamp the run's heartbeat_at now and every
    `every_s` seconds, from a thread of this process. A worker killed with the chunk stops
    beating, so the sweep sees the run idle within seconds and sends it again, instead of
    waiting out the task time limit or the broker's visibility timeout (minutes). The thread
    has its own database connection, closed when the block ends."""
    stop = threading.Event()

    def beat() -> None:
        try:
            while True:
                SimulationRun.objects.filter(pk=run_id).update(heartbeat_at=timezone.now())
                if stop.wait(every_s):
                    return
        except DatabaseError:  # the run is unharmed; the sweep may only send it early
            logger.warning("heartbeat of run %s stopped", run_id, exc_info=True)
        finally:
            connection.close()

    thread = threading.Thread(target=beat, name=f"heartbeat-{run_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=every_s)

"""The sweep: rankings that stopped making progress are sent again, or failed for good.

Celery delivers at least once (acks_late, reject on worker lost), yet a message can still
vanish: a broker that lost its data, a publish that failed while the broker was away, a
worker killed with its messages unacked. The SimulationRun table is the source of truth, so
a periodic sweep (Celery beat → simulator.runs_sweep) looks there for rankings queued or
running without progress and sends `simulator.ranking_start` again. That task is idempotent:
the plan is kept and only chunks not stored yet are sent. A run started `max_attempts` times
without finishing is failed with a readable error instead of being sent forever.
"""

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import DateTimeField, F, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone
from kombu.exceptions import ChannelError

from simulator.models import UNFINISHED_STATUSES, RunChunk, RunKind, SimulationRun
from simulator.services.runs import simulation_run_fail

logger = logging.getLogger(__name__)


@dataclass(slots=True, kw_only=True)
class SweepReport:
    """What one sweep did: run ids sent again and failed; `skipped` says why it did nothing."""

    resent: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    skipped: str = ""

    def as_json(self) -> dict[str, object]:
        return {"resent": self.resent, "failed": self.failed, "skipped": self.skipped}


def broker_queue_waiting() -> int | None:
    """Messages waiting in the default queue (not those a worker holds); None if the broker
    cannot be reached."""
    queue = current_app.conf.task_default_queue
    try:
        with current_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1)
            channel: Any = conn.default_channel  # typed as the abstract StdChannel
            try:
                _, waiting, _ = channel.queue_declare(queue=queue, passive=True)
            except ChannelError:  # Redis keeps no key for an empty queue: "not found"
                return 0
    except Exception:  # any broker error means "unknown": the sweep waits for the next turn
        logger.warning("sweep: the broker cannot be reached", exc_info=True)
        return None
    return int(waiting)


def _last_activity() -> Greatest:
    """The newest of creation, start, the last re-send, the last stored chunk and the last
    heartbeat of a worker computing one."""
    last_chunk = Subquery(
        RunChunk.objects.filter(run=OuterRef("pk"))
        .order_by("-created_at")
        .values("created_at")[:1],
        output_field=DateTimeField(),
    )
    created = F("created_at")
    return Greatest(
        created,
        Coalesce("started_at", created),
        Coalesce("swept_at", created),
        Coalesce(last_chunk, created),
        Coalesce("heartbeat_at", created),
        output_field=DateTimeField(),
    )


def simulation_run_stalled_list(*, before: datetime) -> QuerySet[SimulationRun]:
    """Unfinished rankings with no sign of progress since `before`."""
    return (
        SimulationRun.objects.filter(kind=RunKind.RANKING, status__in=UNFINISHED_STATUSES)
        .alias(last_activity=_last_activity())
        .filter(last_activity__lt=before)
        .order_by("created_at")
    )


def _give_up_message(run: SimulationRun) -> str:
    return (
        f"The ranking was started {run.attempts} times and never finished: each time its"
        " worker was lost or a task ran past the time limit"
        f" ({settings.CELERY_TASK_TIME_LIMIT} s). Submit it again to retry."
    )


def _resend(run: SimulationRun, now: datetime) -> None:
    run.swept_at = now
    run.save(update_fields=["swept_at"])
    run_id = str(run.pk)
    transaction.on_commit(lambda: current_app.send_task("simulator.ranking_start", args=[run_id]))


def simulation_run_sweep_stuck(
    *, older_than_s: float, max_attempts: int | None = None
) -> SweepReport:
    """Send again every ranking idle for `older_than_s`, or fail it once it was started
    `max_attempts` times (RUN_MAX_ATTEMPTS). Does nothing while messages wait in the queue:
    a run waiting behind others is not stuck, and re-sending it would only add to the queue."""
    limit = settings.RUN_MAX_ATTEMPTS if max_attempts is None else max_attempts
    report = SweepReport()
    waiting = broker_queue_waiting()
    if waiting != 0:
        report.skipped = "broker unreachable" if waiting is None else f"{waiting} messages wait"
        return report
    now = timezone.now()
    with transaction.atomic():
        stalled = simulation_run_stalled_list(before=now - timedelta(seconds=older_than_s))
        # Rows a worker holds are making progress right now: leave them alone.
        for run in stalled.select_for_update(skip_locked=True):
            if run.attempts >= limit:
                simulation_run_fail(run_id=str(run.pk), error=_give_up_message(run))
                report.failed.append(str(run.pk))
            else:
                _resend(run, now)
                report.resent.append(str(run.pk))
    if report.resent or report.failed:
        logger.warning("sweep: re-sent %s, failed %s", report.resent, report.failed)
    return report

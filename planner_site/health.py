"""Readiness of the three things the planner needs: database, broker, a live worker.

A worker's answer to ping is kept for HEALTHZ_WORKER_CACHE_S in each web process, and a ping
returns at the first reply, so a healthy /healthz costs a SELECT 1 and a broker connection,
not a round of waiting for every worker.
"""

import threading
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from kombu import Connection

from planner_site.celery import app

UP = "up"
DOWN = "down"
UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True, kw_only=True)
class ComponentHealth:
    status: str
    detail: str


def _error(exc: BaseException) -> ComponentHealth:
    return ComponentHealth(status=DOWN, detail=f"{type(exc).__name__}: {exc}".strip())


def _database_health() -> ComponentHealth:
    try:
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:  # any driver error means "down"; the reason is reported
        return _error(exc)
    return ComponentHealth(status=UP, detail=connection.vendor)


_last_worker_up: tuple[float, ComponentHealth] | None = None
_last_worker_lock = threading.Lock()


def _workers_health(conn: Connection) -> ComponentHealth:
    """A worker that answered ping within HEALTHZ_WORKER_CACHE_S is taken as alive; else one
    is pinged (the first reply is enough)."""
    global _last_worker_up
    with _last_worker_lock:
        cached = _last_worker_up
    if cached is not None and time.monotonic() - cached[0] < settings.HEALTHZ_WORKER_CACHE_S:
        return cached[1]
    try:
        replies = app.control.ping(
            timeout=settings.HEALTHZ_WORKER_TIMEOUT_S, connection=conn, limit=1
        )
    except Exception as exc:
        return _error(exc)
    names = sorted(name for reply in replies or [] for name in reply)
    if not names:
        return ComponentHealth(status=DOWN, detail="no worker answered ping")
    health = ComponentHealth(status=UP, detail=", ".join(names))
    with _last_worker_lock:
        _last_worker_up = (time.monotonic(), health)
    return health


def _broker_and_workers_health() -> tuple[ComponentHealth, ComponentHealth]:
    # The URL is read at call time so that a changed setting is honoured.
    with app.connection_for_write(url=settings.CELERY_BROKER_URL) as conn:
        try:
            conn.ensure_connection(
                max_retries=1, interval_start=0, timeout=settings.HEALTHZ_BROKER_TIMEOUT_S
            )
        except Exception as exc:
            unknown = ComponentHealth(status=UNKNOWN, detail="broker is down: cannot ask workers")
            return _error(exc), unknown
        broker = ComponentHealth(status=UP, detail=conn.transport.driver_name)
        return broker, _workers_health(conn)


def health_check() -> dict[str, ComponentHealth]:
    """State of each component, by name."""
    broker, workers = _broker_and_workers_health()
    return {"database": _database_health(), "broker": broker, "workers": workers}

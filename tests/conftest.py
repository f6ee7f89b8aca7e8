"""Shared fixtures: a real Celery worker process against the configured broker and the
test database, and the rule for tests that need PostgreSQL + Redis."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.backends.signals import connection_created

from planner_site.celery import app as celery_app

REPO_ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() == "true"
WORKER_START_TIMEOUT_S = 60.0


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """Each test starts with an empty cache: throttle histories (kept in Redis, shared by
    every process, as in production) and cached reports must not leak from test to test.
    (Engine tests may run without Django: `-p no:django`.)"""
    if apps.ready:
        from simulator.services.accuracy import accuracy_report_forget

        cache.clear()
        accuracy_report_forget()


def _name_the_session(sender: Any, connection: Any, **kwargs: Any) -> None:
    """Each PostgreSQL session of this process says which test process and thread opened it
    (the main thread, a live-server request, a heartbeat), so a report of the sessions that
    outlive a test names them."""
    if connection.vendor != "postgresql":
        return
    process = os.environ.get("PYTEST_XDIST_WORKER", "pytest")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('application_name', %s, false)",
            [f"{process} {threading.current_thread().name}"[:63]],
        )


connection_created.connect(_name_the_session, dispatch_uid="tests-name-the-session")


def _other_sessions(*, busy_only: bool) -> list[str]:
    """The other sessions on this test database, as pg_stat_activity lists them: all, or
    only those running a statement or holding a transaction open (which hold locks)."""
    if connection.vendor != "postgresql":
        return []
    busy = " AND state IS DISTINCT FROM 'idle'" if busy_only else ""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, application_name, state, left(query, 200) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND backend_type = 'client backend'" + busy
        )
        rows = cursor.fetchall()
    return [f"pid {pid} '{name}' ({state}): {query}" for pid, name, state, query in rows]


def _wait_for_no_other_sessions(*, busy_only: bool, timeout_s: float) -> list[str]:
    """Wait until `_other_sessions` is empty; what is left at the timeout."""
    deadline = time.monotonic() + timeout_s
    while (left := _other_sessions(busy_only=busy_only)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def _missing_services() -> list[str]:
    missing = []
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        missing.append("PostgreSQL (DATABASE_URL is not postgres://)")
    if not settings.CELERY_BROKER_URL.startswith("redis://"):
        missing.append("Redis (CELERY_BROKER_URL is not redis://)")
    return missing


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("services") is None:
        return
    missing = _missing_services()
    if not missing:
        return
    reason = "needs " + " and ".join(missing) + "; bin/test uses them when they run here"
    if IN_CI:
        pytest.fail("CI must not skip: " + reason)
    pytest.skip(reason)


def database_url_for_current_connection() -> str:
    """A DATABASE_URL naming the database the tests use (the test database)."""
    db: dict[str, Any] = connection.settings_dict
    if db["ENGINE"] == "django.db.backends.sqlite3":
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{db['NAME']}"


def _wait_for_worker(hostname: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + WORKER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"celery worker exited early with code {proc.returncode}")
        replies = celery_app.control.ping(destination=[hostname], timeout=1.0)
        if any(hostname in reply for reply in replies or []):
            return
    raise RuntimeError(f"celery worker {hostname} did not answer ping in time")


_running_worker: list[str] = []  # the session worker's hostname while it runs


@pytest.fixture(scope="session")
def celery_worker_process(
    django_db_setup: None, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A real `celery worker` subprocess bound to the test database; yields its hostname."""
    hostname = f"test-{uuid.uuid4().hex[:8]}@localhost"
    log_path = tmp_path_factory.mktemp("worker") / "worker.log"
    with django_db_blocker.unblock():
        database_url = database_url_for_current_connection()
    env = {
        **os.environ,
        "PGAPPNAME": f"celery worker {hostname}",  # named in _other_sessions' reports
        "DJANGO_SETTINGS_MODULE": "planner_site.settings.test",
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "OMP_NUM_THREADS": "1",
    }
    command = [
        sys.executable, "-m", "celery", "-A", "planner_site", "worker",
        "--pool=solo", "--concurrency=1", "--prefetch-multiplier=1", f"--hostname={hostname}",
        "--without-gossip", "--without-mingle", "--loglevel=INFO",
    ]  # fmt: skip
    # Messages left by an earlier, interrupted session name runs that no longer exist.
    celery_app.control.purge()
    with log_path.open("wb") as log:
        proc = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=log, stderr=log)
        try:
            _wait_for_worker(hostname, proc)
            _running_worker.append(hostname)
            yield hostname
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}\n--- worker log ---\n{log_path.read_text()}") from exc
        finally:
            _running_worker.clear()
            _paused_worker.clear()
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _flushes_tables(request: pytest.FixtureRequest) -> bool:
    """Whether this test runs as a TransactionTestCase, whose teardown TRUNCATEs every table:
    asked for by fixture (transactional_db, live_server) or by the django_db marker's
    transaction/reset_sequences arguments, as pytest-django's own helper decides."""
    if {"transactional_db", "live_server"} & set(request.fixturenames):
        return True
    marker = request.node.get_closest_marker("django_db")
    return marker is not None and bool(
        marker.kwargs.get("transaction") or marker.kwargs.get("reset_sequences")
    )


_paused_worker: list[str] = []  # the session worker's hostname while it consumes nothing


def _worker_consume(hostname: str, *, consume: bool) -> None:
    """Make the worker stop or start taking tasks from the queue. It answers a control
    message only between tasks (solo pool), so once it has answered "stop" nothing of it
    runs, and nothing starts, until it is told to start again."""
    queue = celery_app.conf.task_default_queue
    command = celery_app.control.add_consumer if consume else celery_app.control.cancel_consumer
    replies = command(queue, destination=[hostname], reply=True, timeout=WORKER_IDLE_TIMEOUT_S)
    if not replies:
        what = "start" if consume else "stop"
        raise RuntimeError(
            f"celery worker {hostname} did not answer '{what} consuming' within "
            f"{WORKER_IDLE_TIMEOUT_S} s"
        )


@pytest.fixture(autouse=True)
def _quiet_before_flush(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test whose tables are flushed makes sure, before the flush, that nothing else reads
    them: TRUNCATE locks the tables one by one, and a statement of another session joining
    two of them deadlocks with it, which PostgreSQL breaks by failing one and leaving the
    rows behind for the next test. The session's worker (which also runs what a test's
    writes queue, a price change's refresh, when the test does not ask for it) stops taking
    tasks, and what the test queued is dropped, until a later test starts; then the flush
    waits for any statement still running elsewhere (a live-server request of a page the test
    has closed)."""
    if "celery_worker_process" in request.fixturenames:
        hostname: str | None = request.getfixturevalue("celery_worker_process")
    else:
        hostname = _running_worker[0] if _running_worker else None
    if hostname is not None and hostname in _paused_worker:
        _worker_consume(hostname, consume=True)
        _paused_worker.clear()
    if not _flushes_tables(request):
        yield
        return
    # Set up before this fixture's teardown runs, so torn down (flushed) after it.
    request.getfixturevalue("_django_db_helper")
    yield
    if hostname is not None:
        _worker_consume(hostname, consume=False)
        _paused_worker.append(hostname)
        celery_app.control.purge()
    left = _wait_for_no_other_sessions(busy_only=True, timeout_s=OTHER_SESSIONS_TIMEOUT_S)
    if left:
        raise RuntimeError(
            f"still reading the test database {OTHER_SESSIONS_TIMEOUT_S} s after the test: "
            + "; ".join(left)
        )


WORKER_IDLE_TIMEOUT_S = 60
OTHER_SESSIONS_TIMEOUT_S = 30


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """pytest-django's test databases, dropped (by its teardown, after this one's) only once
    the sessions of the worker and of the live server's threads have closed: one left open
    makes the drop fail and leaves the database behind."""
    yield
    with django_db_blocker.unblock():
        left = _wait_for_no_other_sessions(busy_only=False, timeout_s=OTHER_SESSIONS_TIMEOUT_S)
        connection.close()
    if left:
        raise RuntimeError("still connected to the test database: " + "; ".join(left))


@pytest.fixture(autouse=True)
def _no_remembered_rankings_answers() -> None:
    """Web processes keep GET /api/rankings answers for a second (simulator.apis); a test
    starts, like a fresh process, without those of the test before. (Engine tests may run
    without Django: `-p no:django`.)"""
    if not apps.ready:
        return
    from simulator.apis import _recent_answers

    _recent_answers.clear()

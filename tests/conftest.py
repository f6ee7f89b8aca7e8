"""Shared fixtures: a real Celery worker process against the configured broker and the
test database, and the rule for tests that need PostgreSQL + Redis."""

from __future__ import annotations

import os
import subprocess
import sys
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


def _queued_messages() -> int:
    """Messages waiting in the broker's default queue (sent, not yet taken by a worker)."""
    with celery_app.connection_for_read() as conn:
        # Not passive: kombu's Redis transport has no key for an empty queue, and a
        # declaration of the queue every worker declares changes nothing.
        channel: Any = conn.default_channel  # a kombu virtual channel, untyped in its stubs
        declared = channel.queue_declare(queue=celery_app.conf.task_default_queue)
    return int(declared.message_count)


def _worker_idle(hostname: str) -> bool:
    """Nothing waits in the queue, and the worker answers that it runs and holds nothing.
    The queue is read first: a message sent before that read is then either in the worker,
    where inspect shows it, or done. A solo-pool worker does not answer while a task runs,
    so no answer means busy, never idle."""
    if _queued_messages():
        return False
    inspect = celery_app.control.inspect(destination=[hostname], timeout=1.0, limit=1)
    for answers in (inspect.active(), inspect.reserved()):
        if not answers or hostname not in answers or answers[hostname]:
            return False
    return True


@pytest.fixture(autouse=True)
def _worker_idle_before_flush(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test whose tables are flushed waits, before the flush, until the live worker is
    idle: a refresh its price change queued would otherwise read the tables while TRUNCATE
    locks them (a deadlock PostgreSQL breaks by failing one)."""
    if "celery_worker_process" in request.fixturenames:
        hostname: str | None = request.getfixturevalue("celery_worker_process")
    else:
        # The session's worker, once started, also runs what this test's writes queue (a
        # price change's refresh), even when the test does not ask for it.
        hostname = _running_worker[0] if _running_worker else None
    if hostname is None or not _flushes_tables(request):
        yield
        return
    # Set up before this fixture's teardown runs, so torn down (flushed) after it.
    request.getfixturevalue("_django_db_helper")
    yield
    deadline = time.monotonic() + WORKER_IDLE_TIMEOUT_S
    while time.monotonic() < deadline:
        # What the test queued and no worker has taken is dropped, not run against tables
        # about to be emptied (the session worker prefetches one message: the one it runs);
        # then only the task running now is waited for.
        celery_app.control.purge()
        if _worker_idle(hostname):
            return
        time.sleep(0.1)
    raise RuntimeError(
        f"celery worker {hostname} still busy {WORKER_IDLE_TIMEOUT_S} s after the test"
    )


WORKER_IDLE_TIMEOUT_S = 60


@pytest.fixture(autouse=True)
def _no_remembered_rankings_answers() -> None:
    """Web processes keep GET /api/rankings answers for a second (simulator.apis); a test
    starts, like a fresh process, without those of the test before. (Engine tests may run
    without Django: `-p no:django`.)"""
    if not apps.ready:
        return
    from simulator.apis import _recent_answers

    _recent_answers.clear()

"""Real processes for the fault tests: an own redis-server (append-only, in a temporary
folder, on a free port: the machine's shared Redis is never touched), Celery worker and
beat subprocesses started and killed with chosen settings, and the committed catalog.

Every process here is started by these fixtures and killed by its own id (process group)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import kombu.pools
import pytest
import redis
from django.core.management import call_command

from planner_site.celery import app as celery_app
from tests.conftest import REPO_ROOT, database_url_for_current_connection

CATALOG_FIXTURES = sorted((REPO_ROOT / "catalog" / "fixtures").glob("*.json"))
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 10.0
POLL_S = 0.1
BROKER_DB = 0

# Settings of the worker and beat processes: Redis restores a lost worker's messages after
# VISIBILITY_TIMEOUT_S, checked every second, and the sweep runs every second and re-sends
# a ranking idle for STALE_AFTER_S (a chunk of the tests' rankings takes about 2 s).
VISIBILITY_TIMEOUT_S = 8
STALE_AFTER_S = 6
SWEEP_INTERVAL_S = 1
SCALED_TIMEOUTS = {
    "CELERY_VISIBILITY_TIMEOUT_S": str(VISIBILITY_TIMEOUT_S),
    "CELERY_UNACKED_RESTORE_INTERVAL_S": "1",
    "RUN_SWEEP_INTERVAL_S": str(SWEEP_INTERVAL_S),
    "RUN_SWEEP_STALE_AFTER_S": str(STALE_AFTER_S),
    "CELERY_TASK_SOFT_TIME_LIMIT_S": "30",
    "CELERY_TASK_TIME_LIMIT_S": "40",
}
PROCESS_ENV = {
    "DJANGO_SETTINGS_MODULE": "planner_site.settings.test",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    # Tasks of a few seconds each for the rankings of tests/reliability/runs.py.
    "RANKING_CHUNK_SIZE_TRAIN": "170",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(predicate: Callable[[], object], *, timeout_s: float, what: str) -> float:
    """Poll until `predicate()` is true; the seconds it took."""
    start = time.monotonic()
    while time.monotonic() - start < timeout_s:
        if predicate():
            return time.monotonic() - start
        time.sleep(POLL_S)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")


def _stop_group(proc: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
    """Signal the process group this fixture started (start_new_session), then reap it."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
    try:
        proc.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@contextlib.contextmanager
def web_server(
    command: list[str], *, env: dict[str, str], ready: Callable[[], object], log_path: Path
) -> Iterator[None]:
    """A web server started as `command` (its own process group) and polled until `ready()`;
    its log is shown if it never gets there. Stopped with SIGTERM, as a supervisor would."""
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            command, cwd=REPO_ROOT, env=env, stdout=log, stderr=log, start_new_session=True
        )
    try:
        wait_for(ready, timeout_s=START_TIMEOUT_S, what="the web server")
        yield
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n--- web server log ---\n{log_path.read_text()}") from None
    finally:
        _stop_group(proc, signal.SIGTERM)


# --- Redis ---------------------------------------------------------------------------------
@dataclass(kw_only=True)
class RedisServer:
    """A redis-server of our own that the tests may kill and start again on the same port,
    with the same append-only file."""

    port: int
    folder: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/{BROKER_DB}"

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, db=BROKER_DB, socket_timeout=5)

    def start(self) -> None:
        command = [
            "redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
            "--dir", str(self.folder), "--appendonly", "yes", "--appendfsync", "always",
            "--save", "", "--protected-mode", "no",
        ]  # fmt: skip
        log = (self.folder / "redis.log").open("ab")
        self.proc = subprocess.Popen(command, stdout=log, stderr=log, start_new_session=True)
        wait_for(self._answers, timeout_s=START_TIMEOUT_S, what="redis-server to answer")

    def kill(self) -> None:
        """SIGKILL: no shutdown save, only what the append-only file already holds."""
        assert self.proc is not None
        _stop_group(self.proc, signal.SIGKILL)
        self.proc = None

    def _answers(self) -> bool:
        try:
            return bool(self.client().ping())
        except redis.ConnectionError:
            return False


def _use_broker(url: str, env_url: str | None) -> None:
    """Point this process's Celery app (producer pools, control) at another broker.
    The environment variable wins over the setting in Celery, so it is set (or removed)."""
    if env_url is None:
        os.environ.pop("CELERY_BROKER_URL", None)
    else:
        os.environ["CELERY_BROKER_URL"] = env_url
    app: Any = celery_app  # the pools are private: what Celery itself resets after a fork
    app.conf.broker_url = url
    # app.pool is kombu's process-wide pool for that URL, and kombu's producer pools keep
    # a reference to it: closing one without clearing the registry leaves a closed pool
    # behind for the next test on the old URL ("Acquire on closed pool"). Reset them all.
    kombu.pools.reset()
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def own_redis(tmp_path: Path, settings: Any) -> Iterator[RedisServer]:
    server = RedisServer(port=free_port(), folder=tmp_path / "redis")
    server.folder.mkdir()
    server.start()
    previous_env = os.environ.get("CELERY_BROKER_URL")
    previous_url = celery_app.conf.broker_url
    settings.CELERY_BROKER_URL = server.url
    _use_broker(server.url, server.url)
    try:
        yield server
    finally:
        _use_broker(previous_url, previous_env)
        if server.proc is not None:
            server.kill()


# --- the catalog --------------------------------------------------------------------------
@pytest.fixture
def catalog_committed(transactional_db: None) -> None:
    """The shipped catalog, committed so that worker processes see it."""
    call_command("loaddata", *map(str, CATALOG_FIXTURES), verbosity=0)


# --- Celery processes ---------------------------------------------------------------------
@dataclass(kw_only=True)
class CeleryProcess:
    name: str
    proc: subprocess.Popen[bytes]
    log_path: Path

    @property
    def hostname(self) -> str:
        return f"{self.name}@localhost"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL the whole process group: the parent and its pool children at once, as
        when a machine or container dies."""
        _stop_group(self.proc, signal.SIGKILL)

    def stop(self) -> None:
        _stop_group(self.proc, signal.SIGTERM)

    def active_tasks(self) -> list[dict[str, Any]]:
        replies: Any = celery_app.control.inspect(destination=[self.hostname], timeout=1.0).active()
        return list((replies or {}).get(self.hostname, []))


def _answers_ping(hostname: str) -> bool:
    replies = celery_app.control.ping(destination=[hostname], timeout=0.5)
    return any(hostname in reply for reply in replies or [])


@dataclass(kw_only=True)
class CeleryFactory:
    """Starts worker and beat subprocesses on the own Redis and the test database."""

    broker: RedisServer
    database_url: str
    folder: Path
    started: list[CeleryProcess] = field(default_factory=list)

    # False: the settings' own timeouts and sweep (production's), not SCALED_TIMEOUTS.
    scaled_timeouts: bool = True

    def env(self, **overrides: str) -> dict[str, str]:
        inherited = {k: v for k, v in os.environ.items() if k not in SCALED_TIMEOUTS}
        return {
            **inherited,
            **PROCESS_ENV,
            **(SCALED_TIMEOUTS if self.scaled_timeouts else {}),
            "DATABASE_URL": self.database_url,
            "CELERY_BROKER_URL": self.broker.url,
            **overrides,
        }

    def _spawn(self, name: str, args: list[str], env: dict[str, str]) -> CeleryProcess:
        log_path = self.folder / f"{name}.log"
        command = [sys.executable, "-m", "celery", "-A", "planner_site", *args]
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                command, cwd=REPO_ROOT, env=env, stdout=log, stderr=log, start_new_session=True
            )
        process = CeleryProcess(name=name, proc=proc, log_path=log_path)
        self.started.append(process)
        return process

    def worker(self, *, concurrency: int = 1, **env: str) -> CeleryProcess:
        """A prefork worker, once it answers ping."""
        name = f"worker-{uuid.uuid4().hex[:6]}"
        worker = self._spawn(
            name,
            [
                "worker", "--pool=prefork", f"--concurrency={concurrency}",
                f"--hostname={name}@localhost", "--without-gossip", "--without-mingle",
                "--loglevel=INFO",
            ],
            self.env(**env),
        )  # fmt: skip
        try:
            wait_for(
                lambda: worker.proc.poll() is not None or _answers_ping(worker.hostname),
                timeout_s=START_TIMEOUT_S,
                what=f"{worker.hostname} to answer ping",
            )
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n--- worker log ---\n{worker.log()}") from None
        assert worker.proc.poll() is None, worker.log()
        return worker

    def beat(self, **env: str) -> CeleryProcess:
        return self._spawn("beat", ["beat", "--loglevel=INFO"], self.env(**env))

    def stop_all(self) -> None:
        for process in self.started:
            _stop_group(process.proc, signal.SIGKILL)


@pytest.fixture
def celery_processes(
    own_redis: RedisServer, catalog_committed: None, tmp_path: Path
) -> Iterator[CeleryFactory]:
    factory = CeleryFactory(
        broker=own_redis,
        database_url=database_url_for_current_connection(),
        folder=tmp_path,
    )
    try:
        yield factory
    finally:
        factory.stop_all()

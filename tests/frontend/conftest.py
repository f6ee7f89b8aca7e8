"""Fixtures of the page tests: the shipped catalog, rankings computed in this process (no
worker needed), and a headless Chromium for the browser tests."""

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.core.management import call_command
from django.db import connections
from playwright.sync_api import Playwright

from simulator.models import SimulationRun
from simulator.services import rankings

# Django's live_server runs in a thread; Playwright's sync API runs an event loop beside it.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((REPO_ROOT / "catalog" / "fixtures").glob("*.json"))
SCREENSHOTS = REPO_ROOT / "test-artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]  # fmt: skip
# Queuing a ranking sends its start task through this; patched where no worker runs.
SEND_TASK = "simulator.services.rankings.current_app.send_task"
GLM = {"kind": "train", "model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": 1024,
       "tokens": 50_000_000}  # fmt: skip


@pytest.fixture
def catalog(db: None) -> None:
    """The shipped catalog: parts, dated prices and seed builds A–D."""
    call_command("loaddata", *map(str, FIXTURES), verbosity=0)


@pytest.fixture
def catalog_committed(transactional_db: None) -> None:
    """The shipped catalog, committed so that the live server and workers see it."""
    call_command("loaddata", *map(str, FIXTURES), verbosity=0)


def ranking_compute(
    workload: dict[str, Any], options: dict[str, Any] | None = None
) -> SimulationRun:
    """A ranking computed here, chunk by chunk, as the workers would (nothing is queued)."""
    body = {"workload": workload, "ranking": options or {}}
    with mock.patch(SEND_TASK):
        run = rankings.ranking_create(body=body)
    pending = rankings.ranking_pending_chunks(run=run)
    for index in pending:
        rankings.ranking_chunk_process(run_id=str(run.pk), index=index)
    if not pending:  # every candidate's hardware was simulated before: merge at once
        rankings.ranking_merge(run_id=str(run.pk))
    run.refresh_from_db()
    return run


@pytest.fixture
def computed_ranking() -> Callable[..., SimulationRun]:
    return ranking_compute


@pytest.fixture
def no_queue() -> Iterator[mock.MagicMock]:
    """Rankings queued by a view are not sent to any broker (a test with no worker)."""
    with mock.patch(SEND_TASK) as send_task:
        yield send_task


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS,
            "headless": True}  # fmt: skip


@pytest.fixture(scope="session")
def _connections_closed_before_playwright() -> None:
    """Django keeps a thread's connections per thread until an event loop runs in it, then
    per async context (asgiref's Local); Playwright's sync API runs one in the main thread
    from its start. A connection this thread opened before would be left open, never seen
    again: the test database's drop then fails ("being accessed by other users"), and one
    left inside a test's transaction would hold its locks. Closed first, here."""
    opened = connections.all(initialized_only=True)
    if any(conn.in_atomic_block for conn in opened):
        raise RuntimeError("Playwright started inside a test transaction: use transactional_db")
    for conn in opened:
        conn.close()


@pytest.fixture(scope="session")
def playwright(
    _connections_closed_before_playwright: None, playwright: Playwright
) -> Iterator[Playwright]:
    """pytest-playwright's, with this thread's connections opened under its event loop closed
    before it stops (after, they could no longer be reached)."""
    yield playwright
    connections.close_all()

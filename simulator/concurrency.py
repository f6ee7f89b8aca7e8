"""A bulkhead for POST /api/simulate: each web process works on at most
SIMULATE_CONCURRENCY requests of it at a time; the others wait (no CPU) up to
SIMULATE_SLOT_WAIT_S, then are answered 503 with Retry-After.

Why: a flood of simulate requests (each 3–10 ms of Python, many of them refused in the end)
shared the web processes' CPU and GIL with the cheap cached reads in proportion to their
number, and the reads' tail latency tripled (docs/benchmarks.md, Load). Waiting in line
costs nothing; a flood then slows itself down instead of the reads. Within one process the
GIL runs one request's Python at a time anyway. The default is one slot: with two, a
second request could compute while the first waited on PostgreSQL, which helped single
builds only while gunicorn left most connections on one process; since connections are
spread again (planner_site/gunicorn.py), one slot a process (two on the two cores) kept the
cached reads' p99 under the flood at 1.40-1.55x their unloaded figure in five runs, against
1.57-2.39x with two slots, while single builds stayed at p99 139-165 ms
(docs/benchmarks.md, Load, "Third round").
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings

# What a client turned away is told to wait.
BUSY_RETRY_AFTER_S = 2

_slots: threading.BoundedSemaphore | None = None
_slots_size = 0
_slots_lock = threading.Lock()


class SimulateBusyError(Exception):
    """Every slot stayed taken for SIMULATE_SLOT_WAIT_S: come back after `retry_after_s`."""

    def __init__(self, *, waited_s: float) -> None:
        super().__init__(
            f"The simulator is busy with other requests (waited {waited_s:g} s); "
            f"try again in {BUSY_RETRY_AFTER_S} s."
        )
        self.retry_after_s = BUSY_RETRY_AFTER_S


def _semaphore() -> threading.BoundedSemaphore:
    """This process's slots, sized from the settings (re-made if a test changes them)."""
    global _slots, _slots_size
    size: int = settings.SIMULATE_CONCURRENCY
    with _slots_lock:
        if _slots is None or _slots_size != size:
            _slots, _slots_size = threading.BoundedSemaphore(size), size
        return _slots


@contextmanager
def simulate_slot() -> Iterator[None]:
    """Hold one of this process's simulate slots for the block (SimulateBusyError if none
    frees up in time)."""
    slots = _semaphore()
    wait_s: float = settings.SIMULATE_SLOT_WAIT_S
    if not slots.acquire(timeout=wait_s):
        raise SimulateBusyError(waited_s=wait_s)
    try:
        yield
    finally:
        slots.release()

"""A limit on the CPU time one computation may take, checked where the engine's work grows
with the request (per resident-layer split, per slice of a sweep, per placement).

The services estimate a request's CPU time before computing it (simulator/services/cost.py)
and refuse what is over its caller's limit; this is the backstop for an estimate that falls
short. The limit is held in a context variable, so each web thread (gunicorn's gthread
workers) has its own, and code run outside a limit (the Celery workers, the commands) checks
nothing. CPU time is the thread's own (`time.thread_time`): waiting for the GIL or a lock
does not count against a request.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from simulator.engine.errors import EngineInputError


@dataclass(frozen=True, slots=True)
class _Limit:
    ends_at_s: float  # thread CPU time at which the limit is reached
    limit_s: float


_current: ContextVar[_Limit | None] = ContextVar("cpu_limit", default=None)


class WorkLimitError(EngineInputError):
    """The computation used up its CPU time: a request too large for its caller's limit."""

    def __init__(self, *, limit_s: float) -> None:
        super().__init__(
            field="request",
            message=(
                f"this request ran past its limit of {limit_s:g} s of CPU time and was"
                " stopped; ask for less (fewer layers per GPU, reference mode, more GPUs)"
            ),
        )
        self.limit_s = limit_s


@contextmanager
def cpu_limit(seconds: float | None) -> Iterator[None]:
    """Run the block under a limit of `seconds` of this thread's CPU time (None: no limit)."""
    if seconds is None:
        yield
        return
    token = _current.set(_Limit(ends_at_s=time.thread_time() + seconds, limit_s=seconds))
    try:
        yield
    finally:
        _current.reset(token)


def cpu_time_left_s() -> tuple[float, float] | None:
    """The current limit's CPU seconds left and its whole length (None outside a limit)."""
    limit = _current.get()
    if limit is None:
        return None
    return max(0.0, limit.ends_at_s - time.thread_time()), limit.limit_s


def check_cpu_limit() -> None:
    """WorkLimitError once the current limit, if any, is spent."""
    limit = _current.get()
    if limit is not None and time.thread_time() > limit.ends_at_s:
        raise WorkLimitError(limit_s=limit.limit_s)

"""What stands between a client and the simulator, for the API and the pages alike: the
anonymous rate of POST /api/simulate (one budget per client, whichever way it asks), the
bulkhead of simulate slots (concurrency.py) and the CPU time one request may use
(SIMULATE_ANON_CPU_S anonymous, SIMULATE_USER_CPU_S signed in). The cost checks against that
time sit in the services both call (services/cost.py)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.http import HttpRequest

from simulator.concurrency import SimulateBusyError, simulate_slot
from simulator.engine import cpu_limit
from simulator.services.cost import simulation_cpu_limit_s
from simulator.throttles import SimulateAnonThrottle

__all__ = [
    "SimulateBusyError",
    "SimulateThrottledError",
    "simulate_client",
    "simulate_cpu_limit",
    "simulate_guard",
]


class SimulateThrottledError(Exception):
    """This anonymous client spent its simulate budget: come back after `retry_after_s`."""

    def __init__(self, *, retry_after_s: int) -> None:
        super().__init__(
            f"Too many simulations from this address; try again in {retry_after_s} s (or sign in)."
        )
        self.retry_after_s = retry_after_s


def simulate_admit(request: HttpRequest | Any) -> None:
    """Count the request against its client's anonymous simulate budget, the one POST
    /api/simulate spends (SimulateThrottledError when it is spent; signed-in users are not
    counted)."""
    throttle = SimulateAnonThrottle()
    if not throttle.allow_request(request, None):  # type: ignore[arg-type]
        wait = throttle.wait()
        raise SimulateThrottledError(retry_after_s=max(1, math.ceil(wait or 1)))


def simulate_client(request: HttpRequest | Any) -> str:
    """Who is asking, for what they asked before (an Idempotency-Key): the signed-in user,
    or the anonymous client as its throttle tells clients apart."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return f"anon:{SimulateAnonThrottle().get_ident(request)}"[:120]  # type: ignore[arg-type]


@contextmanager
def simulate_cpu_limit(request: HttpRequest | Any) -> Iterator[None]:
    """The block runs under the CPU time this caller's request may use: what the services
    estimate is refused beyond it, and the engine stops at it (WorkLimitError, a 400)."""
    user = getattr(request, "user", None)
    signed_in = bool(user is not None and user.is_authenticated)
    with cpu_limit(simulation_cpu_limit_s(signed_in=signed_in)):
        yield


@contextmanager
def simulate_guard(request: HttpRequest) -> Iterator[None]:
    """For a page that simulates: admitted by the anonymous budget, then one simulate slot
    held for the block (SimulateBusyError when none frees up in time), within the request's
    CPU time."""
    simulate_admit(request)
    with simulate_slot(), simulate_cpu_limit(request):
        yield

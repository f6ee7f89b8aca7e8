"""What stands between a client and the simulator, for the API and the pages alike: the
anonymous rate of POST /api/simulate (one budget per client, whichever way it asks) and the
bulkhead of simulate slots (concurrency.py). The cost checks sit in the services both call."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.http import HttpRequest

from simulator.concurrency import SimulateBusyError, simulate_slot
from simulator.throttles import SimulateAnonThrottle

__all__ = ["SimulateBusyError", "SimulateThrottledError", "simulate_guard"]


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


@contextmanager
def simulate_guard(request: HttpRequest) -> Iterator[None]:
    """For a page that simulates: admitted by the anonymous budget, then one simulate slot
    held for the block (SimulateBusyError when none frees up in time)."""
    simulate_admit(request)
    with simulate_slot():
        yield

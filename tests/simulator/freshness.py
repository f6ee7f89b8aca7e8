"""The price-change promise of GET /api/rankings, checked without a stopwatch.

A web process serves its last answer for a view for at most `RANKINGS_STALE_S` (0.5 s);
after that the next request reads the prices again. So the promise a test can hold on any
machine, however loaded, is: the first request made once that age has passed shows the
change. The other half of "within a second", one read at the new prices, is a speed and
is measured in `benchmarks/bench_price_to_rankings.py` (docs/benchmarks.md).
"""

import time
from collections.abc import Callable
from typing import TypeVar

from simulator.apis import RANKINGS_STALE_S

T = TypeVar("T")


def read_once_stale(changed_at: float, read: Callable[[], T]) -> T:
    """`read()` made as soon as every answer kept from before `changed_at` (a
    `time.monotonic()` taken before the change) is too old to be served."""
    # A kept answer is dropped once strictly older than RANKINGS_STALE_S: wait a hair past it.
    time.sleep(max(0.0, changed_at + RANKINGS_STALE_S + 0.01 - time.monotonic()))
    return read()

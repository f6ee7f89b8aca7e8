"""A serving benchmark's run: requests of I prompt and O output tokens, continuously batched
(vLLM, SGLang), kept C in flight by their clients or sent at a rate of λ per second
(`vllm bench serve --max-concurrency`, `--request-rate`); docs/model.md, "Serving runs".

One request's latency with c requests in flight is L(c) = c·I / P + O·s(c): the prompts of
the c requests that share its lifetime, each processed once at the prefill rate P, and its own
O decode steps of c sequences, s(c) each. The server completes X(c) = c / L(c) requests per
second, which grows with c while batching amortizes the weight reads.

- In flight as stated (clients keep C in flight, or N queued at once): c = min(C, cap), and
  the run's output tokens per second are c·O / L(c).
- Sent at λ per second (Little's law, c = λ·L(c)): c is the smallest count whose X(c) ≥ λ.
  Where even `cap` requests complete fewer than λ per second, the queue grows, c = cap and
  the run is saturated. A run of N requests lasts T = max(N/λ, (N − c)/X(c)) + L(c): its
  arrivals span N/λ unless the server's pace is slower, and the last request takes L(c).
  Output tokens per second N·O / T; an open stream (N unstated) delivers min(λ, X(c))·O.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from simulator.engine.errors import EngineInputError


@dataclass(frozen=True, slots=True, kw_only=True)
class ServingRun:
    concurrency: int  # requests in flight
    request_latency_s: float  # one request, from its arrival to its last token
    requests_per_s: float  # requests completed per second
    output_tokens_per_s: float
    total_tokens_per_s: float  # prompt and output tokens
    duration_s: float | None  # the run of `requests`; None for an open stream
    saturated: bool  # requests arrive faster than `max_concurrency` in flight complete them


def batch_latency_s(
    *,
    concurrency: int,
    prompt_tokens: int,
    output_tokens: int,
    prefill_tokens_per_s: float,
    decode_step_s: float,
) -> float:
    """L(c): the c prompts processed in a request's lifetime, and its O decode steps."""
    return concurrency * prompt_tokens / prefill_tokens_per_s + output_tokens * decode_step_s


def _completing(
    done_per_s: float, *, concurrency: int, latency_s: float, prompt_tokens: int,
    output_tokens: int, duration_s: float | None, saturated: bool,
) -> ServingRun:  # fmt: skip
    """The run completing `done_per_s` requests a second: its tokens follow."""
    return ServingRun(
        concurrency=concurrency,
        request_latency_s=latency_s,
        requests_per_s=done_per_s,
        output_tokens_per_s=done_per_s * output_tokens,
        total_tokens_per_s=done_per_s * (prompt_tokens + output_tokens),
        duration_s=duration_s,
        saturated=saturated,
    )


def _check(name: str, value: float | None, *, low: float = 1) -> None:
    if value is not None and (not math.isfinite(value) or value < low):
        raise EngineInputError(
            field=f"workload.{name}", message=f"must be a number ≥ {low:g}, got {value}"
        )


def serving_run(
    latency_s: Callable[[int], float],
    *,
    prompt_tokens: int,
    output_tokens: int,
    max_concurrency: int,
    requests: int | None = None,
    request_rate_per_s: float | None = None,
) -> ServingRun:
    """The run of `requests` (None: an open stream) with at most `max_concurrency` in flight,
    sent at `request_rate_per_s` (None: all at once, or kept in flight by the clients).
    `latency_s(c)` is L(c), one request's latency with c in flight, asked once per c."""
    latency_s = cache(latency_s)  # a simulation each: the search and the answer share them
    _check("max_concurrency", max_concurrency)
    _check("requests", requests)
    _check("request_rate_per_s", request_rate_per_s, low=1e-9)
    cap = max_concurrency if requests is None else min(max_concurrency, requests)
    tokens = {"prompt_tokens": prompt_tokens, "output_tokens": output_tokens}
    if request_rate_per_s is None:
        latency = latency_s(cap)
        served = cap / latency
        duration = None if requests is None else requests / served
        return _completing(served, concurrency=cap, latency_s=latency, duration_s=duration,
                           saturated=False, **tokens)  # fmt: skip
    rate = request_rate_per_s
    low, high = 1, cap
    if cap / latency_s(cap) < rate:  # even `cap` in flight fall behind: the queue grows
        c, saturated = cap, True
    else:  # the fewest in flight that keep up with the arrivals
        while low < high:
            mid = (low + high) // 2
            if mid / latency_s(mid) >= rate:
                high = mid
            else:
                low = mid + 1
        c, saturated = low, False
    latency = latency_s(c)
    served = c / latency  # requests per second at c in flight
    if requests is None:
        return _completing(min(rate, served), concurrency=c, latency_s=latency,
                           duration_s=None, saturated=saturated, **tokens)  # fmt: skip
    duration = max(requests / rate, (requests - c) / served) + latency
    return _completing(requests / duration, concurrency=c, latency_s=latency,
                       duration_s=duration, saturated=saturated, **tokens)  # fmt: skip

"""How long GET /healthz takes from a running app (bin/run, or docker compose), healthy and
with the broker or worker away: the liveness of the workers is kept per web process
(HEALTHZ_WORKER_CACHE_S), so a healthy answer costs a database query and a broker connect,
not a ping round trip.

    .venv/bin/python benchmarks/bench_healthz.py --url http://127.0.0.1:8000 [--requests 500]

Requests are sent one after another on new connections (as a load balancer's probe does).
Prints the status counts and latency percentiles as a Markdown table for docs/benchmarks.md;
nothing here is a test.
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import time
from collections import Counter
from urllib.parse import urlsplit


def probe(host: str, port: int) -> tuple[int, float, str]:
    """One GET /healthz on a new connection: status, seconds, Retry-After."""
    start = time.perf_counter()
    connection = http.client.HTTPConnection(host, port, timeout=30)
    try:
        connection.request("GET", "/healthz")
        response = connection.getresponse()
        response.read()
        return response.status, time.perf_counter() - start, response.getheader("Retry-After") or ""
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--label", default="healthy")
    args = parser.parse_args()
    parts = urlsplit(args.url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    probe(host, port)  # the first answer of a process pings the workers
    answers = [probe(host, port) for _ in range(args.requests)]
    statuses = Counter(status for status, _, _ in answers)
    ms = sorted(seconds * 1000 for _, seconds, _ in answers)
    quantiles = statistics.quantiles(ms, n=100)
    retry_after = sorted({value for _, _, value in answers if value})
    print("| case | requests | statuses | p50 (ms) | p99 (ms) | max (ms) | Retry-After |")
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {args.label} | {len(answers)} | {dict(statuses)} | {quantiles[49]:.1f} | "
        f"{quantiles[98]:.1f} | {ms[-1]:.1f} | {', '.join(retry_after) or '-'} |"
    )


if __name__ == "__main__":
    main()

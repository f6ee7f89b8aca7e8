"""gunicorn's settings for the web processes: `gunicorn planner_site.wsgi --config
python:planner_site.gunicorn` (the Procfile's web line and the image's command).

Two processes of twelve threads: the bulkhead (simulator/concurrency.py) lets one simulate
request per process compute at a time, and the other threads keep serving reads meanwhile
(docs/benchmarks.md, "Load": 2 x 12 measured against 4 x 8, 3 x 2 and 4 x 1)."""

from __future__ import annotations

from typing import Any

workers = 2
threads = 12
graceful_timeout = 10
# gunicorn's threaded worker, answering the errors gunicorn answers itself (a request line or
# a header over its limits) in JSON like the API, not as an HTML page.
worker_class = "planner_site.gunicorn_worker.JsonErrorsThreadWorker"

# The request that holds a web thread for milliseconds of computing (docs/benchmarks.md).
SIMULATE_PATH = "/api/simulate"
# Requests a keep-alive connection serves before it is closed (nginx's keepalive_requests,
# 1,000 there): at 2,000 cached reads a second over 16 connections, each is opened again
# about once a second, which costs a fraction of a millisecond.
KEEPALIVE_REQUESTS = 100


def pre_request(worker: Any, req: Any) -> None:
    """Close the connection after this answer: after POST /api/simulate, and after a
    connection's KEEPALIVE_REQUESTS-th request.

    A keep-alive connection stays with the process that accepted it, and gunicorn's
    processes accept unevenly: in load runs all eight connections of the single-build
    scenario, or all sixteen of the cached reads, sat on one process, which then served
    them on one core (and, for simulate, with its own slots) while the other process idled
    (single builds: 54-68 against 91-116 requests/s). A closed connection makes the
    client's next request a new connection, accepted by whichever process gets to it
    first: the less busy one. A simulate request costs ten milliseconds or more, so it
    closes every time; cheap reads keep their connection for a while."""
    if req.req_number >= KEEPALIVE_REQUESTS or (req.method == "POST" and req.path == SIMULATE_PATH):
        req.force_close()

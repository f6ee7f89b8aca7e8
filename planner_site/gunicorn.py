"""gunicorn's settings for the web processes: `gunicorn planner_site.wsgi --config
python:planner_site.gunicorn` (the Procfile's web line and the image's command).

Two processes of twelve threads: the bulkhead (simulator/concurrency.py) lets two simulate
requests per process compute at once, and the other threads keep serving reads meanwhile
(docs/benchmarks.md, "Load": 2 x 12 measured against 4 x 8, 3 x 2 and 4 x 1)."""

from __future__ import annotations

from typing import Any

workers = 2
threads = 12
graceful_timeout = 10

# The request that holds a web thread for milliseconds of computing (docs/benchmarks.md).
SIMULATE_PATH = "/api/simulate"


def pre_request(worker: Any, req: Any) -> None:
    """POST /api/simulate closes its connection after the answer.

    A keep-alive connection stays with the process that accepted it, and gunicorn's
    processes accept unevenly: in two of three load runs all eight connections of the
    single-build scenario sat on one process, which then computed every request on one
    core with its two simulate slots while the other process idled (66 against 108
    requests/s, p50 117 against 71 ms). A closed connection makes the client's next
    request a new connection, accepted by whichever process gets to it first: the one
    that is free. Reconnecting on loopback costs a fraction of a millisecond; a simulate
    request costs ten or more. Cheap reads keep their connections."""
    if req.method == "POST" and req.path == SIMULATE_PATH:
        req.force_close()

"""WSGI entry point (gunicorn planner_site.wsgi)."""

import gc
import logging
import os
import sys

from django.core.cache import cache
from django.core.wsgi import get_wsgi_application
from django.urls import reverse

# gunicorn's threads share one GIL per process. At CPython's default 5 ms switch interval a
# cached read (0.4 ms of Python) waited behind a simulate request's slice; 0.5 ms lowered
# the reads' p99 under the load test's flood from 103 to 83 ms (docs/benchmarks.md, Load).
WEB_GIL_SWITCH_INTERVAL_S = 0.0005

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner_site.settings")
sys.setswitchinterval(WEB_GIL_SWITCH_INTERVAL_S)

application = get_wsgi_application()


def _warm_up() -> None:
    """Import the URLconf (every view, service and the engine), build the URL reverser and
    the cache client now rather than in the first request each process serves: 0.5 s that,
    under load, every thread of a fresh process waited for (docs/benchmarks.md, Load)."""
    reverse("healthz")
    try:
        cache.get("warm-up")
    except Exception:  # a cache outage is the requests' to report, not the boot's
        logging.getLogger(__name__).warning("cache unreachable while warming up", exc_info=True)


_warm_up()
# Everything loaded so far lives as long as the process: out of the collector's sight, a full
# (generation 2) collection, which stops every thread of the process, no longer walks it.
# In-process under the load test's mix: 63 -> 10 ms for the longest full collection
# (docs/benchmarks.md, Load, "Third round").
gc.freeze()

"""WSGI entry point (gunicorn planner_site.wsgi)."""

import os
import sys

from django.core.wsgi import get_wsgi_application

# gunicorn's threads share one GIL per process. At CPython's default 5 ms switch interval a
# cached read (0.4 ms of Python) waited behind a simulate request's slice; 0.5 ms lowered
# the reads' p99 under the load test's flood from 103 to 83 ms (docs/benchmarks.md, Load).
WEB_GIL_SWITCH_INTERVAL_S = 0.0005

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner_site.settings")
sys.setswitchinterval(WEB_GIL_SWITCH_INTERVAL_S)

application = get_wsgi_application()

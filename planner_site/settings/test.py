"""Settings for the test suite: same services as configured by the environment
(bin/test points them at PostgreSQL and Redis when those run), faster hashing."""

import os

from django.core.exceptions import ImproperlyConfigured

from planner_site.settings.base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Serve static files from the apps' folders; the tests never run collectstatic.
WHITENOISE_AUTOREFRESH = True
WHITENOISE_USE_FINDERS = True
# Each test sees the workers as they are now, not as an earlier test found them.
HEALTHZ_WORKER_CACHE_S = 0.0


def _redis_url_for_worker(url: str, worker: int) -> str:
    """The Redis URL of test process `worker` (pytest-xdist's gwN): its database number
    moved down by four per process, so each process's broker queue, control messages and
    cache are its own (a worker bound to one test database must never take another's
    tasks). Process 0 keeps the URL as given."""
    scheme, _, rest = url.partition("://")
    address, _, database = rest.partition("/")
    moved = int(database or 0) - 4 * worker
    if moved < 0:
        raise ImproperlyConfigured(
            f"test process {worker} has no Redis database left below {url}: run fewer processes"
        )
    return f"{scheme}://{address}/{moved}"


# Each pytest-xdist process (bin/test runs two) gets Redis databases of its own, set in the
# environment too, so the Celery workers, web servers and bin/run the tests start follow;
# those inherit PYTEST_XDIST_WORKER as well, and the marker keeps them from moving again.
_xdist_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
_process = int(_xdist_worker[2:]) if _xdist_worker.startswith("gw") else 0
if _process:
    if os.environ.get("PLANNER_TEST_REDIS_MOVED_FOR") != _xdist_worker:
        for _name in ("CELERY_BROKER_URL", "CACHE_URL"):
            _url = os.environ.get(_name, "")
            if _url.startswith("redis://"):
                os.environ[_name] = _redis_url_for_worker(_url, _process)
        os.environ["PLANNER_TEST_REDIS_MOVED_FOR"] = _xdist_worker
    # Read again: the settings package's __init__ imported base before this module ran.
    CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="filesystem://")  # noqa: F405
    CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}  # noqa: F405

"""Settings for the test suite: same services as configured by the environment
(bin/test points them at PostgreSQL and Redis when those run), faster hashing."""

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

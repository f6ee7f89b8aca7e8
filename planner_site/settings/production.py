"""Production settings: PostgreSQL, Redis and separate workers (see README).

Refuses to start without an explicit SECRET_KEY.
"""

from django.core.exceptions import ImproperlyConfigured

from planner_site.settings.base import *  # noqa: F403
from planner_site.settings.base import REST_FRAMEWORK, env

SECRET_KEY = env("SECRET_KEY", default="")
if not SECRET_KEY or SECRET_KEY.startswith("django-insecure"):
    raise ImproperlyConfigured("SECRET_KEY must be set to a long random value in production.")

DEBUG = False
# Behind a TLS-terminating proxy (TRUSTED_PROXY_COUNT ≥ 1; README, "Production") a request is
# HTTPS when the proxy says so in X-Forwarded-Proto, a header it sets whatever the client
# sent. Without one, that header comes from the client, which could pass for HTTPS.
if REST_FRAMEWORK["NUM_PROXIES"]:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

"""A database or cache that cannot be reached is a temporary outage, not a bug: answer 503
with Retry-After and a message (JSON for the API and /healthz, a short page otherwise)
instead of a 500. Django drops a broken database connection at the end of the request and
connects again on the next one (CONN_HEALTH_CHECKS), and redis-py reconnects its pool, so
the site recovers by itself.

Every write checks what it needs of the cache (the anonymous throttle, a ranking's cached
candidate count) before it writes, so a cache outage refuses it whole: nothing is half
written behind the 503."""

import logging
from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

# About how long a database or Redis restart or failover takes.
RETRY_AFTER_S = 10
DATABASE_DOWN_MESSAGE = "The database is unavailable; try again in a few seconds."
CACHE_DOWN_MESSAGE = "The cache is unavailable; nothing was changed; try again in a few seconds."
DOWN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Temporarily unavailable</title></head>
<body><h1>Temporarily unavailable</h1><p>{message}</p></body></html>
"""
JSON_PATH_PREFIXES = ("/api/", "/healthz")
DATABASE_ERRORS = (OperationalError, InterfaceError)
# The cache is Redis in production (CACHE_URL): Django's RedisCache lets redis-py's errors out.
CACHE_ERRORS = (RedisConnectionError, RedisTimeoutError)


def unavailable_response(request: HttpRequest, message: str) -> HttpResponse:
    response: HttpResponse
    if request.path.startswith(JSON_PATH_PREFIXES):
        response = JsonResponse({"detail": message}, status=503)
    else:
        page = DOWN_PAGE.format(message=message)
        response = HttpResponse(page, status=503, content_type="text/html; charset=utf-8")
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


class ServiceUnavailableMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, DATABASE_ERRORS):
            logger.warning("database unavailable for %s: %s", request.path, exception)
            return unavailable_response(request, DATABASE_DOWN_MESSAGE)
        if isinstance(exception, CACHE_ERRORS):
            logger.warning("cache unavailable for %s: %s", request.path, exception)
            return unavailable_response(request, CACHE_DOWN_MESSAGE)
        return None

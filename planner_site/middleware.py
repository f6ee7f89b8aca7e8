"""A database that cannot be reached is a temporary outage, not a bug: answer 503 with
Retry-After and a message (JSON for the API and /healthz, a short page otherwise) instead
of a 500. Django drops the broken connection at the end of the request and connects again
on the next one (CONN_HEALTH_CHECKS), so the site recovers by itself."""

import logging
from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

logger = logging.getLogger(__name__)

# About how long a database restart or failover takes.
DATABASE_RETRY_AFTER_S = 10
DATABASE_DOWN_MESSAGE = "The database is unavailable; try again in a few seconds."
DATABASE_DOWN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Temporarily unavailable</title></head>
<body><h1>Temporarily unavailable</h1><p>{message}</p></body></html>
"""
JSON_PATH_PREFIXES = ("/api/", "/healthz")


def database_unavailable_response(request: HttpRequest) -> HttpResponse:
    response: HttpResponse
    if request.path.startswith(JSON_PATH_PREFIXES):
        response = JsonResponse({"detail": DATABASE_DOWN_MESSAGE}, status=503)
    else:
        page = DATABASE_DOWN_PAGE.format(message=DATABASE_DOWN_MESSAGE)
        response = HttpResponse(page, status=503, content_type="text/html; charset=utf-8")
    response["Retry-After"] = str(DATABASE_RETRY_AFTER_S)
    return response


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        logger.warning("database unavailable for %s: %s", request.path, exception)
        return database_unavailable_response(request)

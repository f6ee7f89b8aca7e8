"""JSON errors for the API: DRF's handler plus the cases Django answers in HTML."""

from typing import Any

from django.core.exceptions import RequestDataTooBig
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, RequestDataTooBig):
        return Response(
            {"detail": "Request body too large."}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
        )
    return exception_handler(exc, context)

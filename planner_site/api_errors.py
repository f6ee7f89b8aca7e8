"""JSON errors for the API: DRF's handler plus the cases Django answers in HTML, in one
shape everywhere: `{"detail": "...", "errors": {"dotted.field": "message"}}`."""

from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler

NON_FIELD = "request"


class FieldNotFound(Http404):
    """A 404 for an id given in a body field: the answer names the field, as a 400 does."""

    def __init__(self, *, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def _flatten(detail: Any, path: str, into: dict[str, str]) -> None:
    """DRF's nested error detail as one message per dotted field path."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = NON_FIELD if key == "non_field_errors" else str(key)
            _flatten(value, f"{path}.{name}" if path else name, into)
    elif isinstance(detail, list) and any(isinstance(item, dict | list) for item in detail):
        for index, item in enumerate(detail):
            _flatten(item, f"{path or NON_FIELD}[{index}]", into)
    else:
        messages = detail if isinstance(detail, list) else [detail]
        if messages:
            into[path or NON_FIELD] = " ".join(str(message) for message in messages)


def validation_error_body(detail: Any) -> dict[str, Any]:
    errors: dict[str, str] = {}
    _flatten(detail, "", errors)
    summary = "; ".join(f"{field}: {message}" for field, message in errors.items())
    return {"detail": f"Invalid input: {summary}", "errors": errors}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, RequestDataTooBig):
        return Response(
            {"detail": "Request body too large."}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
        )
    response = exception_handler(exc, context)
    if response is not None and isinstance(exc, ValidationError):
        response.data = validation_error_body(exc.detail)
    if response is not None and isinstance(exc, FieldNotFound):
        response.data = {"detail": str(exc), "errors": {exc.field: str(exc)}}
    return response

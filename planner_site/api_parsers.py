"""The API's only parser: JSON with a size cap (413) and no crash on pathological input."""

import json
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import JSONParser


class RequestTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "Request body too large."
    default_code = "request_too_large"


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


class LimitedJSONParser(JSONParser):
    """DRF reads the request stream directly, so Django's DATA_UPLOAD_MAX_MEMORY_SIZE never
    applies; this reads at most that many bytes and answers 413 beyond."""

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise RequestTooLarge(f"Request body too large: the limit is {limit} bytes.")
        try:
            return json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
        except RecursionError:
            raise ParseError("JSON parse error: nested too deeply.") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"JSON parse error: {exc}") from None

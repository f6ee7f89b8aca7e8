"""The API's only parser: JSON with a size cap (413) and no crash on pathological input;
text holding control characters is refused (400) before any view sees it."""

import json
import re
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError, ValidationError
from rest_framework.parsers import JSONParser


class RequestTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "Request body too large."
    default_code = "request_too_large"


# C0 controls but tab, newline and carriage return, and DEL: PostgreSQL refuses NUL in text,
# and none of them belongs in a name, a vendor or a note.
CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def control_character_path(value: Any) -> str | None:
    """The dotted path of the first string (key or value) holding a control character."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str) and CONTROL_CHARACTERS.search(item):
            return path or "request"
        if isinstance(item, dict):
            for key, child in item.items():
                child_path = f"{path}.{key}" if path else str(key)
                if CONTROL_CHARACTERS.search(key):
                    return path or "request"
                stack.append((child_path, child))
        elif isinstance(item, list):
            stack.extend((f"{path or 'request'}[{i}]", child) for i, child in enumerate(item))
    return None


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
            data = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
        except RecursionError:
            raise ParseError("JSON parse error: nested too deeply.") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"JSON parse error: {exc}") from None
        path = control_character_path(data)
        if path is not None:
            message = "must not contain control characters (such as U+0000)"
            raise ValidationError({path: [message]})
        return data

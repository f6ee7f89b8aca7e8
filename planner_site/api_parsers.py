"""The API's only parser: JSON with a size cap (413) and no crash on pathological input;
text holding control characters, and objects nested too deep, are refused (400) before any
view sees them."""

import json
import re
from collections.abc import Mapping
from itertools import accumulate
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
# Deeper than any body of the API (one holding a config.json nests under ten levels), far
# below the depth at which encoding the body again (its hash, a stored row) exhausts the stack.
MAX_DEPTH = 32
# Deeper than this the body is refused unparsed: json.loads recurses once a level, and how
# many levels fit under Python's recursion limit depends on how deep the caller's stack
# already is (gunicorn's, a test runner's); a fixed bound answers the same everywhere.
PARSE_DEPTH = 256
NESTED_MESSAGE = "JSON parse error: nested too deeply."
CONTROL_MESSAGE = "must not contain control characters (such as U+0000)"
DEPTH_MESSAGE = f"must not nest objects and lists deeper than {MAX_DEPTH} levels"


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def nesting_depth(text: str) -> int:
    """How deep objects and lists nest in JSON `text` (brackets inside strings not counted);
    a linear scan that needs no stack, for text json.loads may not be able to parse."""
    brackets = _NOT_A_BRACKET.sub("", _JSON_STRING.sub("", text))
    return max(accumulate(_STEP[c] for c in brackets), default=0)


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def refused_value(value: Any) -> tuple[str, str] | None:
    """The dotted path of the first string (key or value) holding a control character, or of
    the first object or list nested deeper than MAX_DEPTH, and why it is refused."""
    stack: list[tuple[str, Any, int]] = [("", value, 0)]
    while stack:
        path, item, depth = stack.pop()
        if isinstance(item, str) and CONTROL_CHARACTERS.search(item):
            return path or "request", CONTROL_MESSAGE
        if isinstance(item, dict | list) and depth == MAX_DEPTH:
            return path or "request", DEPTH_MESSAGE
        if isinstance(item, dict):
            for key, child in item.items():
                if CONTROL_CHARACTERS.search(key):
                    return path or "request", CONTROL_MESSAGE
                stack.append((f"{path}.{key}" if path else str(key), child, depth + 1))
        elif isinstance(item, list):
            stack.extend(
                (f"{path or 'request'}[{i}]", child, depth + 1) for i, child in enumerate(item)
            )
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
            text = raw.decode("utf-8")
            if nesting_depth(text) > PARSE_DEPTH:
                raise ParseError(NESTED_MESSAGE)
            data = json.loads(text, parse_constant=_reject_constant)
        except RecursionError:
            raise ParseError(NESTED_MESSAGE) from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"JSON parse error: {exc}") from None
        refused = refused_value(data)
        if refused is not None:
            path, message = refused
            raise ValidationError({path: [message]})
        return data

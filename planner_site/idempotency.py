"""The Idempotency-Key header of the API's writes (POST /api/prices, POST /api/simulate): a
key of the client's own (a UUID, say) that makes a retry of the same body get the first
answer and write nothing again; the same key with another body is a mistake (422)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

HEADER = "Idempotency-Key"
MAX_KEY_CHARS = 200
OPENAPI_PARAMETER = OpenApiParameter(
    HEADER,
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="A key of yours (a UUID) for this post: a retry with the same key and body "
    "gets the first answer and writes nothing again; the key with another body is a 422",
)


class IdempotencyKeyReusedError(Exception):
    """The Idempotency-Key came before with another body: not a retry, a mistake."""

    def __init__(self, key: str) -> None:
        super().__init__(f"{HEADER} {key!r} was used before with another body; use a new key")


def idempotency_key(request: Request) -> str | None:
    """The request's key (None without the header); a 400 unless 1 to 200 printable
    characters."""
    value = request.headers.get(HEADER)
    if value is None:
        return None
    if not 0 < len(value) <= MAX_KEY_CHARS or not value.isprintable():
        raise ValidationError({HEADER: f"must be 1 to {MAX_KEY_CHARS} printable characters"})
    return value


def request_body_sha256(body: Mapping[str, Any] | Any) -> str:
    """What a retry must repeat: the body, its keys in any order."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()

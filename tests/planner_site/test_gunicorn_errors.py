"""The errors gunicorn answers itself, before Django sees the request, are JSON like the
API's: the Procfile's web command run for real (planner_site/gunicorn.py's worker class),
sent requests over gunicorn's limits on a raw socket."""

from __future__ import annotations

import contextlib
import json
import socket

import pytest

# The Procfile's gunicorn on a free port (the fixture is reused, not copied).
from tests.reliability.test_gunicorn_connections import web_port

__all__ = ["web_port"]

LIMIT_REQUEST_LINE = 4094  # gunicorn's default limit_request_line
LIMIT_REQUEST_FIELD_SIZE = 8190  # and limit_request_field_size
LIMIT_REQUEST_FIELDS = 100  # and limit_request_fields
OVER_THE_LIMITS = {
    "a-10000-character-request-line": (
        f"GET /api/parts?q={'x' * 10_000} HTTP/1.1\r\nHost: localhost\r\n\r\n",
        400,
        f"> {LIMIT_REQUEST_LINE}",
    ),
    "an-oversized-header": (
        f"GET /api/parts HTTP/1.1\r\nHost: localhost\r\nX-Big: {'y' * 10_000}\r\n\r\n",
        431,
        "limit request headers fields size",
    ),
    "too-many-headers": (
        "GET /api/parts HTTP/1.1\r\nHost: localhost\r\n"
        + "".join(f"X-Header-{i}: {i}\r\n" for i in range(LIMIT_REQUEST_FIELDS + 10))
        + "\r\n",
        431,
        "limit request headers fields",
    ),
    "a-malformed-request-line": ("GET\r\n\r\n", 400, "Invalid Request Line"),
}


def _exchange(port: int, request: str) -> tuple[int, dict[str, str], bytes]:
    """Send `request` as it is; the status, headers (lower-case names) and body of the
    answer, read until the server closes the connection. Closing with part of a request
    unread resets the connection, after the answer: what came before the reset is kept."""
    answer = b""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request.encode("latin-1"))
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (h.partition(":") for h in lines)}
    return int(status_line.split()[1]), headers, body


@pytest.mark.services
def test_requests_over_gunicorns_limits_are_answered_in_json(web_port: int) -> None:
    for name, (request, status, phrase) in OVER_THE_LIMITS.items():
        answer_status, headers, body = _exchange(web_port, request)

        assert answer_status == status, (name, answer_status, body[:200])
        assert headers["content-type"] == "application/json", name
        assert int(headers["content-length"]) == len(body), name
        assert headers["connection"] == "close", name
        detail = json.loads(body)["detail"]
        assert phrase in detail, (name, detail)
        assert b"<html" not in body.lower()
    # The process that answered them serves the next request as before.
    assert _exchange(web_port, "GET /api/parts HTTP/1.1\r\nHost: localhost\r\n"
                     "Connection: close\r\n\r\n")[0] == 200  # fmt: skip

"""The web processes' gunicorn worker: gunicorn's threaded worker, whose own error answers
are JSON like the API's.

gunicorn answers some requests itself, before Django sees them: a request line longer than
`limit_request_line` (4,094 bytes), too many headers or one too large (431), a malformed
request line or header. It writes those answers through one function, `gunicorn.util
.write_error`, as an HTML page; this worker has it write `{"detail": "..."}` instead, with
the same status and gunicorn's own message. Which status each error gets stays gunicorn's
(`Worker.handle_error`).
"""

from __future__ import annotations

import json
import socket

from gunicorn import util
from gunicorn.workers.gthread import ThreadWorker


def write_json_error(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """`util.write_error`'s answer as JSON: the status line, then `{"detail": mesg}` (the
    reason where gunicorn gives no message, as for its 500)."""
    body = json.dumps({"detail": mesg or reason}).encode()  # ASCII: non-ASCII is escaped
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json\r\n"
        "X-Content-Type-Options: nosniff\r\n"
        f"Content-Length: {len(body)}\r\n"
        "\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + body)


class JsonErrorsThreadWorker(ThreadWorker):  # type: ignore[misc]  # gunicorn is untyped
    """gunicorn's gthread worker (what `threads > 1` selects) with its error answers in
    JSON."""

    def init_process(self) -> None:
        # In this worker process only, before it serves anything; never returns.
        util.write_error = write_json_error
        super().init_process()

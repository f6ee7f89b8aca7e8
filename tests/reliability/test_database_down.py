"""The database unreachable: a running gunicorn answers 503 with a clear message and
Retry-After (JSON for the API and /healthz, a page otherwise), then recovers by itself.

gunicorn reaches PostgreSQL through a TCP proxy of this test; stopping the proxy cuts every
open connection and refuses new ones, as a database host that went away would."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from planner_site.middleware import DATABASE_DOWN_MESSAGE
from tests.conftest import database_url_for_current_connection
from tests.reliability.conftest import RedisServer, free_port, wait_for, web_server

RECOVER_WITHIN_S = 15.0
CHUNK_BYTES = 65536
# Seed build A (id 1) simulated at once: the request reads and writes the database.
SINGLE_BUILD = {
    "workload": {"kind": "train", "model": "glm-4.7", "quant": "NF4d+NF2e"},
    "build_id": 1,
}


@dataclass(kw_only=True)
class TcpProxy:
    """Forwards 127.0.0.1:port to the target until stopped; can start again on the port."""

    target: tuple[str, int]
    port: int = field(default_factory=free_port)
    _listener: socket.socket | None = None
    _open: set[socket.socket] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen()
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def stop(self) -> None:
        if self._listener is not None:
            # shutdown() wakes the thread blocked in accept(); close() alone does not.
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
            self._listener = None
        with self._lock:
            for sock in self._open:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._open.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:  # closed by stop()
                return
            upstream = socket.create_connection(self.target)
            with self._lock:
                self._open |= {client, upstream}
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(CHUNK_BYTES):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)


def _get(url: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, str], str]:
    """GET, or POST of a JSON body: status, headers and text, for errors too."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def _answers(url: str, status: int) -> bool:
    try:
        return _get(url)[0] == status
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


@pytest.fixture
def database_proxy(transactional_db: None) -> Iterator[TcpProxy]:
    port = urlsplit(database_url_for_current_connection()).port or 5432
    proxy = TcpProxy(target=("127.0.0.1", port))
    proxy.start()
    yield proxy
    proxy.stop()


@pytest.fixture
def web(
    database_proxy: TcpProxy, own_redis: RedisServer, catalog_committed: None, tmp_path: Path
) -> Iterator[str]:
    """gunicorn on a free port, its database behind the proxy; yields the base URL."""
    parts = urlsplit(database_url_for_current_connection())
    netloc = parts.netloc.rsplit(":", 1)[0] + f":{database_proxy.port}"
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "planner_site.settings.test",
        "DATABASE_URL": urlunsplit(parts._replace(netloc=netloc)),
        "CELERY_BROKER_URL": own_redis.url,
        "HEALTHZ_BROKER_TIMEOUT_S": "0.5",
        "HEALTHZ_WORKER_TIMEOUT_S": "0.5",
    }
    command = [
        sys.executable, "-m", "gunicorn", "planner_site.wsgi", "--bind", f"127.0.0.1:{port}",
        "--workers", "1", "--threads", "2",
    ]  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    ready = partial(_answers, f"{base}/api/parts", 200)
    with web_server(command, env=env, ready=ready, log_path=tmp_path / "gunicorn.log"):
        yield base


def _json(body: str) -> Any:
    return json.loads(body)


@pytest.mark.services
def test_the_api_answers_503_with_a_message_while_the_database_is_down_then_recovers(
    web: str, database_proxy: TcpProxy
) -> None:
    database_proxy.stop()
    status, headers, body = _get(f"{web}/api/parts")
    simulate_status, _, simulate_body = _get(f"{web}/api/simulate", SINGLE_BUILD)
    database_proxy.start()
    recovered_s = wait_for(
        lambda: _answers(f"{web}/api/parts", 200), timeout_s=RECOVER_WITHIN_S, what="recovery"
    )

    print(f"\ndatabase back → API answers 200 after {recovered_s:.1f} s")
    assert status == simulate_status == 503
    assert headers["Content-Type"] == "application/json"
    assert headers["Retry-After"] == "10"
    assert _json(body) == _json(simulate_body) == {"detail": DATABASE_DOWN_MESSAGE}
    assert _get(f"{web}/api/simulate", SINGLE_BUILD)[0] == 200


@pytest.mark.services
def test_a_page_answers_a_503_page_while_the_database_is_down_then_recovers(
    web: str, database_proxy: TcpProxy
) -> None:
    database_proxy.stop()
    status, headers, body = _get(f"{web}/catalog/")
    database_proxy.start()
    wait_for(lambda: _answers(f"{web}/catalog/", 200), timeout_s=RECOVER_WITHIN_S, what="page")

    assert status == 503
    assert headers["Content-Type"].startswith("text/html")
    assert "Retry-After" in headers
    assert "The database is unavailable" in body


@pytest.mark.services
def test_healthz_names_the_database_while_it_is_down(web: str, database_proxy: TcpProxy) -> None:
    database_proxy.stop()
    status, _, body = _get(f"{web}/healthz")
    database_proxy.start()
    healthy = _json(_get(f"{web}/healthz")[2])

    assert status == 503
    assert _json(body)["components"]["database"]["status"] == "down"
    assert healthy["components"]["database"]["status"] == "up"

"""The Procfile's web command, run for real: gunicorn with planner_site/gunicorn.py closes a
POST /api/simulate connection after its answer (so the next request lands on whichever
process is free), and any connection after KEEPALIVE_REQUESTS requests."""

from __future__ import annotations

import http.client
import json
import os
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from planner_site.gunicorn import KEEPALIVE_REQUESTS
from tests.conftest import REPO_ROOT, database_url_for_current_connection
from tests.reliability.conftest import free_port, web_server


def _procfile_web_command() -> str:
    procfile = (REPO_ROOT / "Procfile").read_text()
    return next(line for line in procfile.splitlines() if line.startswith("web: "))[5:]


def _answers(port: int) -> bool:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        connection.request("GET", "/api/parts")
        return connection.getresponse().status == 200
    except OSError:
        return False


@pytest.fixture
def web_port(transactional_db: None, tmp_path: Path) -> Iterator[int]:
    port = free_port()
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "DJANGO_SETTINGS_MODULE": "planner_site.settings.test",
        "DATABASE_URL": database_url_for_current_connection(),
        "WEB_HOST": "127.0.0.1",
        "WEB_PORT": str(port),
    }
    command = ["bash", "-c", f"exec {_procfile_web_command()}"]
    with web_server(command, env=env, ready=partial(_answers, port), log_path=tmp_path / "web.log"):
        yield port


def _exchange(
    connection: http.client.HTTPConnection, method: str, path: str, body: object = None
) -> tuple[int, str | None]:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    payload = None if body is None else json.dumps(body)
    connection.request(method, path, body=payload, headers=headers)
    response = connection.getresponse()
    response.read()
    return response.status, response.getheader("Connection")


@pytest.mark.services
def test_simulate_closes_its_connection_and_reads_keep_theirs(web_port: int) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", web_port, timeout=10)

    read_status, read_connection = _exchange(connection, "GET", "/api/parts")
    socket_after_read = connection.sock
    # Refused at once (no workload): the policy is the path's, whatever the answer.
    simulate_status, simulate_connection = _exchange(connection, "POST", "/api/simulate", {})
    socket_after_simulate = connection.sock

    assert read_status == 200
    assert read_connection == "keep-alive"
    assert socket_after_read is not None
    assert simulate_status == 400
    assert simulate_connection == "close"
    assert socket_after_simulate is None  # http.client closed it, as the server asked
    # The next request opens a new connection and is served.
    assert _exchange(connection, "GET", "/api/parts")[0] == 200


@pytest.mark.services
def test_a_connection_is_closed_after_its_hundredth_request(web_port: int) -> None:
    """As nginx's keepalive_requests: long-lived connections are spread again over the
    processes as they reconnect."""
    connection = http.client.HTTPConnection("127.0.0.1", web_port, timeout=10)

    answers = [_exchange(connection, "GET", "/api/parts") for _ in range(KEEPALIVE_REQUESTS)]

    assert {status for status, _ in answers} == {200}
    assert {header for _, header in answers[:-1]} == {"keep-alive"}
    assert answers[-1][1] == "close"

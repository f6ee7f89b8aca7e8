"""The README's first command, run as a user would: bin/run serves the app with a live
worker; it is stopped cleanly with SIGTERM (what Ctrl-C / a supervisor sends)."""

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 30.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get_healthz(url: str) -> tuple[int, dict[str, object]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _wait_for_health(url: str, proc: subprocess.Popen[bytes]) -> dict[str, object]:
    deadline = time.monotonic() + START_TIMEOUT_S
    last: object = None
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"bin/run exited early with {proc.returncode}"
        try:
            status, body = _get_healthz(url)
        except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
            last = exc
        else:
            if status == 200:
                return body
            last = body
        time.sleep(1)
    raise AssertionError(f"/healthz never answered 200; last answer: {last}")


def _wait_for_ranking(url: str, proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    """bin/run queues the default rankings; its worker computes them (SQLite, filesystem
    broker: web and worker processes writing one database at once)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"bin/run exited early with {proc.returncode}"
        with urllib.request.urlopen(url, timeout=10) as response:
            body: dict[str, Any] = json.loads(response.read())
            assert body.get("status") != "failed", body.get("error")
            if response.status == 200:
                return body
        time.sleep(1)
    raise AssertionError("the default ranking was never computed")


def _port_is_closed(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def test_bin_run_serves_the_app_with_a_live_worker_and_stops_cleanly(tmp_path: Path) -> None:
    port = _free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(WEB_PORT=str(port), PLANNER_VAR_DIR=str(tmp_path / "var"))
    log_path = tmp_path / "run.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            ["bin/run"], cwd=REPO_ROOT, env=env, stdout=log, stderr=log, start_new_session=True
        )
        try:
            body = _wait_for_health(f"http://127.0.0.1:{port}/healthz", proc)
            home = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5)
            assert home.status == 200
            ranking = _wait_for_ranking(f"http://127.0.0.1:{port}/api/rankings", proc)
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            raise AssertionError(log_path.read_text(errors="replace")) from None

        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=STOP_TIMEOUT_S)

    output = log_path.read_text(errors="replace")
    assert f"http://127.0.0.1:{port}/" in output
    assert body["components"]["workers"]["status"] == "up"  # type: ignore[index]
    assert _port_is_closed(port)
    assert "celery@" in output or "planner@" in output
    assert ranking["rows"][0]["tokens_per_s"] > 0
    assert "database is locked" not in output

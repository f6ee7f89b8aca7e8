"""Production settings, checked in fresh processes as a deployment would load them."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

REPO_ROOT = Path(__file__).resolve().parents[2]


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    drop = {"SECRET_KEY", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    base = {k: v for k, v in os.environ.items() if k not in drop}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO_ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "planner_site.settings.production", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_deploy_check_passes_at_warning_level_with_production_variables() -> None:
    result = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="planner.example.org",
    )

    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_startup_fails_clearly_without_a_secret_key() -> None:
    result = _manage("check")

    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


SECURITY_PROBE = """
from django.conf import settings
from django.test import Client
# A JSON answer needs no collected static files; the headers are the same on every response.
response = Client().get("/api/no-such-endpoint", secure=True,
                        headers={"host": "planner.example.org"})
print("status", response.status_code)
for name in ("Strict-Transport-Security", "X-Content-Type-Options", "X-Frame-Options",
             "Referrer-Policy", "Content-Security-Policy"):
    print(name, "=", response.headers.get(name))
print("cookies secure =", settings.SESSION_COOKIE_SECURE and settings.CSRF_COOKIE_SECURE)
"""


def test_production_pages_carry_the_security_headers_and_secure_cookies() -> None:
    result = _manage(
        "shell",
        "-c",
        SECURITY_PROBE,
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="planner.example.org",
    )

    assert result.returncode == 0, result.stderr
    lines = dict(line.split(" = ", 1) for line in result.stdout.splitlines() if " = " in line)
    assert "status 404" in result.stdout
    assert lines["Strict-Transport-Security"].startswith("max-age=31536000")
    assert lines["X-Content-Type-Options"] == "nosniff"
    assert lines["X-Frame-Options"] == "DENY"
    assert lines["Referrer-Policy"] == "same-origin"
    assert "default-src 'self'" in lines["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in lines["Content-Security-Policy"]
    assert lines["cookies secure"] == "True"


SCHEME_PROBE = """
from django.test import Client
for proto in ("https", "http"):
    response = Client().get("/api/no-such-endpoint",
                            headers={"host": "planner.example.org", "x-forwarded-proto": proto})
    print(proto, "=", response.status_code)
"""


@pytest.mark.parametrize(
    ("proxies", "https_status"),
    [("0", 301), ("1", 404)],  # 301: redirected to https (SECURE_SSL_REDIRECT); 404: served
    ids=["no-proxy-the-client-cannot-claim-https", "behind-a-tls-proxy-it-says-https"],
)
def test_x_forwarded_proto_counts_only_behind_a_trusted_proxy(
    proxies: str, https_status: int
) -> None:
    result = _manage(
        "shell",
        "-c",
        SCHEME_PROBE,
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="planner.example.org",
        SECURE_SSL_REDIRECT="true",
        TRUSTED_PROXY_COUNT=proxies,
    )

    assert result.returncode == 0, result.stderr
    statuses = dict(line.split(" = ", 1) for line in result.stdout.splitlines() if " = " in line)
    assert statuses == {"https": str(https_status), "http": "301"}


@pytest.mark.django_db
def test_postgresql_connections_run_without_jit() -> None:
    """Every query here is short: JIT compiling once cost 580 ms for a 1 ms query."""
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL setting")
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone() == ("off",)

"""Production settings, checked in fresh processes as a deployment would load them."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

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

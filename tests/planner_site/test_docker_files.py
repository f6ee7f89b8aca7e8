"""No container engine runs here, so the docker/ files are checked as data."""

import json
import re
from pathlib import Path
from typing import Any

import yaml

DOCKER_DIR = Path(__file__).resolve().parents[2] / "docker"
SETTINGS_DIR = Path(__file__).resolve().parents[2] / "planner_site" / "settings"
ENV_READ = re.compile(r"env(?:\.\w+)?\(\s*\"([A-Z][A-Z0-9_]+)\"")


def _compose() -> dict[str, Any]:
    compose: dict[str, Any] = yaml.safe_load((DOCKER_DIR / "compose.yml").read_text())
    return compose


def test_compose_runs_web_two_workers_redis_postgres_and_a_migrate_job() -> None:
    services = _compose()["services"]

    assert {"web", "worker-1", "worker-2", "redis", "postgres", "migrate"} <= set(services)
    for name in ("web", "worker-1", "worker-2", "redis", "postgres"):
        assert "healthcheck" in services[name], name


def test_the_migrate_job_runs_the_setup_commands_of_bin_run() -> None:
    """The quick start and the containers set up the same way (collectstatic is in the
    image, run at build time)."""
    run = (DOCKER_DIR.parent / "bin" / "run").read_text()
    setup = set(re.findall(r"python manage\.py (\w+)", run)) - {"collectstatic"}
    job = " ".join(_compose()["services"]["migrate"]["command"])

    assert setup == {"migrate", "loaddata", "measurements_load", "rankings_refresh"}
    assert setup <= set(re.findall(r"python manage\.py (\w+)", job))


def test_compose_redis_keeps_an_append_only_file_on_a_volume() -> None:
    redis = _compose()["services"]["redis"]

    assert "--appendonly" in redis["command"]
    assert any(str(volume).endswith(":/data") for volume in redis["volumes"])


def test_dockerfile_runs_as_a_non_root_user_in_a_slim_final_stage() -> None:
    dockerfile = (DOCKER_DIR / "Dockerfile").read_text()
    final_stage = dockerfile.split("FROM ")[-1]

    assert "AS runtime" in final_stage
    assert "build-essential" not in final_stage
    assert "USER planner" in final_stage
    assert "collectstatic" in final_stage


def test_every_environment_variable_the_settings_read_is_listed_in_env_example() -> None:
    read = {
        name for path in SETTINGS_DIR.glob("*.py") for name in ENV_READ.findall(path.read_text())
    }
    listed = {
        line.split("=", 1)[0]
        for line in (DOCKER_DIR / ".env.example").read_text().splitlines()
        if line and not line.startswith("#")
    }

    assert read, "the pattern found no env reads: the test itself is broken"
    assert read - listed == set()


def test_the_image_and_the_procfile_serve_with_the_same_gunicorn_settings() -> None:
    """Processes, threads and the connection policy live in planner_site/gunicorn.py; the
    container and `bin/run` must both load it and not set them again on the command line
    (the bulkhead, simulator/concurrency.py, counts on more threads than simulate slots)."""
    procfile = (DOCKER_DIR.parent / "Procfile").read_text()
    web = next(line for line in procfile.splitlines() if line.startswith("web:"))
    dockerfile = (DOCKER_DIR / "Dockerfile").read_text()
    cmd = " ".join(json.loads(dockerfile.split("\nCMD ", 1)[1].splitlines()[0]))

    for command in (web, cmd):
        assert "--config python:planner_site.gunicorn" in command, command
        for option in ("--workers", "--threads", "-w ", "--keep-alive"):
            assert option not in command, (option, command)

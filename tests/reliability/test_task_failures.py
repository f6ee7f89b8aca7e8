"""How a failed ranking task leaves its run: failed with a readable error, or left to the
sweep when the broker, not the run, was the problem."""

from typing import Any

import pytest
from celery.exceptions import TimeLimitExceeded
from kombu.exceptions import OperationalError as BrokerError

from simulator.models import RunKind, RunStatus, SimulationRun
from simulator.tasks import ranking_start


def _running_ranking() -> SimulationRun:
    return SimulationRun.objects.create(
        kind=RunKind.RANKING,
        input={},
        input_hash="b" * 64,
        engine_version="test",
        status=RunStatus.RUNNING,
    )


@pytest.mark.django_db
def test_a_broker_error_while_fanning_out_leaves_the_run_to_the_sweep() -> None:
    run = _running_ranking()

    ranking_start.on_failure(BrokerError("Error 111 connecting"), "task", (str(run.pk),), {}, None)

    run.refresh_from_db()
    assert (run.status, run.error) == (RunStatus.RUNNING, "")


@pytest.mark.django_db
def test_a_hard_time_limit_fails_the_run_naming_the_limit(settings: Any) -> None:
    settings.CELERY_TASK_TIME_LIMIT = 360
    run = _running_ranking()

    ranking_start.on_failure(TimeLimitExceeded(360), "task", (str(run.pk),), {}, None)

    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error == "The simulation ran past its hard time limit (360 s) and was stopped."

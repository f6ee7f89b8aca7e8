"""The real path: producer → broker → worker process → result in the database."""

import pytest
from django.conf import settings
from django_celery_results.models import TaskResult

from simulator.tasks import ping

TASK_TIMEOUT_S = 30


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_task_runs_on_a_real_worker_over_redis_and_postgres(celery_worker_process: str) -> None:
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    assert settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"

    result = ping.delay("hello from the test")

    assert result.get(timeout=TASK_TIMEOUT_S) == {"reply": "hello from the test"}
    stored = TaskResult.objects.get(task_id=result.id)
    assert stored.status == "SUCCESS"
    assert stored.task_name == "simulator.ping"
    assert TaskResult.objects.filter(task_id=result.id, worker=celery_worker_process).exists()
    assert '"hello from the test"' in stored.result


@pytest.mark.django_db(transaction=True)
def test_a_task_runs_on_the_configured_broker_whatever_it_is(celery_worker_process: str) -> None:
    # The embedded default (filesystem broker, SQLite) must run a real worker too.
    result = ping.delay("embedded")

    assert result.get(timeout=TASK_TIMEOUT_S) == {"reply": "embedded"}
    assert TaskResult.objects.filter(task_id=result.id, status="SUCCESS").exists()

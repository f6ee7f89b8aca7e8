import uuid

import pytest
from rest_framework.test import APIClient

from simulator.models import RunKind, RunStatus, SimulationRun


@pytest.mark.django_db
def test_a_run_reports_its_status_progress_and_result() -> None:
    run = SimulationRun.objects.create(
        kind=RunKind.RANKING,
        input={"workload": {"kind": "train"}},
        input_hash="0" * 64,
        engine_version="test",
        status=RunStatus.RUNNING,
        progress_pct=40,
        chunks_total=5,
        chunks_done=2,
    )

    response = APIClient().get(f"/api/simulations/{run.pk}")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "running"
    assert body["progress_pct"] == 40
    assert (body["chunks_done"], body["chunks_total"]) == (2, 5)
    assert body["result"] is None
    assert body["url"].endswith(f"/api/simulations/{run.pk}")


@pytest.mark.django_db
def test_an_unknown_run_id_is_a_json_404() -> None:
    response = APIClient().get(f"/api/simulations/{uuid.uuid4()}")

    assert response.status_code == 404
    assert "detail" in response.json()

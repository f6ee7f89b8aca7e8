"""The measurement admin: staff accept or reject submissions; accepting predicts the row
and puts it on the accuracy page."""

from __future__ import annotations

import pytest
from django.test import Client

from simulator.models import Measurement, MeasurementOrigin, MeasurementStatus
from tests.accuracy.factories import MeasurementFactory
from tests.catalog.factories import UserFactory

pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/simulator/measurement/"


def staff_client() -> Client:
    client = Client()
    client.force_login(UserFactory.create(is_staff=True, is_superuser=True))
    return client


def pending() -> Measurement:
    return MeasurementFactory.create(
        origin=MeasurementOrigin.USER, status=MeasurementStatus.PENDING
    )


def test_the_changelist_filters_by_status(corpus: int) -> None:
    pending()
    response = staff_client().get(CHANGELIST, {"status__exact": "pending"})
    assert response.status_code == 200
    assert response.context["cl"].result_count == 1


def test_accepting_predicts_the_row_and_shows_it_in_the_accuracy_api(corpus: int) -> None:
    row = pending()
    response = staff_client().post(
        CHANGELIST, {"action": "accept", "_selected_action": [row.pk]}, follow=True
    )
    assert response.status_code == 200
    row.refresh_from_db()
    assert row.status == MeasurementStatus.ACCEPTED
    assert row.reviewed_at is not None
    assert row.modeled
    assert row.predicted is not None
    rows = Client().get("/api/accuracy").json()["rows"]
    shown = next(r for r in rows if r["id"] == row.row_id)
    assert shown["predicted"] == pytest.approx(row.predicted)
    assert shown["origin"] == "user"


def test_rejecting_keeps_the_row_out_of_the_report(corpus: int) -> None:
    row = pending()
    staff_client().post(CHANGELIST, {"action": "reject", "_selected_action": [row.pk]})
    row.refresh_from_db()
    assert row.status == MeasurementStatus.REJECTED
    assert row.predicted is None
    ids = {r["id"] for r in Client().get("/api/accuracy").json()["rows"]}
    assert row.row_id not in ids

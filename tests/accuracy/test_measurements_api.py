"""POST /api/measurements: signed-in users submit a measurement; it waits for staff review
and changes no figure until accepted. Bad input is a 400 naming the field."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from simulator.models import Measurement, MeasurementOrigin, MeasurementStatus
from tests.catalog.factories import UserFactory

pytestmark = pytest.mark.django_db
URL = "/api/measurements"
BODY: dict[str, Any] = {
    "category": "inference_gpu_dense",
    "engine": "llama.cpp CUDA b4000, ngl 99",
    "hardware": {"gpu": "NVIDIA GeForce RTX 4090 24GB", "gpu_count": 1},
    "model": "Llama 3 8B",
    "quant": "Q4_K_M",
    "workload": {"batch": 1, "phase": "decode", "test": "tg512"},
    "value": 128.5,
    "unit": "tok/s",
    "source_url": "https://example.org/my-run",
    "command": "llama-bench -m llama3-8b-q4_k_m.gguf -p 0 -n 512 -ngl 99",
}


def user_client() -> tuple[APIClient, User]:
    user = UserFactory.create()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client, user


def test_an_anonymous_post_is_refused_and_stores_nothing() -> None:
    response = APIClient().post(URL, BODY, format="json")
    assert response.status_code in (401, 403)
    assert not Measurement.objects.exists()


def test_a_signed_in_user_submits_a_pending_measurement() -> None:
    client, user = user_client()
    response = client.post(URL, BODY, format="json")
    assert response.status_code == 201
    assert response.json()["status"] == "pending"
    row = Measurement.objects.get(row_id=response.json()["id"])
    assert (row.origin, row.status, row.submitter) == (
        MeasurementOrigin.USER,
        MeasurementStatus.PENDING,
        user,
    )
    assert row.command == BODY["command"]
    assert (row.value, row.hardware, row.source_url) == (
        BODY["value"],
        BODY["hardware"],
        BODY["source_url"],
    )


def test_a_submission_is_not_in_the_accuracy_report_until_accepted(corpus: int) -> None:
    before = APIClient().get("/api/accuracy").json()
    client, _ = user_client()
    row_id = client.post(URL, {**BODY, "value": 5.0}, format="json").json()["id"]
    after = APIClient().get("/api/accuracy").json()
    assert row_id not in {row["id"] for row in after["rows"]}
    assert after == before


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("value", "NaN"),
        ("value", "Infinity"),
        ("value", -3.0),
        ("value", 0),
        ("value", 1e12),
        ("value", "fast"),
        ("category", "not_a_category"),
        ("unit", "furlongs"),
        ("hardware", "RTX 4090"),
        ("hardware", {}),
        ("workload", ["decode"]),
        ("source_url", "not a url"),
        ("command", ""),
        ("model", "x" * 201),
    ],
)
def test_bad_input_is_a_400_naming_the_field(field: str, value: object) -> None:
    client, _ = user_client()
    response = client.post(URL, {**BODY, field: value}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert set(body["errors"]) == {field}
    assert field in body["detail"]
    assert not Measurement.objects.exists()


@pytest.mark.parametrize("field", ["command", "source_url", "value", "hardware"])
def test_a_missing_field_is_named(field: str) -> None:
    client, _ = user_client()
    body = {k: v for k, v in BODY.items() if k != field}
    response = client.post(URL, body, format="json")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {field}


def test_a_literal_nan_in_the_json_is_a_400_and_stores_nothing() -> None:
    client, _ = user_client()
    text = '{"value": NaN}'
    response = client.post(URL, text, content_type="application/json")
    assert response.status_code == 400
    assert not Measurement.objects.exists()


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("model", {**BODY, "model": "Llama\x00 3"}),
        ("hardware.gpu", {**BODY, "hardware": {"gpu": "RTX\x004090", "gpu_count": 1}}),
        ("workload.test", {**BODY, "workload": {**BODY["workload"], "test": "tg\x07512"}}),
    ],
)
def test_control_characters_anywhere_are_a_400_naming_the_path(
    path: str, body: dict[str, Any]
) -> None:
    client, _ = user_client()
    response = client.post(URL, body, format="json")
    assert response.status_code == 400
    assert path in response.json()["errors"]
    assert not Measurement.objects.exists()

import pytest
from django.test import Client


@pytest.mark.django_db(transaction=True)
def test_healthz_is_200_when_database_broker_and_a_worker_are_up(
    client: Client, celery_worker_process: str
) -> None:
    response = client.get("/healthz")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["down"] == []
    assert {name: c["status"] for name, c in body["components"].items()} == {
        "database": "up",
        "broker": "up",
        "workers": "up",
    }
    assert celery_worker_process in body["components"]["workers"]["detail"]


@pytest.mark.django_db
def test_healthz_is_503_and_names_the_broker_when_it_points_at_a_dead_port(
    client: Client, settings: object
) -> None:
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # type: ignore[attr-defined]

    response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert "broker" in body["down"]
    assert body["components"]["broker"]["status"] == "down"
    assert body["components"]["database"]["status"] == "up"
    assert "refused" in body["components"]["broker"]["detail"].lower()


def test_unknown_api_urls_answer_json_404(client: Client) -> None:
    response = client.get("/api/no-such-endpoint")

    assert response.status_code == 404
    assert response.json() == {"detail": "No API endpoint at /api/no-such-endpoint."}


@pytest.mark.django_db
def test_a_503_tells_the_client_when_to_come_back(client: Client, settings: object) -> None:
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # type: ignore[attr-defined]
    settings.HEALTHZ_RETRY_AFTER_S = 7  # type: ignore[attr-defined]

    response = client.get("/healthz")

    assert response.status_code == 503
    assert response["Retry-After"] == "7"


@pytest.mark.django_db(transaction=True)
def test_a_worker_that_answered_recently_is_not_pinged_again(
    client: Client, celery_worker_process: str, settings: object
) -> None:
    from planner_site import health

    settings.HEALTHZ_WORKER_CACHE_S = 60.0  # type: ignore[attr-defined]
    health._last_worker_up = None
    first = client.get("/healthz").json()["components"]["workers"]
    answered = health._last_worker_up
    second = client.get("/healthz").json()["components"]["workers"]

    assert first == second == {"status": "up", "detail": first["detail"]}
    assert celery_worker_process in first["detail"]
    assert answered is not None
    assert health._last_worker_up is answered  # the second answer came from the first ping

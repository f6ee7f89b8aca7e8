"""Pages that simulate share POST /api/simulate's protections: the anonymous budget (one per
client, whichever way it asks) and the bulkhead of simulate slots."""

from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from simulator.concurrency import BUSY_RETRY_AFTER_S, simulate_slot
from simulator.models import SimulationRun
from simulator.throttles import SimulateAnonThrottle
from tests.frontend.test_views import CUSTOM

pytestmark = pytest.mark.usefixtures("catalog")
BUDGET = 2
COMPARED = {"builds": ["seed-a-budget-single-gpu", "seed-c-single-rtx-5090"]}


@pytest.fixture
def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    cache.clear()
    monkeypatch.setitem(SimulateAnonThrottle.THROTTLE_RATES, "simulate_anon", f"{BUDGET}/min")


def _simulate_page(client: Client, tokens: int) -> Any:
    return client.get("/simulate/", {**CUSTOM, "tokens": str(tokens)})


@pytest.mark.usefixtures("small_budget")
def test_an_anonymous_client_past_its_budget_gets_429_and_nothing_is_computed(
    client: Client,
) -> None:
    answered = [_simulate_page(client, tokens).status_code for tokens in range(1, BUDGET + 1)]
    runs = SimulationRun.objects.count()

    refused = _simulate_page(client, BUDGET + 1)

    assert answered == [200] * BUDGET
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "Too many simulations" in refused.content.decode()
    assert SimulationRun.objects.count() == runs


@pytest.mark.usefixtures("small_budget")
def test_the_api_and_the_pages_spend_one_budget(client: Client) -> None:
    body = {"workload": {"model": "glm-4.7", "quant": "NF4d+NF2e"}, "hardware": {"gpu": "RTX 4090"}}
    api = [APIClient().post("/api/simulate", body, format="json").status_code for _ in range(2)]

    page = _simulate_page(client, 7)

    assert api == [200, 200]
    assert page.status_code == 429


@pytest.mark.usefixtures("small_budget")
def test_a_signed_in_user_is_not_held_to_the_anonymous_budget(
    client: Client, django_user_model: Any
) -> None:
    client.force_login(django_user_model.objects.create_user("reader", password="pw"))
    statuses = [_simulate_page(client, tokens).status_code for tokens in range(1, BUDGET + 2)]
    assert statuses == [200] * (BUDGET + 1)


def test_with_every_simulate_slot_taken_a_page_waits_then_gets_503(
    client: Client, settings: Any
) -> None:
    settings.SIMULATE_CONCURRENCY = 1
    settings.SIMULATE_SLOT_WAIT_S = 0.2

    with simulate_slot():
        busy = client.get("/compare/", COMPARED)
    after = client.get("/compare/", COMPARED)

    assert busy.status_code == 503
    assert busy["Retry-After"] == str(BUSY_RETRY_AFTER_S)
    assert after.status_code == 200
    assert "Build A" in after.content.decode()


@pytest.mark.usefixtures("small_budget")
def test_the_serving_pages_spend_the_same_anonymous_budget(client: Client) -> None:
    serving = {"model": "llama-3.1-8b", "quant": "Q4_K_M", "placement": "auto"}
    answered = [
        client.get("/simulate/serve/", {**serving, "context": str(4096 * n)}).status_code
        for n in range(1, BUDGET + 1)
    ]
    runs = SimulationRun.objects.count()

    refused = client.get("/builds/seed-b-dual-4090-consumer/serve/", serving)

    assert answered == [200] * BUDGET
    assert refused.status_code == 429
    assert SimulationRun.objects.count() == runs

"""Who may write what, for every write operation the API schema declares: each one has a
stated policy, a denied request changes nothing (rows and price history), read-only
endpoints refuse every write method, and session-authenticated writes need the CSRF token."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from catalog.models import PriceObservation
from tests.catalog.factories import pricing_staff

pytestmark = pytest.mark.django_db

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((REPO_ROOT / "catalog" / "fixtures").glob("*.json"))
WRITE_METHODS = ("post", "put", "patch", "delete")
# Every write operation of the API and who may call it. A new write endpoint fails
# test_every_write_operation_has_a_stated_policy until it is listed here (and so tested).
WRITE_POLICY = {
    ("/api/prices", "post"): "staff",
    ("/api/simulate", "post"): "public",  # rate-limited, cost-capped (tests/simulator)
    ("/api/measurements", "post"): "authenticated",  # pending until staff accept it
}
VALID_BODIES = {
    ("/api/prices", "post"): {
        "part": "rtx-4090", "amount": "1650.00", "condition": "used", "vendor": "ebay",
        "observed_on": "2026-11-20",
    },
}  # fmt: skip
STAFF_ONLY = [key for key, policy in WRITE_POLICY.items() if policy == "staff"]


def schema_operations() -> dict[str, list[str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {path: [m for m in ops if m in ("get", *WRITE_METHODS)] for path, ops in
            schema["paths"].items()}  # fmt: skip


def snapshot() -> dict[str, Any]:
    """Row counts of every catalog and simulator table, and every part's current price."""
    counts: dict[str, Any] = {
        model._meta.label: model._default_manager.count()
        for app in ("catalog", "simulator")
        for model in apps.get_app_config(app).get_models()
    }
    prices = PriceObservation.objects.order_by("pk").values_list("pk", "amount", "withdrawn")
    return {**counts, "prices": list(prices)}


def as_anonymous() -> APIClient:
    return APIClient()


def as_user_session() -> APIClient:
    client = APIClient()
    client.force_login(User.objects.create_user("someone", password="pw-for-the-test"))
    return client


def as_user_token() -> APIClient:
    client = APIClient()
    token = Token.objects.create(user=User.objects.create_user("script", password="pw-x"))
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def as_staff_session() -> APIClient:
    client = APIClient()
    client.force_login(pricing_staff(username="pricer"))
    return client


DENIED: list[tuple[str, Callable[[], APIClient], set[int]]] = [
    ("anonymous", as_anonymous, {401, 403}),
    ("ordinary-user-session", as_user_session, {403}),
    ("ordinary-user-token", as_user_token, {403}),
]


@pytest.fixture
def catalog(db: None) -> None:
    call_command("loaddata", *map(str, FIXTURES), verbosity=0)


def concrete(path: str) -> str:
    """The path with its parameters filled with objects that exist (or a fresh run id)."""
    if "{run_id}" in path:
        return path.replace("{run_id}", str(uuid.uuid4()))
    if "{slug}" not in path:
        return path
    listing = "/api/parts" if path == "/api/parts/{slug}/prices" else path.split("/{slug}")[0]
    first = APIClient().get(listing).json()["results"][0]["slug"]
    return path.replace("{slug}", first)


def test_every_write_operation_has_a_stated_policy() -> None:
    writes = {(path, m) for path, ops in schema_operations().items() for m in ops
              if m in WRITE_METHODS}  # fmt: skip
    assert writes, "the schema lists the API's write operations"
    assert writes <= set(WRITE_POLICY), f"no policy for {sorted(writes - set(WRITE_POLICY))}"


@pytest.mark.usefixtures("catalog")
@pytest.mark.parametrize(("who", "make_client", "statuses"), DENIED, ids=[d[0] for d in DENIED])
@pytest.mark.parametrize("operation", STAFF_ONLY, ids=[f"{m} {p}" for p, m in STAFF_ONLY])
def test_a_staff_write_is_refused_to_everyone_else_and_changes_nothing(
    operation: tuple[str, str], who: str, make_client: Callable[[], APIClient], statuses: set[int]
) -> None:
    path, method = operation
    before = snapshot()

    response = getattr(make_client(), method)(path, VALID_BODIES[operation], format="json")

    assert response.status_code in statuses, (who, response.status_code)
    assert "detail" in response.json()
    assert snapshot() == before


@pytest.mark.usefixtures("catalog")
@pytest.mark.parametrize("operation", STAFF_ONLY, ids=[f"{m} {p}" for p, m in STAFF_ONLY])
def test_the_same_staff_write_succeeds_for_staff(operation: tuple[str, str]) -> None:
    path, method = operation
    before = snapshot()

    response = getattr(as_staff_session(), method)(path, VALID_BODIES[operation], format="json")

    assert response.status_code == 201, response.content
    assert snapshot() != before


@pytest.mark.usefixtures("catalog")
def test_read_only_endpoints_refuse_every_write_method_to_everyone() -> None:
    refused = 0
    for path, ops in schema_operations().items():
        url = concrete(path)
        for method in WRITE_METHODS:
            if method in ops:
                continue
            for who, make_client, _ in [*DENIED, ("staff", as_staff_session, set())]:
                before = snapshot()
                response = getattr(make_client(), method)(url, {"name": "x"}, format="json")
                # Staff reach the method check: 405. Others may be stopped earlier (401/403).
                allowed = {405} if who == "staff" else {401, 403, 405}
                assert response.status_code in allowed, (method, url, who, response.status_code)
                assert snapshot() == before, (method, url, who)
                refused += 1
                User.objects.all().delete()
    assert refused > 100  # every read-only path × 4 methods × 4 kinds of caller


@pytest.mark.usefixtures("catalog")
def test_a_session_write_without_the_csrf_token_is_refused_and_changes_nothing() -> None:
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(pricing_staff(username="pricer"))
    body = VALID_BODIES[("/api/prices", "post")]
    before = snapshot()

    refused = client.post("/api/prices", body, format="json")

    assert refused.status_code == 403
    assert "CSRF" in refused.json()["detail"]
    assert snapshot() == before
    page = client.get("/simulate/")  # any page sets the csrftoken cookie
    token = page.cookies["csrftoken"].value
    accepted = client.post("/api/prices", body, format="json", HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 201


@pytest.mark.usefixtures("catalog")
def test_a_token_write_needs_no_csrf_token() -> None:
    client = APIClient(enforce_csrf_checks=True)
    token = Token.objects.create(user=pricing_staff(username="bot"))
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")

    response = client.post("/api/prices", VALID_BODIES[("/api/prices", "post")], format="json")

    assert response.status_code == 201


@pytest.mark.usefixtures("catalog")
def test_an_admin_price_form_posted_without_the_csrf_token_is_refused() -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(User.objects.create_superuser("root", "root@example.org", "pw"))
    before = snapshot()
    form = {"part": 101, "amount": "1", "currency": "USD", "condition": "new", "vendor": "x",
            "observed_on": "2026-11-20", "seen_price_change_id": 0}  # fmt: skip

    response = client.post("/admin/catalog/priceobservation/add/", form)

    assert response.status_code == 403
    assert re.search(r"CSRF", response.content.decode())
    assert snapshot() == before

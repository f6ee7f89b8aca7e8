"""The admin pages render for staff, and withdrawing a price is logged."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client

from catalog.models import PriceChange, PriceObservation
from tests.catalog.factories import GpuFactory, PriceObservationFactory, UserFactory

pytestmark = pytest.mark.django_db

CHANGELISTS = (
    "part", "gpu", "cpu", "motherboard", "nvmedrive", "nvmecard", "ramkit", "psu", "case",
    "priceobservation", "pricechange", "build",
)  # fmt: skip


@pytest.fixture
def admin_client(client: Client) -> Client:
    client.force_login(UserFactory.create(is_staff=True, is_superuser=True))
    return client


@pytest.mark.usefixtures("catalog_fixtures")
@pytest.mark.parametrize("model", CHANGELISTS)
def test_every_catalog_changelist_renders(admin_client: Client, model: str) -> None:
    assert admin_client.get(f"/admin/catalog/{model}/?q=rtx").status_code == 200


@pytest.mark.usefixtures("catalog_fixtures")
def test_a_gpu_page_shows_its_price_history(admin_client: Client) -> None:
    page = admin_client.get("/admin/catalog/gpu/101/change/").content.decode()
    assert "1800.00" in page


def test_withdrawing_the_current_price_in_the_admin_logs_the_change(admin_client: Client) -> None:
    gpu = GpuFactory.create()
    PriceObservationFactory.create(part=gpu, amount=Decimal(1800), observed_on="2026-01-01")
    wrong = PriceObservationFactory.create(part=gpu, amount=Decimal(18))
    response = admin_client.post(
        "/admin/catalog/priceobservation/",
        {"action": "withdraw", "_selected_action": [wrong.pk]},
    )
    assert response.status_code == 302
    assert PriceObservation.objects.get(pk=wrong.pk).withdrawn
    assert PriceChange.objects.get().new_amount_usd == Decimal(1800)

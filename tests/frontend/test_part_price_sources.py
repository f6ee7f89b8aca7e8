"""A part's page lists every price with its currency, condition, region, vendor and page:
a published price next to the planner's estimate it supersedes."""

from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from catalog.models import Part, PriceChangeVia
from catalog.services import price_observation_create

pytestmark = pytest.mark.usefixtures("catalog")


def _text(response: Any) -> str:
    return str(response.content.decode())


def test_a_part_page_lists_a_sourced_price_with_its_region_and_page(client: Client) -> None:
    html = _text(client.get("/catalog/parts/rtx-3090/"))

    assert "local-llm.net (the author&#x27;s own purchase)" in html
    assert "https://www.local-llm.net/blog/rtx-3090-best-value-2026" in html
    assert "<td>US</td>" in html
    assert "planner estimate" in html  # the older estimate stays in the history


def test_a_price_in_euros_is_listed_in_euros_with_its_region(client: Client) -> None:
    price_observation_create(
        part=Part.objects.get(slug="rtx-3090"), amount=Decimal("650.00"), currency="EUR",
        condition="refurbished", region="EU", vendor="a Berlin shop",
        observed_on=timezone.localdate(), user=None, via=PriceChangeVia.SERVICE,
    )  # fmt: skip

    html = _text(client.get("/catalog/parts/rtx-3090/"))

    assert "650.00 EUR" in html
    assert "<td>refurbished</td>" in html
    assert "<td>EU</td>" in html

"""A part's page lists every price with its currency, condition, region, vendor and page:
a published price next to the planner's estimate it supersedes."""

from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from catalog.models import Part, PriceChangeVia
from catalog.selectors import part_ranking_quotes
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


def test_a_euro_price_that_is_current_is_shown_converted_as_the_rankings_price_it(
    client: Client,
) -> None:
    """The Mac Studio M4 Max's newest price is Apple Italy's €4,674 (after its $3,499
    estimate): the page's current price is that, through the dollar's ECB rate of the rate
    table (1.1476 per euro), as a ranking prices the machine."""
    part = Part.objects.get(slug="mac-studio-m4-max-128gb")
    quotes = part_ranking_quotes(part_ids=[part.pk])[part.pk]
    assert quotes.latest is not None
    assert quotes.latest.currency == "EUR"

    html = _text(client.get("/catalog/parts/mac-studio-m4-max-128gb/"))

    shown = f"${quotes.latest.amount_usd:,.0f}"  # whole dollars, as every price on the pages
    assert f"Current price: <strong>{shown}</strong>" in html
    assert "4674.00 EUR as published" in html
    listing = _text(client.get("/catalog/?kind=system"))
    assert shown in listing


def test_a_part_priced_before_its_estimate_shows_the_published_price(client: Client) -> None:
    """The Corsair HX1500i has PCPartPicker's $348.99 of 2025-07-23 and the planner's
    estimate of February 2026: the page quotes the published price, as the rankings do, and
    lists the estimate in its history."""
    html = _text(client.get("/catalog/parts/corsair-hx1500i/"))

    assert "Current price: <strong>$349</strong>" in html
    assert "PCPartPicker (Corsair HX1500i (2025))" in html.split("Specifications")[0]
    assert "planner estimate" in html  # still in the history

"""Rankings read prices in any currency of the dated rate table (converted to US dollars
through the ECB's euro reference rates) and flag prices older than
PRICE_STALE_AFTER_DAYS; `exclude_stale` leaves such prices out."""

import time
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from catalog.models import Currency, ExchangeRate, Part, PriceChangeVia
from catalog.selectors import CENT
from catalog.services import price_observation_create
from simulator.models import SimulationRun
from simulator.services import rankings
from tests.simulator.conftest import ranking_finish_here
from tests.simulator.freshness import read_once_stale

SMALL = {"kind": "train", "model": "llama-3.1-8b", "quant": "NF4", "seq_len": 1024,
         "tokens": 50_000_000}  # fmt: skip
NARROW = {"gpu_count_max": 1, "storage_tiers": ["gen4_x1"]}
GPU = "RTX 4090"


def _result(**options: Any) -> dict[str, Any]:
    """The narrow ranking with `options`, computed here, as GET /api/simulations/<id> shows it."""
    run = rankings.ranking_create(body={"workload": SMALL, "ranking": {**NARROW, **options}})
    run = ranking_finish_here(run)
    return dict(APIClient().get(f"/api/simulations/{run.pk}").json()["result"])


def _gpu_line(result: dict[str, Any]) -> dict[str, Any]:
    row = next(r for r in result["rows"] if any(p["name"] == GPU for p in r["parts"]))
    return next(p for p in row["parts"] if p["name"] == GPU)


def _usd_per(currency: str) -> Decimal:
    """US dollars per unit of `currency` in the shipped rate table (through the euro)."""
    per_eur = {rate.currency: rate.units_per_eur for rate in ExchangeRate.objects.all()}
    per_eur[Currency.EUR] = Decimal(1)
    return per_eur[Currency.USD] / per_eur[currency]


@pytest.mark.django_db
@pytest.mark.parametrize("currency", [Currency.EUR, Currency.GBP])
def test_a_price_in_another_currency_ranks_converted_with_the_ecb_rate(
    catalog: None, currency: str
) -> None:
    amount = Decimal("1000.00")
    price_observation_create(
        part=Part.objects.get(name=GPU), amount=amount, currency=currency, condition="new",
        vendor="a shop", source_url="https://shop.example/4090",
        observed_on=timezone.localdate(), user=None, via=PriceChangeVia.SERVICE,
    )  # fmt: skip

    line = _gpu_line(_result())

    assert line["unit_usd"] == float((amount * _usd_per(currency)).quantize(CENT))
    assert line["price_currency"] == currency


@pytest.mark.django_db
def test_prices_older_than_the_stale_age_are_marked_stale(catalog: None, settings: Any) -> None:
    settings.PRICE_STALE_AFTER_DAYS = 180  # the shipped support parts date from 2026-02

    result = _result()

    assert result["rows"]
    assert all(row["stale"] and row["stale_parts"] for row in result["rows"])


@pytest.mark.django_db
def test_exclude_stale_leaves_builds_with_an_old_price_unranked_with_the_reason(
    catalog: None, settings: Any
) -> None:
    settings.PRICE_STALE_AFTER_DAYS = 180

    result = _result(exclude_stale=True)

    assert result["ranking"]["exclude_stale"] is True
    assert result["rows"] == []
    assert all("only a price older than 180 days for" in r["reason"] for r in result["unpriced"])


@pytest.mark.django_db
def test_a_longer_stale_age_keeps_the_same_prices_unflagged(catalog: None, settings: Any) -> None:
    settings.PRICE_STALE_AFTER_DAYS = 100_000

    result = _result(exclude_stale=True)

    assert result["rows"]
    assert not any(row["stale"] for row in result["rows"])
    assert SimulationRun.objects.count() == 1


@pytest.mark.django_db
def test_a_new_rate_reprices_get_rankings_at_once(catalog: None) -> None:
    url = "/api/rankings?model=llama-3.1-8b&quant=NF4&limit=500"
    client = APIClient()
    ranking_finish_here(SimulationRun.objects.get(pk=client.get(url).json()["id"]))
    price_observation_create(
        part=Part.objects.get(name=GPU), amount=Decimal("1000.00"), currency=Currency.EUR,
        vendor="a shop", observed_on=timezone.localdate(), user=None, via=PriceChangeVia.SERVICE,
    )  # fmt: skip
    before = _gpu_line(client.get(url).json())
    usd = ExchangeRate.objects.get(currency=Currency.USD)

    changed = time.monotonic()
    ExchangeRate.objects.create(
        currency=Currency.USD, rate_date=usd.rate_date.replace(day=usd.rate_date.day + 1),
        units_per_eur=Decimal("1.2000"), source="a later ECB reference rate (test)",
    )  # fmt: skip
    # A new rate shows as a price change does: once a web process's kept answers expire.
    after = read_once_stale(changed, lambda: _gpu_line(client.get(url).json()))

    assert before["unit_usd"] == float(Decimal("1000.00") * usd.units_per_eur)
    assert after["unit_usd"] == 1200.0

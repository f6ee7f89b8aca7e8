"""Prices as observations: the current price, the change log, and the price epoch that
keys the cached views of rankings (rankings themselves are priced when read)."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from catalog.models import ExchangeRate, PriceChange, PriceChangeVia, PriceObservation
from catalog.selectors import (
    build_price_epoch,
    catalog_price_epoch,
    current_prices_usd,
    exchange_rate_table,
    part_current_price,
    part_estimated_ids,
    part_ranking_quotes,
    price_epoch_python,
    price_valid_list,
)
from catalog.services import price_observation_create, price_observation_withdraw
from tests.catalog.factories import (
    BuildPartFactory,
    GpuFactory,
    PriceObservationFactory,
    UserFactory,
)

FEB = datetime.date(2026, 2, 1)
MAR = datetime.date(2026, 3, 1)

pytestmark = pytest.mark.django_db


def _current(gpu: object) -> PriceObservation | None:
    current = part_current_price(part=gpu)  # type: ignore[arg-type]
    return None if current is None else current.observation


def test_the_current_price_is_the_latest_observation() -> None:
    gpu = GpuFactory.create()
    PriceObservationFactory.create(part=gpu, amount=Decimal(1800), observed_on=FEB)
    latest = PriceObservationFactory.create(part=gpu, amount=Decimal(1700), observed_on=MAR)
    assert _current(gpu) == latest


def test_a_withdrawn_observation_is_never_current() -> None:
    gpu = GpuFactory.create()
    older = PriceObservationFactory.create(part=gpu, observed_on=FEB)
    PriceObservationFactory.create(
        part=gpu, observed_on=MAR, withdrawn=True, withdrawn_reason="typo"
    )
    assert _current(gpu) == older


def test_a_currency_the_rate_table_cannot_convert_is_never_current() -> None:
    gpu = GpuFactory.create()
    PriceObservationFactory.create(part=gpu, currency="EUR", observed_on=MAR)
    assert part_current_price(part=gpu) is None


def _usd_rate(units_per_eur: str) -> None:
    ExchangeRate.objects.create(
        currency="USD", rate_date=MAR, units_per_eur=Decimal(units_per_eur), source="ECB test"
    )


def test_a_euro_price_is_current_once_the_dollar_has_a_rate_converted_through_it() -> None:
    gpu = GpuFactory.create()
    PriceObservationFactory.create(part=gpu, amount=Decimal(1800), observed_on=FEB)
    euro = PriceObservationFactory.create(
        part=gpu, amount=Decimal(1000), currency="EUR", observed_on=MAR
    )
    _usd_rate("1.0825")
    current = part_current_price(part=gpu)
    assert current is not None
    assert current.observation == euro
    assert current.amount_usd == Decimal("1082.50")  # 1000 / 1 x 1.0825
    assert current.converted
    assert current_prices_usd(part_ids=[gpu.pk]) == {gpu.pk: Decimal("1082.50")}


def test_a_parts_page_and_its_ranked_builds_quote_one_price() -> None:
    """An older dollar estimate and a newer euro price: the current price everywhere is the
    euro one, converted as a ranking converts it."""
    gpu = GpuFactory.create()
    PriceObservationFactory.create(
        part=gpu, amount=Decimal(3499), vendor="planner estimate", observed_on=FEB
    )
    PriceObservationFactory.create(
        part=gpu, amount=Decimal(4674), currency="EUR", region="EU", observed_on=MAR
    )
    _usd_rate("1.1477")
    quotes = part_ranking_quotes(part_ids=[gpu.pk])[gpu.pk]
    current = part_current_price(part=gpu)
    assert current is not None
    assert quotes.latest is not None
    assert current.amount_usd == quotes.latest.amount_usd == Decimal("5364.35")
    assert quotes.sourced == quotes.latest  # the euro price is a published one
    assert part_estimated_ids() == frozenset()


def test_a_published_price_supersedes_a_newer_estimate_everywhere() -> None:
    """A published price of February and the planner's estimate of March: the current price
    is the published one on the page, in the parts' list and in rankings with or without
    estimates; the part is not flagged as estimated. An estimate observes no market."""
    gpu = GpuFactory.create()
    PriceObservationFactory.create(part=gpu, amount=Decimal(1650), observed_on=FEB)
    PriceObservationFactory.create(
        part=gpu, amount=Decimal(1900), vendor="planner estimate", observed_on=MAR
    )
    quotes = part_ranking_quotes(part_ids=[gpu.pk])[gpu.pk]
    current = part_current_price(part=gpu)
    assert current is not None
    assert current.amount_usd == Decimal(1650)
    assert quotes.sourced == quotes.latest
    assert quotes.latest is not None
    assert quotes.latest.amount_usd == Decimal(1650)
    assert current_prices_usd(part_ids=[gpu.pk]) == {gpu.pk: Decimal(1650)}
    assert part_estimated_ids() == frozenset()


def test_the_planners_estimate_is_flagged_while_it_is_current() -> None:
    gpu = GpuFactory.create()
    PriceObservationFactory.create(part=gpu, vendor="planner estimate", observed_on=MAR)
    assert part_estimated_ids() == frozenset({gpu.pk})


def test_a_new_price_records_who_when_old_and_new() -> None:
    gpu, staff = GpuFactory.create(), UserFactory.create(is_staff=True)
    PriceObservationFactory.create(part=gpu, amount=Decimal(1800), observed_on=FEB)
    price_observation_create(part=gpu, amount=Decimal(1650), vendor="shop", observed_on=MAR,
                             user=staff, via=PriceChangeVia.API)  # fmt: skip
    change = PriceChange.objects.get()
    seen = (change.part_id, change.old_amount_usd, change.new_amount_usd, change.changed_by)
    assert seen == (gpu.pk, Decimal(1800), Decimal(1650), staff)
    assert change.via == PriceChangeVia.API
    assert change.changed_at is not None


def test_an_older_observation_records_no_change_of_the_current_price() -> None:
    gpu = GpuFactory.create()
    PriceObservationFactory.create(part=gpu, observed_on=MAR)
    price_observation_create(part=gpu, amount=Decimal(5), vendor="shop", observed_on=FEB)
    assert not PriceChange.objects.exists()


def test_withdrawing_the_current_price_records_the_change_back() -> None:
    gpu = GpuFactory.create()
    PriceObservationFactory.create(part=gpu, amount=Decimal(1800), observed_on=FEB)
    wrong = PriceObservationFactory.create(part=gpu, amount=Decimal(18), observed_on=MAR)
    price_observation_withdraw(observation=wrong, reason="missing zeros", user=None,
                               via=PriceChangeVia.ADMIN)  # fmt: skip
    change = PriceChange.objects.get()
    assert (change.old_amount_usd, change.new_amount_usd) == (Decimal(18), Decimal(1800))


def test_it_rejects_a_price_of_zero() -> None:
    with pytest.raises(ValidationError, match="amount"):
        price_observation_create(
            part=GpuFactory.create(), amount=Decimal(0), vendor="x", observed_on=FEB
        )


def test_it_rejects_a_price_observed_in_the_future() -> None:
    tomorrow = datetime.date.today() + datetime.timedelta(days=2)
    with pytest.raises(ValidationError, match="in the future"):
        price_observation_create(part=GpuFactory.create(), amount=Decimal(1), vendor="x",
                                 observed_on=tomorrow)  # fmt: skip


def test_a_new_price_changes_the_catalog_price_epoch() -> None:
    gpu = GpuFactory.create()
    PriceObservationFactory.create(part=gpu, observed_on=FEB)
    before = catalog_price_epoch()
    price_observation_create(part=gpu, amount=Decimal(7), vendor="shop", observed_on=MAR)
    assert catalog_price_epoch() != before


def test_the_catalog_price_epoch_is_stable_without_changes() -> None:
    PriceObservationFactory.create()
    assert catalog_price_epoch() == catalog_price_epoch()


@pytest.mark.parametrize("epoch", [catalog_price_epoch, price_epoch_python])
def test_the_price_epoch_sees_every_kind_of_change(epoch: Callable[[], str]) -> None:
    """The database's digest (PostgreSQL in CI) and the Python one used elsewhere follow an
    edit made behind the services' back (a queryset update), a withdrawal and a deletion."""
    kept = PriceObservationFactory.create(amount=Decimal(100))
    other = PriceObservationFactory.create(amount=Decimal(200))
    seen = {epoch()}
    PriceObservation.objects.filter(pk=kept.pk).update(amount=Decimal(101))
    seen.add(epoch())
    PriceObservation.objects.filter(pk=kept.pk).update(withdrawn=True)
    seen.add(epoch())
    other.delete()
    seen.add(epoch())
    assert len(seen) == 4
    assert epoch() == epoch()


def test_a_build_price_epoch_ignores_parts_outside_the_build() -> None:
    line = BuildPartFactory.create()
    PriceObservationFactory.create(part=line.part)
    before = build_price_epoch(build=line.build)
    price_observation_create(
        part=GpuFactory.create(), amount=Decimal(7), vendor="shop", observed_on=MAR
    )
    assert build_price_epoch(build=line.build) == before


def test_a_build_price_epoch_follows_its_own_parts() -> None:
    line = BuildPartFactory.create()
    PriceObservationFactory.create(part=line.part, observed_on=FEB)
    before = build_price_epoch(build=line.build)
    price_observation_create(part=line.part, amount=Decimal(7), vendor="shop", observed_on=MAR)
    assert build_price_epoch(build=line.build) != before


def test_the_valid_list_holds_what_the_rate_table_converts() -> None:
    """GET /api/prices lists what can be current: dollars always; euros and pounds once the
    dollar has a rate (and the pound its own)."""
    gpu = GpuFactory.create()
    euro = PriceObservationFactory.create(part=gpu, currency="EUR", observed_on=MAR)
    pound = PriceObservationFactory.create(part=gpu, currency="GBP", observed_on=MAR)
    dollar = PriceObservationFactory.create(part=gpu, observed_on=FEB)
    assert set(price_valid_list()) == {dollar}
    _usd_rate("1.0825")
    assert set(price_valid_list()) == {dollar, euro}
    ExchangeRate.objects.create(
        currency="GBP", rate_date=MAR, units_per_eur=Decimal("0.86"), source="ECB test"
    )
    assert set(price_valid_list()) == {dollar, euro, pound}
    assert set(exchange_rate_table().convertible) == {"USD", "EUR", "GBP"}

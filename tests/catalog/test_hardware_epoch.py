"""The hardware epoch: a fingerprint of the parts and their specifications that keys the
stored rankings. Prices never enter it (rankings price their rows when read)."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from decimal import Decimal

import pytest

from catalog.models import Gpu
from catalog.selectors import (
    catalog_hardware_epoch,
    catalog_price_epoch,
    hardware_epoch_python,
    part_current_quotes,
)
from catalog.services import price_observation_create, price_observation_withdraw
from tests.catalog.factories import CpuFactory, GpuFactory, PriceObservationFactory

FEB = datetime.date(2026, 2, 1)
MAR = datetime.date(2026, 3, 1)
EPOCHS = [catalog_hardware_epoch, hardware_epoch_python]

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("epoch", EPOCHS)
def test_a_price_change_leaves_the_hardware_epoch_as_it_was(epoch: Callable[[], str]) -> None:
    gpu = GpuFactory.create()
    PriceObservationFactory.create(part=gpu, amount=Decimal(1800), observed_on=FEB)
    prices, hardware = catalog_price_epoch(), epoch()

    new = price_observation_create(part=gpu, amount=Decimal(1500), vendor="shop", observed_on=MAR)
    price_observation_withdraw(observation=new, reason="typo", user=None, via="service")
    price_observation_create(part=gpu, amount=Decimal(1400), vendor="shop", observed_on=MAR)

    assert catalog_price_epoch() != prices
    assert epoch() == hardware


@pytest.mark.parametrize("epoch", EPOCHS)
def test_the_hardware_epoch_sees_a_new_part_an_edited_spec_a_new_name_and_a_deletion(
    epoch: Callable[[], str],
) -> None:
    gpu = GpuFactory.create()
    seen = {epoch()}
    cpu = CpuFactory.create()
    seen.add(epoch())
    Gpu.objects.filter(pk=gpu.pk).update(vram_gb=48)
    seen.add(epoch())
    Gpu.objects.filter(pk=gpu.pk).update(name="GPU renamed")
    seen.add(epoch())
    cpu.delete()
    seen.add(epoch())

    assert len(seen) == 5
    assert epoch() == epoch()


def test_current_quotes_give_each_priced_part_its_price_and_its_date() -> None:
    priced, unpriced = GpuFactory.create(), GpuFactory.create()
    PriceObservationFactory.create(part=priced, amount=Decimal(1800), observed_on=FEB)
    PriceObservationFactory.create(part=priced, amount=Decimal(1700), observed_on=MAR)
    PriceObservationFactory.create(
        part=priced, amount=Decimal(9), observed_on=MAR, withdrawn=True, withdrawn_reason="typo"
    )

    quotes = part_current_quotes(part_ids=[priced.pk, unpriced.pk])

    assert quotes == {priced.pk: (Decimal(1700), MAR)}


@pytest.mark.parametrize("epoch", EPOCHS)
def test_editing_a_parts_notes_keeps_the_hardware_epoch(epoch: Callable[[], str]) -> None:
    gpu = GpuFactory.create()
    before = epoch()

    Gpu.objects.filter(pk=gpu.pk).update(notes="seen at a shop", source="a new datasheet URL")

    assert epoch() == before

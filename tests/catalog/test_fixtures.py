"""The shipped fixtures: generated from the cited data, idempotent, broad enough to rank."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command

from catalog.fixture_data.price_observations import PRICE_OBSERVATIONS
from catalog.fixture_data.render import FIXTURES
from catalog.management.commands.catalog_fixtures_write import FIXTURES_DIR, fixture_text
from catalog.models import ExchangeRate, Gpu, Part, PartKind, PriceObservation, RamKit
from tests.catalog.conftest import FIXTURES as FIXTURE_FILES

SEED_GPU_PRICES_USD = {
    "RTX 4090": ("1800.00", "used"),
    "RTX 5090": ("2900.00", "new"),
    "A100 80G": ("12000.00", "new"),
    "H100 80G PCIe": ("25000.00", "new"),
    "RTX PRO 6000": ("8000.00", "new"),
}
# reference-model.md §9: the seed's BF16 TFLOPS, kept although datasheets differ.
SEED_BF16_TFLOPS = {
    "RTX 4090": 165, "RTX 5090": 209, "A100 80G": 312, "H100 80G PCIe": 756, "RTX PRO 6000": 300,
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_the_committed_fixture_matches_its_data_module(name: str) -> None:
    assert (FIXTURES_DIR / name).read_text() == fixture_text(FIXTURES[name]())


def test_the_fixture_files_sort_parts_before_prices_before_builds() -> None:
    assert sorted(path.name for path in Path(FIXTURES_DIR).glob("*.json")) == list(FIXTURE_FILES)


@pytest.mark.django_db
def test_loading_the_fixtures_twice_changes_nothing(catalog_fixtures: None) -> None:
    counts = (Part.objects.count(), PriceObservation.objects.count())
    call_command("loaddata", *FIXTURE_FILES, verbosity=0)
    assert (Part.objects.count(), PriceObservation.objects.count()) == counts


@pytest.mark.django_db
@pytest.mark.usefixtures("catalog_fixtures")
def test_every_part_cites_a_source() -> None:
    assert not Part.objects.filter(source="").exists()


# GPUs for which no published price was found (price_observations.py): sold, shown unpriced.
# The search of 2026-11-28 found one for each of the 4070 Ti Super, 4080 Super and 5070 Ti,
# that of 2026-12-06 Hugging Face's MSRPs of the Instinct MI100 and Radeon AI PRO R9700; the
# Instinct MI210 has none, and the MI50's 2018 launch MSRP is left out (sold used only); that
# of 2026-12-08 a Newegg listing of the RTX PRO 5000 Blackwell 48 GB.
UNPRICED_GPUS = {"Instinct MI210", "Radeon Instinct MI50 32GB"}


@pytest.mark.django_db
@pytest.mark.usefixtures("catalog_fixtures")
def test_at_least_20_gpus_have_a_price_and_only_the_unpriced_ones_lack_one() -> None:
    gpus = Gpu.objects.all()
    unpriced = set(gpus.filter(prices__isnull=True).values_list("name", flat=True))
    assert unpriced == UNPRICED_GPUS
    assert gpus.count() - len(unpriced) >= 20


@pytest.mark.django_db
@pytest.mark.usefixtures("catalog_fixtures")
@pytest.mark.parametrize(("name", "price"), SEED_GPU_PRICES_USD.items())
def test_a_seed_gpu_costs_what_the_seed_says(name: str, price: tuple[str, str]) -> None:
    observation = PriceObservation.objects.get(part__name=name)
    assert (str(observation.amount), observation.condition) == price


@pytest.mark.django_db
@pytest.mark.usefixtures("catalog_fixtures")
def test_the_seed_gpus_keep_the_seeds_bf16_tflops() -> None:
    tflops = dict(Gpu.objects.filter(name__in=SEED_BF16_TFLOPS).values_list("name", "bf16_tflops"))
    assert tflops == SEED_BF16_TFLOPS


@pytest.mark.django_db
@pytest.mark.usefixtures("catalog_fixtures")
def test_ram_kits_range_from_32_to_512_gb() -> None:
    sizes = set(RamKit.objects.values_list("capacity_gb", flat=True))
    assert (min(sizes), max(sizes)) == (32, 512)


@pytest.mark.django_db
@pytest.mark.usefixtures("catalog_fixtures")
def test_every_platform_has_several_boards() -> None:
    boards = Part.objects.filter(kind=PartKind.MOTHERBOARD)
    for socket in ("AM5", "LGA1851", "sTR5", "SP5"):
        assert boards.filter(motherboard__socket=socket).count() >= 3, socket


def test_the_fixture_json_is_valid_json() -> None:
    for name in FIXTURE_FILES:
        assert isinstance(json.loads((FIXTURES_DIR / name).read_text()), list)


@pytest.mark.django_db
@pytest.mark.usefixtures("catalog_fixtures")
def test_every_sourced_price_is_loaded_as_published_with_its_page() -> None:
    for sourced in PRICE_OBSERVATIONS:
        observation = PriceObservation.objects.get(
            part_id=sourced.part_pk, source_url=sourced.source_url, vendor=sourced.vendor
        )
        assert observation.amount == Decimal(sourced.amount)
        assert (observation.currency, observation.condition, observation.region) == (
            sourced.currency, sourced.condition, sourced.region,
        )  # fmt: skip
        assert sourced.source_url.startswith("https://")
        assert sourced.dated in ("page", "read")
        assert not observation.is_estimate


@pytest.mark.django_db
@pytest.mark.usefixtures("catalog_fixtures")
def test_the_rate_table_holds_the_ecb_reference_rates_of_its_day() -> None:
    rates = {
        r.currency: (r.units_per_eur, r.rate_date.isoformat()) for r in ExchangeRate.objects.all()
    }

    assert rates == {
        "USD": (Decimal("1.1476"), "2026-03-13"),
        "GBP": (Decimal("0.86503"), "2026-03-13"),
    }

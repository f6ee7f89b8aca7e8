"""Turns the data modules into Django fixture objects (lists of dicts)."""

from typing import Any

from django.utils.text import slugify

from catalog.fixture_data.builds import SEED_BUILD_CREATED_AT, SEED_BUILD_SOURCE, SEED_BUILDS
from catalog.fixture_data.exchange_rates import EXCHANGE_RATES
from catalog.fixture_data.gpus import GPU_PRICES, GPUS
from catalog.fixture_data.host import (
    CASES,
    HOST_PRICES,
    NVME_CARDS,
    NVME_DRIVES,
    PSUS,
    RAM_KITS,
)
from catalog.fixture_data.platforms import BOARDS, CPUS, PLATFORM_PRICES
from catalog.fixture_data.price_observations import PRICE_OBSERVATIONS
from catalog.fixture_data.systems import SYSTEM_PRICES, SYSTEMS

# Fixture file name -> objects; the numbers make `loaddata */fixtures/*.json` (sorted) load
# parts before the prices and builds that point at them.
PARTS_FILE = "010_parts.json"
PRICES_FILE = "020_prices.json"
RATES_FILE = "025_exchange_rates.json"
BUILDS_FILE = "030_builds.json"

ALL_PARTS = GPUS + CPUS + BOARDS + NVME_DRIVES + NVME_CARDS + RAM_KITS + PSUS + CASES + SYSTEMS
ALL_PRICES = GPU_PRICES + PLATFORM_PRICES + HOST_PRICES + SYSTEM_PRICES
MODEL_BY_KIND = {
    "gpu": "catalog.gpu",
    "cpu": "catalog.cpu",
    "motherboard": "catalog.motherboard",
    "nvme_drive": "catalog.nvmedrive",
    "nvme_card": "catalog.nvmecard",
    "ram_kit": "catalog.ramkit",
    "psu": "catalog.psu",
    "case": "catalog.case",
    "system": "catalog.system",
}


def _part_objects(part: dict[str, Any]) -> list[dict[str, Any]]:
    base = {
        "kind": part["kind"],
        "name": part["name"],
        "slug": slugify(part["name"]),
        "manufacturer": part["manufacturer"],
        "source": part["source"],
        "notes": part["notes"],
    }
    return [
        {"model": "catalog.part", "pk": part["pk"], "fields": base},
        {"model": MODEL_BY_KIND[part["kind"]], "pk": part["pk"], "fields": part["fields"]},
    ]


def parts_fixture() -> list[dict[str, Any]]:
    return [obj for part in ALL_PARTS for obj in _part_objects(part)]


def _price_fields(
    part_pk: int, amount: str, condition: str, vendor: str, source: str, observed_on: str
) -> dict[str, Any]:
    return {
        "part": part_pk,
        "amount": amount,
        "currency": "USD",
        "condition": condition,
        "region": "US",
        "vendor": vendor,
        "source_url": source,
        "observed_on": observed_on,
        "withdrawn": False,
        "withdrawn_reason": "",
        "created_by": None,
    }


def prices_fixture() -> list[dict[str, Any]]:
    """The seed's and the planner's prices (US dollars, US street prices), then the prices
    read on public pages (catalog/fixture_data/price_observations.py) as published."""
    rows = [
        _price_fields(part_pk, amount, condition, vendor, source, observed_on)
        for part_pk, amount, condition, (vendor, source), observed_on in ALL_PRICES
    ]
    rows += [
        {**_price_fields(p.part_pk, p.amount, p.condition, p.vendor, p.source_url,
                         p.observed_on),
         "currency": p.currency, "region": p.region}
        for p in PRICE_OBSERVATIONS
    ]  # fmt: skip
    objects = []
    seen: dict[int, int] = {}
    for fields in rows:
        part_pk = fields["part"]
        seen[part_pk] = seen.get(part_pk, 0) + 1
        # Stable keys: ten slots per part, in the order the data lists them.
        objects.append(
            {"model": "catalog.priceobservation", "pk": part_pk * 10 + seen[part_pk],
             "fields": fields}
        )  # fmt: skip
    return objects


def exchange_rates_fixture() -> list[dict[str, Any]]:
    return [
        {"model": "catalog.exchangerate", "pk": pk,
         "fields": {"currency": currency, "units_per_eur": rate, "rate_date": on,
                    "source": source}}
        for pk, (currency, rate, on, source) in enumerate(EXCHANGE_RATES, start=1)
    ]  # fmt: skip


def builds_fixture() -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = []
    for build in SEED_BUILDS:
        fields = {
            "name": build["name"],
            "slug": build["slug"],
            "origin": "seed",
            "description": build["description"],
            "source": SEED_BUILD_SOURCE,
            "signature": None,
            "created_at": SEED_BUILD_CREATED_AT,
        }
        objects.append({"model": "catalog.build", "pk": build["pk"], "fields": fields})
        for index, (part_pk, quantity, unit_usd) in enumerate(build["lines"], start=1):
            line = {"build": build["pk"], "part": part_pk, "quantity": quantity,
                    "quoted_unit_usd": unit_usd}  # fmt: skip
            objects.append(
                {"model": "catalog.buildpart", "pk": build["pk"] * 100 + index, "fields": line}
            )
    return objects


FIXTURES = {
    PARTS_FILE: parts_fixture,
    PRICES_FILE: prices_fixture,
    RATES_FILE: exchange_rates_fixture,
    BUILDS_FILE: builds_fixture,
}

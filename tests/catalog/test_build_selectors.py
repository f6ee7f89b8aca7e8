"""Build selectors the simulation service uses: unsaved builds, priced lines, refusal of
incompatible builds, and the build_create service."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from catalog.models import Build, Part
from catalog.selectors import (
    BuildIncompatibleError,
    build_hardware,
    build_priced_lines,
    build_total_usd,
    build_unsaved_from_lines,
)
from catalog.services import build_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog_fixtures")]

# Seed build A's parts by name.
BUILD_A = ("RTX 4090", "MSI PRO B650-P WIFI", "Ryzen 5 7600",
           "Kingston FURY Beast 32GB (2x16GB) DDR5-6000", "Samsung 990 PRO 2TB",
           "Corsair RM850e", "Phanteks XT PRO")  # fmt: skip


def lines(*names: str, gpus: int = 1) -> list[tuple[Part, int]]:
    parts = [Part.objects.get(name=name) for name in names]
    return [(part, gpus if part.kind == "gpu" else 1) for part in parts]


def test_an_unsaved_build_prices_like_the_seed_build() -> None:
    build = build_unsaved_from_lines(lines(*BUILD_A))
    assert build_total_usd(build=build) == Decimal(2700)
    assert Build.objects.count() == 4  # nothing stored


def test_an_unsaved_build_has_the_seed_builds_hardware() -> None:
    unsaved = build_hardware(build=build_unsaved_from_lines(lines(*BUILD_A)))
    assert unsaved == build_hardware(build=Build.objects.get(slug="seed-a-budget-single-gpu"))


def test_priced_lines_are_json_safe_with_unit_prices() -> None:
    summary = build_priced_lines(build=Build.objects.get(slug="seed-c-single-rtx-5090"))
    assert (summary["price_usd"], summary["quoted_price_usd"]) == (4195.0, 4195.0)
    assert {"part_id", "kind", "name", "quantity", "unit_usd"} == set(summary["parts"][0])


def test_an_incompatible_build_has_no_hardware_and_says_why() -> None:
    three_gpus = build_unsaved_from_lines(lines(*BUILD_A, gpus=3))
    with pytest.raises(BuildIncompatibleError, match="More cards than slots"):
        build_hardware(build=three_gpus)


def test_build_create_refuses_an_incompatible_build_with_every_reason() -> None:
    with pytest.raises(ValidationError) as error:
        build_create(name="too many", lines=lines(*BUILD_A, gpus=3))
    assert any("PSU too small" in message for message in error.value.messages)


def test_build_create_stores_a_compatible_build() -> None:
    build = build_create(name="my build", lines=lines(*BUILD_A))
    assert build_total_usd(build=build) == Decimal(2700)

"""Catalog test helpers: a complete compatible spec built from unsaved factories, and the
shipped fixtures loaded into the test database."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.management import call_command

from catalog.spec import BuildSpec
from tests.catalog import factories

FIXTURES = ("010_parts.json", "020_prices.json", "025_exchange_rates.json", "030_builds.json")


def make_spec(**overrides: Any) -> BuildSpec:
    """A valid 1-GPU AM5 build (unsaved parts); keyword arguments replace any field."""
    values: dict[str, Any] = {
        "gpu": factories.GpuFactory.build(),
        "gpu_count": 1,
        "cpu": factories.CpuFactory.build(),
        "cpu_count": 1,
        "motherboard": factories.MotherboardFactory.build(),
        "ram_kit": factories.RamKitFactory.build(),
        "ram_kit_count": 1,
        "nvme_drive": factories.NvmeDriveFactory.build(),
        "nvme_count": 1,
        "psu": factories.PsuFactory.build(),
        "psu_count": 1,
        "case": factories.CaseFactory.build(),
    }
    values.update(overrides)
    return BuildSpec(**values)


@pytest.fixture
def spec() -> Callable[..., BuildSpec]:
    return make_spec


@pytest.fixture
def catalog_fixtures(db: None) -> None:
    call_command("loaddata", *FIXTURES, verbosity=0)

"""Seed 000's builds A-D, from the shipped fixtures: exactly the seed's parts, prices and
totals, compatible, and the hardware the seed's tables assume."""

from __future__ import annotations

from decimal import Decimal
from typing import cast

import pytest

from catalog.compatibility import Severity
from catalog.models import Build, BuildOrigin
from catalog.selectors import build_check, build_hardware, build_total_usd
from catalog.spec import HardwareDict

# Seed 000 prints ~$2,700, ~$5,000, ~$4,200, ~$7,600; its parts sum to these.
SEED_TOTALS_USD = {
    "seed-a-budget-single-gpu": Decimal(2700),
    "seed-b-dual-4090-consumer": Decimal(5000),
    "seed-c-single-rtx-5090": Decimal(4195),
    "seed-d-dual-rtx-5090": Decimal(7605),
}

pytestmark = pytest.mark.usefixtures("catalog_fixtures")


@pytest.mark.django_db
def test_the_four_seed_builds_are_present_by_name() -> None:
    slugs = set(Build.objects.filter(origin=BuildOrigin.SEED).values_list("slug", flat=True))
    assert slugs == set(SEED_TOTALS_USD)


@pytest.mark.django_db
@pytest.mark.parametrize(("slug", "total"), SEED_TOTALS_USD.items())
def test_a_seed_builds_parts_sum_to_the_seeds_total(slug: str, total: Decimal) -> None:
    assert build_total_usd(build=Build.objects.get(slug=slug)) == total


@pytest.mark.django_db
@pytest.mark.parametrize(("slug", "total"), SEED_TOTALS_USD.items())
def test_a_seed_builds_quoted_prices_sum_to_the_same_total(slug: str, total: Decimal) -> None:
    assert build_total_usd(build=Build.objects.get(slug=slug), quoted=True) == total


@pytest.mark.django_db
@pytest.mark.parametrize("slug", SEED_TOTALS_USD)
def test_a_seed_build_has_no_compatibility_error(slug: str) -> None:
    problems = build_check(build=Build.objects.get(slug=slug))
    assert [p.message for p in problems if p.severity == Severity.ERROR] == []


def _pc_hardware(slug: str) -> HardwareDict:
    hardware = build_hardware(build=Build.objects.get(slug=slug))
    assert "gpu" in hardware  # a PC build, not a whole system
    return cast(HardwareDict, hardware)


TRAINING_KEYS = ("gpu", "gpu_count", "nvme_gbps", "ram_gb", "pinned_gb")


@pytest.mark.django_db
def test_build_a_streams_from_one_gen4_drive_at_7_gbps_with_32_gb_ram() -> None:
    hardware = _pc_hardware("seed-a-budget-single-gpu")
    assert {key: hardware[key] for key in TRAINING_KEYS} == {  # type: ignore[literal-required]
        "gpu": {"name": "RTX 4090", "vram_gb": 24, "bf16_tflops": 165.0, "pcie_gbps": 22.0,
                "fp4": False, "mem_gbps": 1008.0, "fp16_tflops": 330.3},
        "gpu_count": 1, "nvme_gbps": 7.0, "ram_gb": 32, "pinned_gb": 26,
    }  # fmt: skip


@pytest.mark.django_db
def test_build_a_gives_inference_its_cpu_and_gpu_link() -> None:
    hardware = _pc_hardware("seed-a-budget-single-gpu")
    # Ryzen 5 7600 (Zen 4, 6 cores, base 3.8 GHz), two DDR5-6000 modules on its two
    # channels, run at the CPU's DDR5-5200: 2 x 5200 MT/s x 8 bytes.
    assert hardware["cpu"] == {
        "name": "Ryzen 5 7600", "cores": 6, "mem_gbps": 2 * 5200 * 8 / 1000,
        "flops_per_core_cycle": 32, "ghz": 3.8,
    }  # fmt: skip
    assert hardware["link_gbps"] == hardware["gpu"]["pcie_gbps"] == 22.0


@pytest.mark.django_db
def test_build_b_gives_each_4090_11_gbps_at_x8_x8() -> None:
    hardware = _pc_hardware("seed-b-dual-4090-consumer")
    assert (hardware["gpu_count"], hardware["gpu"]["pcie_gbps"]) == (2, 11.0)


@pytest.mark.django_db
def test_build_d_gives_each_5090_22_gbps_at_gen5_x8_x8() -> None:
    hardware = _pc_hardware("seed-d-dual-rtx-5090")
    assert (hardware["gpu_count"], hardware["gpu"]["pcie_gbps"]) == (2, 22.0)
    assert (hardware["ram_gb"], hardware["pinned_gb"]) == (64, 56)

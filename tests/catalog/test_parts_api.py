"""Public read endpoints: parts by kind with specs and current price, price history,
builds; filterable and paginated, no credentials needed."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from catalog.models import Build, Part
from catalog.selectors import part_ranking_quotes

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog_fixtures")]


def get(url: str) -> dict[str, Any]:
    response = APIClient().get(url)
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    return body


def test_the_part_list_is_public_and_paginated() -> None:
    body = get("/api/parts")
    assert body["count"] > 50
    assert len(body["results"]) == 50
    assert body["next"] is not None


def test_the_part_list_filters_by_kind() -> None:
    body = get("/api/parts?kind=psu")
    assert {part["kind"] for part in body["results"]} == {"psu"}


def test_the_gpu_list_filters_by_vram_and_fp4() -> None:
    body = get("/api/parts/gpus?vram_gb__gte=32&fp4_tensor_cores=true")
    assert {gpu["name"] for gpu in body["results"]} == {
        "RTX 5090",
        "RTX PRO 6000",
        "RTX PRO 6000 Blackwell Max-Q",
        "RTX PRO 4500 Blackwell",
        "RTX PRO 5000 Blackwell",
    }


@pytest.mark.parametrize("written", ["32.0", "%2032", "%D9%A3%D9%A2", "32.5"])
def test_an_integer_filter_takes_digits_only(written: str) -> None:
    """vram_gb is an integer column: "32.0", " 32" and "٣٢" are not integers on the wire."""
    response = APIClient().get(f"/api/parts/gpus?vram_gb__gte={written}")
    assert response.status_code == 400, response.content
    assert "vram_gb__gte" in response.json()["errors"]


def test_a_gpu_shows_its_specs_source_and_current_price() -> None:
    gpu = get("/api/parts/gpus/rtx-4090")
    assert (gpu["vram_gb"], gpu["bf16_tflops"], gpu["current_price_usd"]) == (24, 165.0, "1800.00")
    assert gpu["source"].startswith("seed 000")


def test_a_price_published_in_euros_is_given_in_dollars_as_the_rankings_read_it() -> None:
    """The Mac Studio M4 Max's current price is Apple Italy's €4,674, through the rate
    table's dollar rate: the figure its ranked builds are priced at."""
    system = get("/api/parts/systems/mac-studio-m4-max-128gb")
    listed = get("/api/parts?kind=system")["results"]
    quote = part_ranking_quotes(part_ids=[Part.objects.get(slug=system["slug"]).pk])
    latest = next(iter(quote.values())).latest
    assert latest is not None
    assert latest.currency == "EUR"
    assert system["current_price_usd"] == f"{latest.amount_usd:.2f}"
    assert [p["current_price_usd"] for p in listed if p["slug"] == system["slug"]] == [
        system["current_price_usd"]
    ]


def test_a_parts_price_history_lists_every_observation_newest_first() -> None:
    body = get("/api/parts/kingston-fury-beast-64gb-2x32gb-ddr5-6000/prices")
    assert [p["amount"] for p in body["results"]] == ["400.00", "200.00"]


def test_the_price_list_filters_by_kind_and_date() -> None:
    # RAM kits' prices before 2025-07-20: only seed 000's mid-2025 $200 for the 64 GB kit
    # (PCPartPicker's listings of four kits are dated 2025-07-23, the rest 2026-02-01).
    body = get("/api/prices?kind=ram_kit&observed_before=2025-07-20")
    assert [p["part"] for p in body["results"]] == ["kingston-fury-beast-64gb-2x32gb-ddr5-6000"]
    july = get("/api/prices?kind=ram_kit&observed_after=2025-07-23&observed_before=2025-07-23")
    assert len(july["results"]) == 4
    assert {p["observed_on"] for p in july["results"]} == {"2025-07-23"}
    assert {p["vendor"].split(" (")[0] for p in july["results"]} == {"PCPartPicker"}


def test_a_seed_build_shows_its_total_problems_and_hardware() -> None:
    build = get("/api/builds/seed-b-dual-4090-consumer")
    assert Decimal(build["total_usd"]) == Decimal(5000)
    assert [p["rule"] for p in build["problems"]] == ["lane_split"]
    assert build["hardware"]["gpu"]["pcie_gbps"] == 11.0


def test_the_build_list_filters_by_origin() -> None:
    body = get("/api/builds?origin=seed")
    assert body["count"] == Build.objects.filter(origin="seed").count() == 4


def test_a_missing_part_is_a_json_404() -> None:
    response = APIClient().get("/api/parts/gpus/no-such-gpu")
    assert response.status_code == 404

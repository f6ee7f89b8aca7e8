"""Rankings for every kind of buyer: new parts only, one region's prices, a power limit in
watts and a largest enclosure. The filters choose how a finished ranking is shown: the
frontier, counts and reasons follow them; bad values are refused naming the field."""

from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from catalog.models import Case as CaseModel
from catalog.models import CaseSize, Condition, Cpu, Gpu, Part, PriceChangeVia, Region, System
from catalog.services import price_observation_create
from simulator.models import SimulationRun
from simulator.services import rankings
from simulator.services.ranking_filters import RankingFilters
from simulator.services.ranking_views import ranking_view
from tests.simulator.conftest import ranking_finish_here

SMALL = {"kind": "train", "model": "llama-3.1-8b", "quant": "NF4", "seq_len": 1024,
         "tokens": 50_000_000}  # fmt: skip
FLASH = {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M", "context": 32768}
NARROW = {"gpu_count_max": 2, "storage_tiers": ["gen4_x1"]}
GPU = "RTX 4090"
DRIVE = "Crucial T500 2TB"
SIZES = [size.value for size in CaseSize]


def _run(workload: dict[str, Any], **options: Any) -> SimulationRun:
    run = rankings.ranking_create(body={"workload": workload, "ranking": {**NARROW, **options}})
    return ranking_finish_here(run)


def _view(run: SimulationRun, **filters: Any) -> dict[str, Any]:
    return ranking_view(
        run=run, budget_usd=None, sort="price", limit=10_000, filters=RankingFilters(**filters)
    )


def _rated_power_w(row: dict[str, Any]) -> int | None:
    """GPU board power + CPU TDP (each times its count), or a whole system's maximum, read
    from the parts' own records."""
    total = 0
    for line in row["parts"]:
        part = Part.objects.get(pk=line["part_id"])
        for model, field in ((Gpu, "tdp_w"), (Cpu, "tdp_w"), (System, "max_power_w")):
            record = model.objects.filter(pk=part.pk).first()
            if record is not None:
                value = getattr(record, field)
                if value is None:
                    return None
                total += value * line["quantity"]
    return total


def _enclosure(row: dict[str, Any]) -> str | None:
    for line in row["parts"]:
        case = CaseModel.objects.filter(pk=line["part_id"]).first()
        if case is not None:
            return case.size or None
        if System.objects.filter(pk=line["part_id"]).exists():
            return CaseSize.COMPACT
    return None


def _add_price(name: str, amount: str, **fields: Any) -> None:
    values = {"currency": "USD", "condition": Condition.NEW, "region": Region.US} | fields
    price_observation_create(
        part=Part.objects.get(name=name), amount=Decimal(amount), vendor="a shop",
        source_url="https://shop.example/listing", observed_on=timezone.localdate(),
        user=None, via=PriceChangeVia.SERVICE, **values,
    )  # fmt: skip


def _line(row: dict[str, Any], name: str) -> dict[str, Any]:
    return next(part for part in row["parts"] if part["name"] == name)


def _with(rows: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [row for row in rows if any(part["name"] == name for part in row["parts"])]


@pytest.mark.django_db
def test_a_power_limit_keeps_the_builds_whose_gpu_board_power_plus_cpu_tdp_is_within_it(
    catalog: None,
) -> None:
    run = _run(SMALL)
    everything = _view(run)
    powers = sorted({row["power_w"] for row in everything["rows"]})
    limit = powers[len(powers) // 2]

    within = _view(run, power_w_max=limit)

    assert all(row["power_w"] == _rated_power_w(row) for row in everything["rows"][:25])
    assert within["rows"]
    assert all(row["power_w"] <= limit for row in within["rows"])
    over = [row for row in everything["rows"] if row["power_w"] > limit]
    assert over
    over_all = sum(1 for row in [*everything["rows"], *everything["unpriced"]]
                   if row["power_w"] > limit)  # fmt: skip
    assert within["left_out"]["over_power"] == over_all
    assert within["count"] == everything["count"] - len(over)
    assert f"draw more than {limit:,} W" in within["explanation"]
    assert within["power_w_max"] == limit


@pytest.mark.django_db
def test_the_frontier_is_marked_over_the_builds_the_limits_keep(catalog: None) -> None:
    run = _run(SMALL)
    powers = sorted({row["power_w"] for row in _view(run)["rows"]})
    rows = _view(run, power_w_max=powers[len(powers) // 3])["rows"]

    def dominated(row: dict[str, Any]) -> bool:
        return any(
            other["price_usd"] <= row["price_usd"]
            and other["tokens_per_s"] >= row["tokens_per_s"]
            and (other["price_usd"], other["tokens_per_s"])
            != (row["price_usd"], row["tokens_per_s"])
            for other in rows
        )

    assert rows
    assert {row["name"] for row in rows if row["pareto"]} == {
        row["name"] for row in rows if not dominated(row)
    }


@pytest.mark.django_db
def test_a_case_size_limit_keeps_builds_in_that_enclosure_or_a_smaller_one(catalog: None) -> None:
    run = _run(FLASH)
    everything = _view(run, include_estimates=True)

    mid = _view(run, include_estimates=True, case_size_max=CaseSize.MID_TOWER)

    allowed = {CaseSize.COMPACT, CaseSize.MID_TOWER}
    assert mid["rows"]
    assert all(row["case_size"] in allowed for row in mid["rows"])
    assert all(row["case_size"] == _enclosure(row) for row in mid["rows"])
    assert any(row["case_size"] == CaseSize.COMPACT for row in mid["rows"])  # Apple systems
    bigger = [row for row in everything["rows"] if row["case_size"] not in allowed]
    assert bigger
    assert mid["count"] == everything["count"] - len(bigger)
    shown = [*everything["rows"], *everything["unpriced"]]
    known_bigger = [row for row in shown if row["case_size"] in (CaseSize.FULL_TOWER, "rack")]
    assert mid["left_out"]["too_big"] == len(known_bigger)
    assert "need an enclosure bigger than a mid tower" in mid["explanation"]


@pytest.mark.django_db
def test_a_system_without_a_published_power_figure_is_left_out_under_a_limit_and_named(
    catalog: None,
) -> None:
    system = System.objects.order_by("pk").first()
    assert system is not None
    System.objects.filter(pk=system.pk).update(max_power_w=None)
    run = _run(FLASH)

    limited = _view(run, power_w_max=100_000)

    assert not _with(limited["rows"], system.name)
    assert system.name in " ".join(limited["left_out"]["power_unknown"])
    assert "no published power figure for " in limited["explanation"]
    assert _with(_view(run)["rows"] + _view(run)["unpriced"], system.name)  # no limit: shown


@pytest.mark.django_db
def test_new_only_prices_a_part_by_its_newest_new_offer_and_leaves_used_only_parts_unpriced(
    catalog: None,
) -> None:
    _add_price(GPU, "1500.00", condition=Condition.USED)
    run = _run(SMALL)
    has_new = Part.objects.get(name=GPU).prices.filter(condition=Condition.NEW).exists()

    any_condition = _view(run)
    new_only = _view(run, new_only=True)

    assert _line(_with(any_condition["rows"], GPU)[0], GPU)["unit_usd"] == 1500.0
    if has_new:
        newest_new = (
            Part.objects.get(name=GPU)
            .prices.filter(condition=Condition.NEW, withdrawn=False)
            .exclude(vendor="planner estimate")
            .order_by("-observed_on", "-id")
            .first()
        )
        assert newest_new is not None
        line = _line(_with(new_only["rows"], GPU)[0], GPU)
        assert line["unit_usd"] == float(newest_new.amount)
    else:
        unpriced = _with(new_only["unpriced"], GPU)
        assert unpriced
        assert all(f"no current new price for {GPU}" in r["reason"] for r in unpriced)
    assert new_only["new_only"] is True


@pytest.mark.django_db
def test_a_region_counts_its_own_and_worldwide_offers_only(catalog: None) -> None:
    _add_price(GPU, "1700.00", currency="EUR", region=Region.EU)
    # The drive these candidates take for a PCIe 4.0 x1 tier: the cheapest that reads at the
    # tier's full speed, at current (published) prices.
    _add_price(DRIVE, "150.00", region=Region.WORLDWIDE)
    run = _run(SMALL)

    eu = _view(run, region=Region.EU)
    us = _view(run, region=Region.US)

    # The shipped catalog's other parts are offered in the US only: in the EU their builds
    # are unpriced, naming them, while the GPU's line carries its EU offer.
    eu_rows = _with(eu["unpriced"], GPU)
    assert eu_rows
    assert all(_line(row, GPU)["price_currency"] == "EUR" for row in eu_rows)
    assert all("no current price in the EU for " in row["reason"] for row in eu_rows)
    assert not any(GPU in row["reason"] for row in eu_rows)
    drive_rows = _with(eu["unpriced"], DRIVE)
    assert drive_rows
    assert all(_line(row, DRIVE)["unit_usd"] == 150.0 for row in drive_rows)
    assert eu["region"] == Region.EU
    us_rows = _with(us["rows"], GPU)
    assert us_rows
    assert all(_line(row, GPU)["price_currency"] == "USD" for row in us_rows)


@pytest.mark.django_db
def test_the_run_keeps_the_filters_it_was_asked_for(catalog: None) -> None:
    run = _run(SMALL, power_w_max=800, case_size_max="mid_tower", new_only=True, region="US")

    result = APIClient().get(f"/api/simulations/{run.pk}").json()["result"]

    assert result["ranking"]["power_w_max"] == 800
    assert result["ranking"]["case_size_max"] == "mid_tower"
    assert all(row["power_w"] <= 800 for row in result["rows"])
    assert all(SIZES.index(row["case_size"]) <= SIZES.index("mid_tower") for row in result["rows"])


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value"),
    [("power_w_max", 0), ("power_w_max", "lots"), ("region", "XX"), ("case_size_max", "huge"),
     ("new_only", "maybe")],
)  # fmt: skip
def test_a_bad_filter_is_refused_naming_its_field(catalog: None, field: str, value: Any) -> None:
    client = APIClient()

    posted = client.post(
        "/api/simulate", {"workload": SMALL, "ranking": {field: value}}, format="json"
    )
    got = client.get("/api/rankings", {"model": "llama-3.1-8b", "quant": "NF4", field: value})

    assert posted.status_code == 400, posted.json()
    assert f"ranking.{field}" in str(posted.json())
    assert got.status_code == 400, got.json()
    assert field in str(got.json())


@pytest.mark.django_db
def test_a_whole_systems_published_maximum_is_its_rated_power(catalog: None) -> None:
    system = System.objects.exclude(max_power_w=None).order_by("max_power_w").first()
    assert system is not None
    assert system.max_power_w is not None
    run = _run(FLASH)

    within = _view(run, power_w_max=system.max_power_w, include_estimates=True)
    below = _view(run, power_w_max=system.max_power_w - 1, include_estimates=True)

    rows = _with([*within["rows"], *within["unpriced"]], system.name)
    assert rows
    assert all(row["power_w"] == system.max_power_w for row in rows)
    assert not _with([*below["rows"], *below["unpriced"]], system.name)

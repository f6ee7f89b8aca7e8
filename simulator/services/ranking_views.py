"""Reading a finished ranking at the current prices (docs/model.md, "Rankings: physics apart
from prices"). A ranking's stored rows hold no price: each read prices every row from the
current prices of its parts, then marks the Pareto frontier, applies the budget, orders and
ranks. A row with a part that has no current price is listed unpriced, never estimated.

By default a current price is a published one: a part whose only price is the planner's
estimate leaves its rows unpriced, with that reason. `include_estimates` lets estimates
price the rows too; each such row (and part) is marked `estimated`.
"""

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.conf import settings

from catalog.selectors import PartQuotes, Quote, part_ranking_quotes
from simulator.models import SimulationRun
from simulator.ranking import SPEED_FIELDS, TRAIN, USD_PER_SPEED_FIELDS, Row, mark_pareto, sort_rows
from simulator.services.ranking_filters import (
    RankingFilters,
    Sifted,
    left_out_note,
    ranking_sift,
)

# A finished ranking's result never changes, and a whole catalog's is megabytes of JSON
# (about 50 ms to read and decode): each process keeps the last few it read, so a read at
# new prices only prices the rows.
FINISHED_RESULTS_KEPT = 8
_finished_results: OrderedDict[str, dict[str, Any]] = OrderedDict()
_finished_results_lock = threading.Lock()

Quotes = dict[int, Quote]


@dataclass(frozen=True, slots=True, kw_only=True)
class PricedRanking:
    """A finished ranking at the current prices: the priced rows (Pareto marked), those
    with an unpriced part (with the reason), the quotes used, and the newest price's date."""

    rows: list[Row]
    unpriced: list[Row]
    quotes: Quotes
    prices_observed_on: date | None
    sifted: Sifted

    def with_unit_prices(self, row: Row) -> Row:
        """The row with each part's current unit price (None for a part without one) and
        whether that price is an estimate."""
        parts = [{**part, **self.unit_price(part["part_id"])} for part in row["parts"]]
        return {**row, "parts": parts}

    def unit_price(self, part_id: int) -> dict[str, Any]:
        """A part's unit price in US dollars, whether it is an estimate or stale, and the
        currency it was published in (converted with the rate table when not dollars)."""
        quote = self.quotes.get(part_id)
        if quote is None:
            return {"unit_usd": None, "price_estimated": False, "price_stale": False,
                    "price_currency": None, "price_observed_on": None}  # fmt: skip
        return {"unit_usd": float(quote.amount_usd), "price_estimated": quote.estimate,
                "price_stale": quote.stale, "price_currency": quote.currency,
                "price_observed_on": quote.observed_on.isoformat()}  # fmt: skip


def ranking_result(*, run: SimulationRun) -> dict[str, Any]:
    """A finished ranking's stored result (kept per process: it never changes)."""
    key = str(run.pk)
    with _finished_results_lock:
        kept = _finished_results.get(key)
        if kept is not None:
            _finished_results.move_to_end(key)
            return kept
    result = run.result
    assert result is not None, "a finished ranking has a result"
    with _finished_results_lock:
        _finished_results[key] = result
        while len(_finished_results) > FINISHED_RESULTS_KEPT:
            _finished_results.popitem(last=False)
    return result  # type: ignore[no-any-return]


def _unpriced_reason(
    parts: list[dict[str, Any]],
    known: Mapping[int, PartQuotes],
    stale: set[int],
    filters: RankingFilters,
) -> str:
    """Why a row has no price: its parts with no price of the kinds that count, those
    priced only by the planner's estimate (left out unless estimates are asked for), and
    those whose price is older than the stale age (when stale prices are left out)."""
    groups = {
        f"no current {filters.price_words()} for ": [p for p in parts if p["part_id"] not in known],
        f"only a price older than {settings.PRICE_STALE_AFTER_DAYS} days for ": [
            p for p in parts if p["part_id"] in stale
        ],
        "only a planner estimate for ": [
            p for p in parts if p["part_id"] in known and p["part_id"] not in stale
        ],
    }
    return "; ".join(
        words + ", ".join(p["name"] for p in group) for words, group in groups.items() if group
    )


def _current_quotes(
    known: Mapping[int, PartQuotes], filters: RankingFilters
) -> tuple[Quotes, set[int]]:
    """The quote each part is priced by, and the parts left unpriced for a stale price."""
    quotes: Quotes = {}
    stale: set[int] = set()
    for pk, part_quotes in known.items():
        quote = part_quotes.current(include_estimates=filters.include_estimates)
        if quote is not None and filters.exclude_stale and quote.stale:
            stale.add(pk)
        elif quote is not None:
            quotes[pk] = quote
    return quotes, stale


def _priced_row(row: Row, quotes: Quotes, speed: str, usd_per_speed: str) -> Row:
    lines = [(quotes[part["part_id"]].amount_usd, part["quantity"]) for part in row["parts"]]
    price_usd = float(sum((unit * quantity for unit, quantity in lines), Decimal(0)))
    estimated = [p["name"] for p in row["parts"] if quotes[p["part_id"]].estimate]
    stale = [p["name"] for p in row["parts"] if quotes[p["part_id"]].stale]
    return {**row, "price_usd": price_usd, usd_per_speed: price_usd / row[speed],
            "estimated": bool(estimated), "estimated_parts": estimated,
            "stale": bool(stale), "stale_parts": stale}  # fmt: skip


def ranking_priced(
    *, result: Mapping[str, Any], filters: RankingFilters | None = None
) -> PricedRanking:
    """Each row of a finished ranking that the buyer's power and case-size limits keep,
    priced from the current prices of its parts: published prices only, or with
    `include_estimates` the planner's estimates too (such rows are marked `estimated`);
    only new parts' prices with `new_only`, only one region's with `region`; prices older
    than the stale age are marked `stale`, or with `exclude_stale` leave their rows
    unpriced. The Pareto frontier is marked over the priced rows that are kept."""
    filters = filters or RankingFilters()
    kind = result["workload"].get("kind", TRAIN)
    speed, usd_per_speed = SPEED_FIELDS[kind], USD_PER_SPEED_FIELDS[kind]
    sifted = ranking_sift(result["rows"], filters)
    part_ids = {part["part_id"] for row in sifted.rows for part in row["parts"]}
    known = part_ranking_quotes(
        part_ids=sorted(part_ids), new_only=filters.new_only, region=filters.region
    )
    quotes, stale = _current_quotes(known, filters)
    rows: list[Row] = []
    unpriced: list[Row] = []
    used: set[int] = set()
    for row in sifted.rows:
        lacking = [part for part in row["parts"] if part["part_id"] not in quotes]
        if lacking:
            reason = _unpriced_reason(lacking, known, stale, filters)
            unpriced.append(
                {**row, "price_usd": None, "estimated": False, "estimated_parts": [],
                 "stale": False, "stale_parts": [], "reason": reason}
            )  # fmt: skip
            continue
        rows.append(_priced_row(row, quotes, speed, usd_per_speed))
        used.update(part["part_id"] for part in row["parts"])
    return PricedRanking(
        rows=mark_pareto(rows, kind=kind),
        unpriced=unpriced,
        quotes=quotes,
        prices_observed_on=max((quotes[pk].observed_on for pk in used), default=None),
        sifted=sifted,
    )


def ranking_view(
    *,
    run: SimulationRun,
    budget_usd: float | None,
    sort: str,
    limit: int,
    filters: RankingFilters | None = None,
) -> dict[str, Any]:
    """A finished ranking at the current prices, within a budget (None: the run's own
    `ranking.budget_usd`, if any) and in an order: the top `limit` rows ranked, and (up to
    `limit`) the builds not ranked for want of a usable price. `filters` (None: the run's
    own; by default published prices only, stale ones marked, no power or size limit) say
    which prices count and which builds the buyer can take. The Pareto frontier is marked
    over every priced build the limits keep: filtering by price keeps a prefix of the
    price order, so the flags stay valid within the budget."""
    result = ranking_result(run=run)
    if budget_usd is None:
        budget_usd = run.input.get("ranking", {}).get("budget_usd")
    filters = filters or RankingFilters.of_run(run)
    priced = ranking_priced(result=result, filters=filters)
    rows = [row for row in priced.rows if budget_usd is None or row["price_usd"] <= budget_usd]
    ranked = sort_rows(rows, sort=sort, kind=result["workload"].get("kind", TRAIN))
    observed_on = priced.prices_observed_on
    shown = [
        {**priced.with_unit_prices(row), "rank": i} for i, row in enumerate(ranked[:limit], start=1)
    ]
    sifted = priced.sifted
    return {
        "workload": result["workload"],
        "sort": sort,
        "budget_usd": budget_usd,
        **filters.asdict(),
        "stale_after_days": settings.PRICE_STALE_AFTER_DAYS,
        "estimated_count": sum(row["estimated"] for row in ranked),
        "stale_count": sum(row["stale"] for row in ranked),
        "prices_observed_on": None if observed_on is None else observed_on.isoformat(),
        "count": len(ranked),
        "rows": shown,
        "unpriced_count": len(priced.unpriced),
        "unpriced": [priced.with_unit_prices(row) for row in priced.unpriced[:limit]],
        "left_out": {
            "over_power": sifted.over_power,
            "power_unknown": list(sifted.power_unknown),
            "too_big": sifted.too_big,
            "size_unknown": list(sifted.size_unknown),
        },
        "explanation": _view_explanation(result, priced, len(ranked), budget_usd, filters),
    }


def ranking_result_view(*, run: SimulationRun) -> dict[str, Any]:
    """A finished ranking as its run shows it: every row within the run's own budget, in
    its own order, at the current prices (the shape the stored result used to have)."""
    result = ranking_result(run=run)
    options = run.input["ranking"]
    view = ranking_view(
        run=run, budget_usd=options["budget_usd"], sort=options["sort"], limit=len(result["rows"])
    )
    return {
        "workload": view["workload"],
        "ranking": options,
        "candidates": result["candidates"],
        "rows": view["rows"],
        "excluded": result["excluded"],
        "unpriced": view["unpriced"],
        "explanation": view["explanation"],
        "prices_observed_on": view["prices_observed_on"],
    }


def _view_explanation(
    result: Mapping[str, Any],
    priced: PricedRanking,
    shown: int,
    budget_usd: float | None,
    filters: RankingFilters,
) -> str:
    return (
        _shown_explanation(result, priced, shown, budget_usd)
        + left_out_note(priced.sifted, filters)
        + _unpriced_note(priced)
    )


def _shown_explanation(
    result: Mapping[str, Any], priced: PricedRanking, shown: int, budget_usd: float | None
) -> str:
    candidates, runnable = result["candidates"], len(result["rows"])
    if candidates == 0:
        return "No catalog build matches the GPU count, storage and RAM options."
    if runnable == 0:
        reasons = sorted({item["reason"] for item in result["excluded"]})
        return "The workload fits no candidate build: " + "; ".join(reasons[:3])
    if shown and budget_usd is not None:
        return (
            f"{shown} of the {len(priced.rows)} priced builds that can run this workload"
            f" cost ${budget_usd:,.0f} or less."
        )
    if shown:
        return f"{runnable} of {candidates} candidate builds can run this workload."
    return _no_rows_within(budget_usd)


def _unpriced_note(priced: PricedRanking) -> str:
    if not priced.unpriced:
        return ""
    reasons = sorted({row["reason"] for row in priced.unpriced})
    return (
        f" {len(priced.unpriced)} more are not ranked for want of a published price"
        f" ({'; '.join(reasons[:3])})."
    )


def _no_rows_within(budget_usd: float | None) -> str:
    if budget_usd is None:
        return "No candidate build that can run this workload has a current price."
    return f"No candidate build that can run this workload costs ${budget_usd:,.0f} or less."

"""Reads for the serving page: an inference ranking within a budget, in the table's order,
each row with the error band of its decode speed, and every row for the chart."""

from typing import Any

from simulator.models import SimulationRun
from simulator.ranking import DEFAULT_INFER_SORT, INFER_SORT_FIELDS
from simulator.services.accuracy import ranking_rows_banded
from simulator.services.ranking_views import PriceOptions, ranking_view

ALL_ROWS = 10**6
# Orders the ranking service does not keep: fastest or longest first, then cheapest.
DESCENDING = ("decode_tokens_per_s", "prefill_tokens_per_s", "max_context")


def serving_page(
    *,
    run: SimulationRun,
    budget_usd: float | None,
    sort: str,
    limit: int,
    prices: PriceOptions | None = None,
) -> dict[str, Any]:
    service_sort = sort if sort in INFER_SORT_FIELDS else DEFAULT_INFER_SORT
    view = ranking_view(
        run=run,
        budget_usd=budget_usd,
        sort=service_sort,
        limit=ALL_ROWS,
        prices=prices or PriceOptions(),
    )
    rows = view["rows"]
    if sort in DESCENDING:
        rows = sorted(rows, key=lambda r: (-r[sort], r["price_usd"]))
    points = [
        {"x": r["price_usd"], "y": r["decode_tokens_per_s"], "name": r["name"],
         "pareto": r.get("pareto", False)}
        for r in rows
    ]  # fmt: skip
    table = [
        {**row, "rank": i, "placement_label": placement_label(row)}
        for i, row in enumerate(ranking_rows_banded(rows[:limit], workload=view["workload"]), 1)
    ]
    return {**view, "sort": sort, "rows": table, "points": points, "shown": len(table)}


# What each placement does, in a buyer's words.
PLACEMENT_WORDS = {"gpu": "all on GPU", "cpu": "all in CPU RAM", "unified": "unified memory"}


def placement_label(row: dict[str, Any]) -> str:
    """The row's placement by what it does: a hybrid that offloads nothing is "all on GPU";
    one that does names the first offloaded layer and the GB of experts in RAM."""
    placement = str(row.get("placement"))
    if placement != "hybrid":
        return PLACEMENT_WORDS.get(placement, placement)
    in_ram_gb = float((row.get("weights_gb") or {}).get("cpu", 0.0))
    if in_ram_gb <= 0:
        return "all on GPU"
    return (
        f"hybrid: experts of layer {row.get('offload_from_layer')} on in RAM ({in_ram_gb:,.1f} GB)"
    )

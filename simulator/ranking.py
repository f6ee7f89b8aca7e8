"""Ordering and Pareto marking of ranked builds (pure functions over result rows).

Training rows are ranked on `tokens_per_s` (training throughput); inference rows on
`decode_tokens_per_s` (one stream's generation speed)."""

from collections.abc import Iterable, Sequence
from typing import Any

Row = dict[str, Any]
TRAIN, INFER = "train", "infer"

# The sort keys a ranking accepts, each with the row field it orders by (ascending).
SORT_FIELDS: dict[str, str] = {
    "usd_per_tokens_per_s": "usd_per_tokens_per_s",
    "hours": "hours_for_tokens",
    "price": "price_usd",
}
DEFAULT_SORT = "usd_per_tokens_per_s"
INFER_SORT_FIELDS: dict[str, str] = {
    "usd_per_decode_tokens_per_s": "usd_per_decode_tokens_per_s",
    "price": "price_usd",
}
DEFAULT_INFER_SORT = "usd_per_decode_tokens_per_s"
SORTS_BY_KIND = {TRAIN: SORT_FIELDS, INFER: INFER_SORT_FIELDS}
DEFAULT_SORT_BY_KIND = {TRAIN: DEFAULT_SORT, INFER: DEFAULT_INFER_SORT}
SPEED_FIELDS = {TRAIN: "tokens_per_s", INFER: "decode_tokens_per_s"}
# The price per unit of speed each kind ranks on: price_usd / the speed field.
USD_PER_SPEED_FIELDS = {TRAIN: "usd_per_tokens_per_s", INFER: "usd_per_decode_tokens_per_s"}


def mark_pareto(rows: Iterable[Row], *, kind: str = TRAIN) -> list[Row]:
    """Copy rows with `pareto` set: no other build is at least as cheap and strictly faster,
    or strictly cheaper and at least as fast (the price-vs-speed frontier)."""
    speed = SPEED_FIELDS[kind]
    ordered = sorted(rows, key=lambda r: (r["price_usd"], -r[speed]))
    best_speed = float("-inf")
    marked = []
    for row in ordered:
        on_frontier = row[speed] > best_speed
        best_speed = max(best_speed, row[speed])
        marked.append({**row, "pareto": on_frontier})
    return marked


def sort_rows(rows: Sequence[Row], *, sort: str, kind: str = TRAIN) -> list[Row]:
    """Order rows by the sort key; ties go to the faster, then the cheaper build."""
    field, speed = SORTS_BY_KIND[kind][sort], SPEED_FIELDS[kind]
    return sorted(rows, key=lambda r: (r[field], -r[speed], r["price_usd"]))

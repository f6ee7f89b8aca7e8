from simulator.ranking import mark_pareto, sort_rows


def _row(name: str, price_usd: float, tokens_per_s: float) -> dict[str, object]:
    return {
        "name": name,
        "price_usd": price_usd,
        "tokens_per_s": tokens_per_s,
        "usd_per_tokens_per_s": price_usd / tokens_per_s,
        "hours_for_tokens": 50e6 / tokens_per_s / 3600,
    }


def test_a_build_that_is_dearer_and_slower_than_another_is_off_the_frontier() -> None:
    rows = [_row("a", 2700, 277), _row("b", 5000, 443), _row("slow", 6000, 300)]

    frontier = {r["name"]: r["pareto"] for r in mark_pareto(rows)}

    assert frontier == {"a": True, "b": True, "slow": False}


def test_of_two_builds_at_the_same_price_only_the_faster_is_on_the_frontier() -> None:
    rows = [_row("x", 4000, 300), _row("y", 4000, 350)]

    frontier = {r["name"]: r["pareto"] for r in mark_pareto(rows)}

    assert frontier == {"x": False, "y": True}


def test_rows_sort_by_dollars_per_token_per_second_hours_or_price() -> None:
    rows = [_row("a", 2700, 277), _row("c", 4195, 961), _row("d", 7605, 1538)]

    assert [r["name"] for r in sort_rows(rows, sort="usd_per_tokens_per_s")] == ["c", "d", "a"]
    assert [r["name"] for r in sort_rows(rows, sort="hours")] == ["d", "c", "a"]
    assert [r["name"] for r in sort_rows(rows, sort="price")] == ["a", "c", "d"]

"""The ranking pages rank builds by published prices; the "Include planner estimates" box
adds those priced by the planner's estimates, each tagged "estimated"."""

import re
from typing import Any

import pytest
from django.test import Client

from tests.frontend.conftest import GLM, ranking_compute

FLASH = {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M", "context": 32768,
         "placement": "auto"}  # fmt: skip
# A GPU whose only price in the shipped catalog is the planner's estimate.
ESTIMATED_GPU = "H100 NVL"
ESTIMATED_TAG = '<span class="tag estimated"'
pytestmark = pytest.mark.usefixtures("catalog")


def _text(response: Any) -> str:
    return str(response.content.decode())


def _table(html: str) -> str:
    found = re.search(r"<table class=\"ranking[^\"]*\">.*?</table>", html, re.S)
    assert found is not None, "no ranking table"
    return found.group(0)


def test_the_home_page_ranks_no_estimate_and_lists_those_builds_with_the_reason(
    client: Client,
) -> None:
    ranking_compute(GLM)

    response = client.get("/")
    html = _text(response)

    assert 'name="include_estimates"' in html
    assert ESTIMATED_TAG not in html
    assert f"1x {ESTIMATED_GPU}" not in _table(html)
    assert 'id="unpriced-builds"' in html
    # The page lists the first 50 of its unpriced builds (by name); the list it draws them
    # from holds every one, with the reason.
    unpriced = response.context["ranking"]["unpriced"]
    reasons = {row["reason"] for row in unpriced if row["name"].startswith(f"1x {ESTIMATED_GPU} ")}
    assert reasons
    assert all(f"only a planner estimate for {ESTIMATED_GPU}" in reason for reason in reasons)
    first = unpriced[0]
    assert f"{first['name']}</span>: {first['reason']}" in html


def test_ticking_include_estimates_ranks_those_builds_tagged_estimated(client: Client) -> None:
    ranking_compute(GLM)

    # The fastest builds first: the many-GPU servers, whose GPUs (H100 NVL, H200 NVL) and
    # platforms have only the planner's estimate.
    html = _text(client.get("/?include_estimates=on&sort=tokens_per_s"))

    assert ESTIMATED_TAG in _table(html)
    assert re.search(r'name="include_estimates"[^>]*checked', html)
    assert re.search(r"\d+ of them priced with a planner estimate", html)


def test_stale_prices_are_tagged_and_the_box_leaves_them_out(client: Client, settings: Any) -> None:
    settings.PRICE_STALE_AFTER_DAYS = 180  # the shipped support parts date from 2026-02
    ranking_compute(GLM)

    marked = _text(client.get("/"))
    left_out = _text(client.get("/?exclude_stale=on"))

    assert '<span class="tag stale"' in _table(marked)
    assert "with a price older than 180 days" in marked
    assert "only a price older than 180 days for" in left_out


def test_the_serving_page_takes_the_same_box(client: Client) -> None:
    ranking_compute(FLASH)

    published = _text(client.get("/serve/?sort=decode_tokens_per_s"))
    estimated = _text(client.get("/serve/?include_estimates=on&sort=decode_tokens_per_s"))

    assert ESTIMATED_TAG not in _table(published)
    assert ESTIMATED_TAG in _table(estimated)
    assert "not ranked for want of a published price" in published

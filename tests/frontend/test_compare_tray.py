"""Compare anything: ranked candidates (by their parts) and catalog builds side by side in
any mix of 2 to 4, from the compare tray or a shared URL, with the differences marked."""

import re
from typing import Any
from urllib.parse import urlencode

import pytest
from django.test import Client
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from simulator.ranking import DEFAULT_SORT
from simulator.services.rankings import ranking_view
from tests.frontend.browser import screenshots
from tests.frontend.conftest import GLM, ranking_compute

BUILD_A = "seed-a-budget-single-gpu"
WORKLOAD = {k: v for k, v in GLM.items() if k != "kind"}


def _parts(row: dict[str, object]) -> str:
    return ",".join(f"{p['part_id']}:{p['quantity']}" for p in row["parts"])  # type: ignore[attr-defined]


@pytest.mark.usefixtures("catalog")
def test_two_ranked_candidates_and_a_catalog_build_compare_in_one_shared_url(
    client: Client,
) -> None:
    run = ranking_compute(GLM)
    rows = ranking_view(run=run, budget_usd=None, sort=DEFAULT_SORT, limit=5)["rows"]
    first, fifth = rows[0], rows[4]
    query = urlencode(
        [("builds", BUILD_A), ("parts", _parts(first)), ("parts", _parts(fifth)),
         *WORKLOAD.items()]
    )  # fmt: skip

    response = client.get(f"/compare/?{query}")

    comparison = response.context["comparison"]
    assert len(comparison["names"]) == 3
    assert comparison["names"][0] == "Build A: Budget Single GPU"
    # A candidate is headed by its GPUs, board and RAM, as its ranking row names them.
    gpu_count, gpu = first["gpu_count"], first["gpu_name"]
    assert comparison["names"][1].startswith(f"{gpu_count}x {gpu} | ")
    speeds = {row["label"]: row for row in comparison["rows"]}["tokens/s"]["cells"]
    assert speeds[1]["value"] == pytest.approx(first["tokens_per_s"], rel=1e-9)
    assert speeds[2]["value"] == pytest.approx(fifth["tokens_per_s"], rel=1e-9)
    assert any(row["differs"] for row in comparison["parts"])
    assert f'value="{_parts(first)}"' in response.content.decode()  # kept for the next submit


@pytest.mark.usefixtures("catalog")
@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"builds": BUILD_A}, "Pick 2 to 4 builds"),
        ({"parts": ["101:1"] * 5}, "5 given"),
        ({"parts": ["101:1", "not-parts"]}, "not a list of part_id:quantity pairs"),
    ],
)
def test_a_compare_of_the_wrong_size_or_shape_says_why(
    client: Client, query: dict[str, Any], message: str
) -> None:
    response = client.get("/compare/", query)

    assert response.status_code == 200
    assert message in " ".join(str(e) for e in response.context["form"].errors.values())
    assert "comparison" not in response.context


@pytest.mark.usefixtures("catalog")
def test_a_candidate_with_an_unknown_part_is_an_error_on_the_page_not_a_500(
    client: Client,
) -> None:
    response = client.get("/compare/", {"builds": BUILD_A, "parts": "999999:1"})

    assert response.status_code == 200
    assert "No part with id 999999." in response.context["form"].non_field_errors()


@pytest.mark.usefixtures("catalog_committed")
def test_rows_added_to_the_tray_from_the_rankings_open_side_by_side(
    live_server: LiveServer, page: Page
) -> None:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    ranking_compute(GLM)
    page.goto(live_server.url + "/")
    rows = page.locator("table.ranking tbody tr")
    names = [rows.nth(i).locator("td").nth(1).locator("a").inner_text() for i in (0, 2)]

    rows.nth(0).get_by_role("button", name="Compare").click()
    rows.nth(2).get_by_role("button", name="Compare").click()

    tray = page.locator("#compare-tray")
    expect(tray).to_be_visible()
    expect(tray.locator("li")).to_have_count(2)
    expect(rows.nth(0).get_by_role("button", name="In tray")).to_be_visible()
    screenshots(page, "compare-tray")
    page.get_by_role("link", name="Compare 2 builds").click()

    table = page.locator("table.compare")
    expect(table.locator("thead th")).to_have_count(3)
    shared = page.url
    assert re.search(r"parts=.*parts=", shared)
    screenshots(page, "compare-candidates")

    other = page.context.browser.new_page()  # type: ignore[union-attr]
    other.goto(shared)  # the address alone shows the same table
    expect(other.locator("table.compare thead")).to_contain_text(names[0].split(" | ")[0])
    other.close()
    assert not [e for e in errors if "Content Security Policy" in e or "Uncaught" in e], errors

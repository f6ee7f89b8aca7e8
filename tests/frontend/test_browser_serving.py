"""The serving page in a real browser: the inference ranking's table and chart, a budget
change and a sort by decode speed without a reload."""

import re

import pytest
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.frontend.browser import chart_points, screenshots, wait_for_chart
from tests.frontend.conftest import ranking_compute
from tests.frontend.test_serving import FLASH

pytestmark = pytest.mark.usefixtures("catalog_committed")


def _numbers(page: Page, column: int) -> list[float]:
    cells = page.locator(f"table.serving tbody tr td:nth-child({column})").all_inner_texts()
    return [float(re.sub(r"[^0-9.]", "", cell.split(" ")[0])) for cell in cells]


def test_the_serving_page_filters_and_sorts_an_inference_ranking(
    live_server: LiveServer, page: Page
) -> None:
    ranking_compute(FLASH)
    page.goto(f"{live_server.url}/serve/")
    wait_for_chart(page, "serving-chart")
    all_points = chart_points(page, "serving-chart")
    assert all_points > 10
    expect(page.locator("table.serving thead")).to_contain_text("Largest context")
    screenshots(page, "serving")

    page.get_by_label("Budget (USD)").fill("3000")
    page.get_by_label("Budget (USD)").dispatch_event("change")

    expect(page).to_have_url(re.compile(r"budget=3000"))
    wait_for_chart(page, "serving-chart")
    assert 0 < chart_points(page, "serving-chart") < all_points
    assert all(price <= 3000 for price in _numbers(page, 3))

    page.get_by_role("link", name="Decode tokens/s", exact=True).click()

    expect(page).to_have_url(re.compile(r"sort=decode_tokens_per_s"))
    speeds = _numbers(page, 4)
    assert speeds == sorted(speeds, reverse=True)
    screenshots(page, "serving-sorted")

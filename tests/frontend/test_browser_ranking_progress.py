"""A queued ranking followed in the browser to completion through a real Celery worker."""

import pytest
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.frontend.browser import chart_points, screenshots, wait_for_chart

RANKING_TIMEOUT_MS = 60_000


@pytest.mark.services
@pytest.mark.usefixtures("catalog_committed", "celery_worker_process")
def test_a_ranking_request_shows_a_progress_bar_until_the_worker_is_done(
    live_server: LiveServer, page: Page
) -> None:
    page.goto(f"{live_server.url}/simulate/")
    form = page.locator("#custom-ranking form")
    form.get_by_label("Model").select_option("llama-3.1-70b")
    form.get_by_label("Budget (USD)").fill("5000")
    form.get_by_label("At most this many GPUs").fill("2")

    form.get_by_role("button", name="Rank builds").click()

    expect(page.locator("#custom-ranking progress")).to_be_visible()
    screenshots(page, "ranking-progress")
    table = page.locator("#custom-ranking table.ranking")
    expect(table).to_be_visible(timeout=RANKING_TIMEOUT_MS)
    expect(page.locator("#custom-ranking progress")).to_have_count(0)
    wait_for_chart(page, "scatter-chart")
    assert chart_points(page, "scatter-chart") > 0
    prices = table.locator("tbody tr td:nth-child(3)").all_inner_texts()
    assert all(float(p.strip("$").replace(",", "")) <= 5000 for p in prices)
    screenshots(page, "ranking-done")

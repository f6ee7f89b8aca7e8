"""The accuracy page in a real browser: the predicted-vs-measured scatter is drawn on log
axes with one point per modeled row, every row is in the table, the page stays within a
phone's width with the tables scrolling sideways, and a rankings figure shows its band."""

import re

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect
from pytest_django.live_server_helper import LiveServer

from frontend.templatetags.accuracy import pct
from simulator.models import Measurement
from simulator.services.accuracy import holdout_report_get
from simulator.services.measurements import measurements_load
from tests.frontend.browser import PHONE_PX, screenshots, wait_for_chart
from tests.frontend.conftest import GLM, ranking_compute

pytestmark = pytest.mark.usefixtures("catalog_committed")

CHART_POINTS = """() => {
    const chart = Chart.getChart(document.getElementById('accuracy-chart'));
    const series = chart.data.datasets.filter(d => !d.showLine);
    return {points: series.reduce((n, d) => n + d.data.length, 0),
            x: chart.options.scales.x.type, y: chart.options.scales.y.type};
}"""


def _csp_errors(page: Page) -> list[str]:
    """Content-Security-Policy violations Chromium reports, collected as they come."""
    errors: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error" and "Content Security Policy" in message.text:
            errors.append(message.text)

    page.on("console", on_console)
    return errors


def test_the_accuracy_page_draws_every_modeled_row_and_lists_every_row(
    live_server: LiveServer, page: Page
) -> None:
    measurements_load()
    errors = _csp_errors(page)
    page.goto(f"{live_server.url}/accuracy/")

    wait_for_chart(page, "accuracy-chart")
    drawn = page.evaluate(CHART_POINTS)
    assert drawn["points"] == Measurement.objects.filter(modeled=True).count() > 0
    assert (drawn["x"], drawn["y"]) == ("logarithmic", "logarithmic")
    expect(page.locator("table.accuracy-rows tbody tr")).to_have_count(Measurement.objects.count())
    expect(page.locator("table.accuracy-rows a", has_text="source").first).to_be_visible()
    expect(page.locator("#corpus-date")).to_have_text("2026-11-21")
    holdout = holdout_report_get()
    expect(page.locator("#holdout")).to_contain_text(
        f"Hold-out ({len(holdout.predictions)} public measurements"
    )
    assert holdout.median_abs_error is not None
    expect(page.locator("#holdout strong")).to_have_text(pct(holdout.median_abs_error))
    screenshots(page, "accuracy")

    page.set_viewport_size({"width": PHONE_PX, "height": 900})
    # The page fits the phone once Chart.js has redrawn; the row table scrolls sideways.
    page.wait_for_function("w => document.documentElement.scrollWidth <= w", arg=PHONE_PX)
    table_wrap = page.locator(".table-wrap").last
    assert table_wrap.evaluate("el => el.scrollWidth > el.clientWidth")
    assert errors == []


def test_a_rankings_figure_shows_its_error_band(live_server: LiveServer, page: Page) -> None:
    measurements_load()
    ranking_compute(GLM)
    page.goto(live_server.url + "/")

    speed_cell = page.locator("table.ranking tbody tr").first.locator("td").nth(3)
    expect(speed_cell.locator(".band")).to_have_text(re.compile(r"^±\d+ %$"))
    expect(page.locator(".band-note")).to_contain_text("of this class (fine-tuning throughput)")

"""Helpers of the browser tests: screenshots at phone and desktop width, chart data."""

from playwright.sync_api import Page

from tests.frontend.conftest import SCREENSHOTS

PHONE_PX, DESKTOP_PX = 375, 1280
WIDTHS = (PHONE_PX, DESKTOP_PX)


def screenshots(page: Page, name: str) -> None:
    """Full-page screenshots at both widths, back at desktop width afterwards."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(150)  # Chart.js redraws on resize
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": DESKTOP_PX, "height": 900})


def chart_points(page: Page, canvas_id: str, dataset: int = 0) -> int:
    """How many points the chart on the canvas has in one dataset (0 if no chart)."""
    script = """([id, n]) => {
        const chart = Chart.getChart(document.getElementById(id));
        return chart ? chart.data.datasets[n].data.length : 0;
    }"""
    points: int = page.evaluate(script, [canvas_id, dataset])
    return points


def wait_for_chart(page: Page, canvas_id: str) -> None:
    page.wait_for_function(
        "id => { const c = document.getElementById(id);"
        " return c && window.Chart && Chart.getChart(c) !== undefined; }",
        arg=canvas_id,
    )

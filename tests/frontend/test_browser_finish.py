"""Every page of the site, finished: at 1,280 and 390 px wide each page loads with no console
error and no Content-Security-Policy violation (also after one htmx filter update where it
has filters), is no wider than the window (wide tables scroll in their own box), draws its
charts inside their boxes with no overlapping tick labels, and axe-core finds no serious or
critical accessibility violation. The keyboard reaches the main controls in order, with a
visible focus ring, from a skip link.

Each case loads only the data its page needs: the live server's database is emptied after
every test. Set FINISH_SCREENSHOTS to a folder to keep a screenshot of the top of each page
at each width."""

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import FloatRect, Page, expect
from pytest_django.live_server_helper import LiveServer

from frontend.selectors import ranking_page
from frontend.serving_selectors import serving_page
from simulator.ranking import DEFAULT_INFER_SORT, DEFAULT_SORT
from simulator.services.measurements import measurements_load
from tests.frontend.browser import (
    HTMX_IDLE,
    ConsoleWatch,
    axe_serious,
    chart_layout_problems,
    page_overflow,
    wait_for_chart,
)
from tests.frontend.conftest import GLM, ranking_compute
from tests.frontend.test_serving import FLASH

pytestmark = pytest.mark.usefixtures("catalog_committed")

WIDTHS = (1280, 390)
BUILD_A = "seed-a-budget-single-gpu"
BUILD_B = "seed-b-dual-4090-consumer"
BUILD_C = "seed-c-single-rtx-5090"
SERVING_CHARTS = ("placement-chart", "kv-chart", "depth-chart", "batch-chart")
CATALOG_KINDS = ("gpu", "cpu", "motherboard", "nvme_drive", "nvme_card", "ram_kit", "psu",
                 "case", "system")  # fmt: skip
SETTLED = f"() => {HTMX_IDLE}"


def _change(label: str, value: str, *, within: str = "body") -> Callable[[Page], None]:
    """A filter update: set one field and fire its change event, as a person tabbing away
    does; htmx requests the new fragment and swaps it in."""

    def update(page: Page) -> None:
        control = page.locator(within).get_by_label(label)
        with page.expect_response(lambda r: r.request.headers.get("hx-request") == "true"):
            if control.evaluate("el => el.tagName") == "SELECT":
                control.select_option(value)
            else:
                control.fill(value)
                control.dispatch_event("change")
        page.wait_for_function(SETTLED)

    return update


def _compare_again(page: Page) -> None:
    """The compare form sends on submit only."""
    page.locator("#compare").get_by_label("Sequence length (tokens)").fill("2048")
    with page.expect_response(lambda r: r.request.headers.get("hx-request") == "true"):
        page.get_by_role("button", name="Compare", exact=True).click()
    page.wait_for_function(SETTLED)


def _candidate_path(sort: str = DEFAULT_SORT) -> str:
    """The page of the candidate ranked first in `sort`, as its row on the rankings links it."""
    view = ranking_page(run=ranking_compute(GLM), budget_usd=None, sort=sort, limit=1)
    return f"/builds/candidate/?parts={view['rows'][0]['parts_query']}&{view['workload_query']}"


def _serving_candidate_path() -> str:
    """The page of the candidate ranked first for serving, as its row links it."""
    view = serving_page(run=ranking_compute(FLASH), budget_usd=None,
                        sort=DEFAULT_INFER_SORT, limit=1)  # fmt: skip
    return f"/builds/candidate/serve/?{view['rows'][0]['link_query']}"


@dataclass(frozen=True)
class Visit:
    path: str
    charts: tuple[str, ...] = ()
    setup: Callable[[], object] | None = None
    update: Callable[[Page], None] | None = None
    status: int = 200
    # Rows left out of the axe run (after the layout checks): axe takes seconds per thousand
    # cells, and the rows of one template loop do not differ in what it checks.
    axe_trim: str | None = None
    # A path computed from the data the setup made (a ranked candidate's parts).
    path_from_setup: bool = False


VISITS = {
    "home": Visit("/", ("scatter-chart",), lambda: ranking_compute(GLM),
                  _change("Budget (USD)", "3000")),
    "serve": Visit("/serve/", ("serving-chart",), lambda: ranking_compute(FLASH),
                   _change("Budget (USD)", "3000")),
    "serve-build": Visit(f"/builds/{BUILD_B}/serve/", SERVING_CHARTS,
                         update=_change("Context (tokens)", "8192")),
    "serve-candidate": Visit("", SERVING_CHARTS, _serving_candidate_path, path_from_setup=True),
    "simulate-serve": Visit("/simulate/serve/", SERVING_CHARTS,
                            update=_change("System RAM (GB)", "64")),
    "builds": Visit("/builds/"),
    "build": Visit(f"/builds/{BUILD_A}/", ("memory-chart", "steps-chart", "curve-chart"),
                   update=_change("Sequence length (tokens)", "2048")),
    "candidate": Visit("", ("memory-chart", "curve-chart"), _candidate_path,
                       path_from_setup=True),
    "candidate-fastest": Visit("", ("memory-chart", "curve-chart"),
                               lambda: _candidate_path("tokens_per_s"), path_from_setup=True),
    "compare": Visit(f"/compare/?builds={BUILD_A}&builds={BUILD_C}", update=_compare_again),
    "simulate": Visit("/simulate/", ("memory-chart", "curve-chart"),
                      update=_change("Dense BF16 TFLOPS", "400", within="#custom-sim")),
    **{f"catalog-{kind}": Visit(f"/catalog/?kind={kind}") for kind in CATALOG_KINDS},
    "part": Visit("/catalog/parts/rtx-4090/", ("price-chart",)),
    "api-guide": Visit("/api-guide/"),
    "accuracy": Visit("/accuracy/", ("accuracy-chart",), measurements_load,
                      axe_trim="table.accuracy-rows tbody tr:nth-child(n+41)"),
    "not-found": Visit("/no-such-page/", status=404),
    "server-error": Visit("/test-only/fail/", status=500),
}  # fmt: skip
# The failing view is in the error pages' test URLconf, the site's with views that fail.
MARKS = {
    "server-error": pytest.mark.urls("tests.planner_site.test_error_pages"),
}  # fmt: skip


def _layout(page: Page, visit: Visit, width: int) -> list[str]:
    """Overflow, chart and axe problems of the page as it is now, each tagged with the width."""
    for canvas in visit.charts:
        wait_for_chart(page, canvas)
    page.wait_for_timeout(100)  # Chart.js redraws on resize after a short debounce
    found = [page_overflow(page), *chart_layout_problems(page)]
    shown = page.locator("body").inner_text()
    found += [f"template syntax shown: {tag}" for tag in ("{#", "{%", "{{") if tag in shown]
    if visit.axe_trim:
        page.locator(visit.axe_trim).evaluate_all("rows => rows.forEach(row => row.remove())")
    found += axe_serious(page)
    return [f"{width} px: {problem}" for problem in found if problem]


def _screenshot(page: Page, name: str) -> None:
    """The top of the page (long tables make a full page too tall to look at)."""
    folder = os.environ.get("FINISH_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        width = page.viewport_size["width"] if page.viewport_size else 1280
        height = min(2400, page.evaluate("() => document.documentElement.scrollHeight"))
        clip: FloatRect = {"x": 0, "y": 0, "width": width, "height": height}
        page.screenshot(path=f"{folder}/{name}.png", full_page=True, clip=clip)


@pytest.mark.parametrize("name", [pytest.param(n, marks=MARKS.get(n, ())) for n in VISITS])
def test_the_page_is_finished_at_desktop_and_phone_width(
    live_server: LiveServer, page: Page, name: str
) -> None:
    visit = VISITS[name]
    made = visit.setup() if visit.setup else None
    path = str(made) if visit.path_from_setup else visit.path
    page.set_default_timeout(10_000)
    watch = ConsoleWatch(page)
    problems: list[str] = []

    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        response = page.goto(live_server.url + path)
        assert response is not None
        assert response.status == visit.status  # loaded: the deferred scripts have run
        problems += _layout(page, visit, width)
        _screenshot(page, f"{name}-{width}")

    if visit.update:  # at phone width, where a swapped-in table is likeliest to overflow
        visit.update(page)
        problems += [f"after an update, {p}" for p in _layout(page, visit, WIDTHS[-1])]
        _screenshot(page, f"{name}-{WIDTHS[-1]}-updated")

    problems += watch.problems(expected_status=visit.status)
    assert not problems, "\n".join(problems)


def test_the_keyboard_reaches_the_simulate_form_in_order_from_a_skip_link(
    live_server: LiveServer, page: Page
) -> None:
    page.goto(live_server.url + "/simulate/")
    form = page.locator("#custom-sim form")
    controls = form.locator("input:not([type=hidden]), select, button").evaluate_all(
        "els => els.filter(el => el.checkVisibility()).map(el => el.id || el.textContent.trim())"
    )

    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()  # shown when focused, though hidden until then
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile("#content$"))

    reached: list[str] = []
    for step in range(len(controls) + 5):
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "() => { const el = document.activeElement, style = getComputedStyle(el);"
            " return {key: el.id || el.textContent.trim(), in_main: !!el.closest('main'),"
            " ring: style.outlineStyle, width: parseFloat(style.outlineWidth)}; }"
        )
        if step == 0:  # the skip link passed over the header's links
            assert focused["in_main"], focused
        if focused["key"] in controls:
            reached.append(focused["key"])
            assert focused["ring"] != "none", focused  # :focus-visible draws a ring
            assert focused["width"] >= 2, focused
        if reached and reached[-1] == controls[-1]:
            break

    # Tabbing on from the skip link reaches every control of the form, in the form's order.
    assert reached == controls

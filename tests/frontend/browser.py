"""Helpers of the browser tests: screenshots at phone and desktop width, chart data, and
the finish checks: console errors, page overflow, chart layout, axe-core."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from axe_playwright_python.base import AXE_SCRIPT
from playwright.sync_api import ConsoleMessage, Page, Response

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


# True once htmx has no request in flight and nothing left to swap or settle on the page.
HTMX_IDLE = "!document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping')"


@contextmanager
def swapped(page: Page, selector: str) -> Iterator[None]:
    """Wait, after the block, until htmx has answered a POST and put a new element where
    `selector` was. The answer reaching the browser is not enough: until htmx swaps it in,
    a field filled on the page is the old form's, about to be replaced, and its change event
    would send the old values (seen on a loaded CI machine)."""
    page.locator(selector).evaluate("el => { el.dataset.stale = '1'; }")
    with page.expect_response(_is_post):
        yield
    page.wait_for_function(
        "sel => { const el = document.querySelector(sel);"
        f" return el && !el.dataset.stale && {HTMX_IDLE}; }}",
        arg=selector,
    )


def _is_post(response: Response) -> bool:
    return response.request.method == "POST"


# --- The finish checks (test_browser_finish): console, layout, charts, accessibility -----

RECORD_VIOLATIONS = """() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation',
        e => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`
            + ` from ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`));
}"""


class ConsoleWatch:
    """Every console error, uncaught exception and Content-Security-Policy violation of a
    page, from its first script on: Chromium reports a blocked style or script both as a
    console error and as a `securitypolicyviolation` event (the event also catches what a
    console filter would miss)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("console", self._on_console)
        page.on("pageerror", lambda exc: self.errors.append(f"uncaught: {exc}"))
        page.add_init_script(f"({RECORD_VIOLATIONS})()")

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def problems(self, *, expected_status: int = 200) -> list[str]:
        """What went wrong so far; a 404 or 500 page's own status line is expected."""
        status_line = f"status of {expected_status}"
        found = [
            e
            for e in self.errors
            if not (expected_status != 200 and status_line in e and "Failed to load" in e)
        ]
        violations: list[str] = self.page.evaluate("() => window.__cspViolations || []")
        return found + [f"CSP violation: {v}" for v in violations]


OVERFLOW = """() => {
    // Elements whose right edge passes the viewport, outside any container that scrolls
    // sideways on its own: those are what widen the page.
    const width = window.innerWidth;
    const scrolls = el => {
        for (let p = el.parentElement; p; p = p.parentElement) {
            const x = getComputedStyle(p).overflowX;
            if (x === 'auto' || x === 'scroll' || x === 'hidden') return true;
        }
        return false;
    };
    const culprits = [];
    for (const el of document.body.querySelectorAll('*')) {
        const box = el.getBoundingClientRect();
        if (box.width && box.right > width + 1 && !scrolls(el)) {
            const classes = typeof el.className === 'string' ? el.className.trim() : '';
            const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
                + (classes ? '.' + classes.split(/\\s+/).join('.') : '');
            culprits.push(`${name} right=${Math.round(box.right)}`);
        }
    }
    const scrollWidth = document.documentElement.scrollWidth;
    return {scrollWidth, width, culprits: culprits.slice(0, 8)};
}"""


def page_overflow(page: Page) -> str | None:
    """Why the page is wider than the window, or None when it fits."""
    found: dict[str, Any] = page.evaluate(OVERFLOW)
    if found["scrollWidth"] <= found["width"]:
        return None
    wide, window = found["scrollWidth"], found["width"]
    return f"page {wide} px wide in a {window} px window: {found['culprits']}"


CHART_LAYOUT = """() => {
    // Each chart on the page: drawn, inside its box, and no two tick labels of an axis
    // overlapping (Chart.js places them; we measure them as it draws them).
    const problems = [];
    for (const canvas of document.querySelectorAll('canvas[data-chart]')) {
        const name = canvas.id || canvas.dataset.chart;
        const chart = window.Chart && Chart.getChart(canvas);
        if (!chart) { problems.push(`${name}: not drawn`); continue; }
        const box = canvas.parentElement.getBoundingClientRect();
        const drawn = canvas.getBoundingClientRect();
        if (drawn.width > box.width + 1 || drawn.left < box.left - 1) {
            const sizes = `${Math.round(drawn.width)} px in a ${Math.round(box.width)} px box`;
            problems.push(`${name}: canvas ${sizes}`);
        }
        const ctx = chart.ctx;
        for (const scale of Object.values(chart.scales)) {
            if (!scale.options.display || !scale.options.ticks.display) continue;
            const items = scale.getLabelItems().filter(i => [].concat(i.label).join('') !== '');
            const spans = items.map(item => {
                ctx.save();
                ctx.font = item.font.string;
                const lines = [].concat(item.label);
                const width = Math.max(...lines.map(l => ctx.measureText(String(l)).width));
                ctx.restore();
                const height = item.font.lineHeight * lines.length;
                const [x, y] = item.options.translation;
                const rotation = item.options.rotation;
                return {x, y, width, height, rotation, text: lines.join(' ')};
            });
            const horizontal = scale.isHorizontal();
            spans.sort((a, b) => horizontal ? a.x - b.x : a.y - b.y);
            for (let i = 1; i < spans.length; i++) {
                const a = spans[i - 1], b = spans[i];
                let overlap;
                if (!horizontal) {
                    overlap = (b.y - a.y) < (a.height + b.height) / 2 - 1;
                } else if (Math.abs(a.rotation) < 1e-3) {
                    overlap = (b.x - a.x) < (a.width + b.width) / 2 - 1;
                } else {
                    // Rotated labels are parallel strips one line high: they overlap when
                    // their anchors are closer, across the text, than a line.
                    overlap = (b.x - a.x) * Math.abs(Math.sin(a.rotation)) < a.height - 1;
                }
                if (overlap) {
                    const pair = `"${a.text}" and "${b.text}"`;
                    problems.push(`${name}: ${scale.id} labels ${pair} overlap`);
                    break;
                }
            }
        }
    }
    return problems;
}"""


def chart_layout_problems(page: Page) -> list[str]:
    """Charts not drawn, wider than their box, or with overlapping tick labels."""
    problems: list[str] = page.evaluate(CHART_LAYOUT)
    return problems


SERIOUS = ("serious", "critical")


def axe_serious(page: Page, *, exclude: str | None = None) -> list[str]:
    """axe-core's serious and critical violations on the page, one line per rule, leaving out
    the elements `exclude` selects (the many alike rows of a long table: axe takes seconds per
    thousand cells). The script comes from the axe-playwright-python wheel and is evaluated by
    Playwright, so it needs no network and is not subject to the page's Content-Security-Policy."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE_SCRIPT)
    context = {"exclude": [[exclude]]} if exclude else {"exclude": []}
    options = {"resultTypes": ["violations"]}
    results: dict[str, Any] = page.evaluate(
        "([context, options]) => axe.run(context, options)", [context, options]
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + ", ".join(" ".join(map(str, n["target"])) for n in v["nodes"][:4])
        for v in results["violations"]
        if v["impact"] in SERIOUS
    ]

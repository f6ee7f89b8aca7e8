"""A model brought as a config.json, in a real browser (headless Chromium against the live
server): pasted on /simulate/, simulated, named in the result's link, with no console error
and nothing blocked by the Content-Security-Policy."""

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.frontend.browser import swapped, wait_for_chart
from tests.frontend.test_custom_model import CONFIG

pytestmark = pytest.mark.usefixtures("catalog_committed")

SHOTS = Path("/tmp")
WIDTHS = (1280, 390)
RECORD_VIOLATIONS = """() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation',
        e => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
}"""


def _watch(page: Page) -> list[str]:
    """Console errors and uncaught exceptions, from the first script on."""
    errors: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.add_init_script(f"({RECORD_VIOLATIONS})()")
    return errors


def _shots(page: Page, name: str) -> None:
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(150)  # Chart.js redraws on resize
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": WIDTHS[0], "height": 900})


def test_a_config_json_pasted_on_the_simulate_page_is_simulated_and_shared(
    live_server: LiveServer, page: Page
) -> None:
    errors = _watch(page)
    page.goto(f"{live_server.url}/simulate/")
    form = page.locator("#custom-sim")
    form.get_by_text("Your model: paste or upload").click()
    name = form.get_by_label("Model name")
    name.fill("My GLM")
    # The form answers each change: wait for it before typing into the form it replaces.
    with swapped(page, "#custom-sim"):
        name.dispatch_event("change")
    form.get_by_label("config.json").fill(json.dumps(CONFIG, indent=2))
    _shots(page, "byom-simulate-pasted")

    with swapped(page, "#custom-sim"):
        form.get_by_role("button", name="Simulate").click()

    model = page.locator("#custom-sim #id_model")
    expect(model).to_have_value(re.compile(r"^custom:[0-9a-f]{16}$"))
    expect(model.locator("option:checked")).to_contain_text("My GLM (yours)")
    wait_for_chart(page, "curve-chart")
    page.wait_for_load_state("networkidle")
    speed = page.locator(".headline .big").first.inner_text()
    _shots(page, "byom-simulate-result")

    page.locator("#share-link").click()
    wait_for_chart(page, "curve-chart")
    expect(page).to_have_url(re.compile(r"model=custom%3A[0-9a-f]{16}"))
    expect(page.locator(".headline .big").first).to_have_text(speed)

    assert page.evaluate("() => window.__cspViolations || []") == []
    assert errors == []

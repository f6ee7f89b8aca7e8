"""The Content-Security-Policy is strict (no inline code, no eval) and nothing the pages,
the admin or the API docs do is blocked by it: Chromium reports each blocked script, style
or eval as a console error and a `securitypolicyviolation` event."""

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import ConsoleMessage, Page
from pytest_django.live_server_helper import LiveServer

from tests.frontend.browser import wait_for_chart
from tests.frontend.conftest import GLM, ranking_compute
from tests.frontend.test_serving import FLASH

pytestmark = pytest.mark.usefixtures("catalog_committed")

PAGES = (
    "/",
    "/serve/",
    "/accuracy/",
    "/builds/",
    "/builds/seed-a-budget-single-gpu/",
    "/compare/?builds=seed-a-budget-single-gpu&builds=seed-c-single-rtx-5090",
    "/simulate/",
    "/simulate/serve/",
    "/builds/seed-b-dual-4090-consumer/serve/",
    "/catalog/",
    "/catalog/parts/rtx-4090/",
    "/api-guide/",
    "/api/docs/",
    "/admin/login/",
)
PRECOMPUTED = {"/": GLM, "/serve/": FLASH}
RECORD_VIOLATIONS = """() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation',
        e => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
}"""


def _watch(page: Page) -> list[str]:
    errors: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error" and "Content Security Policy" in message.text:
            errors.append(message.text)

    page.on("console", on_console)
    page.add_init_script(f"({RECORD_VIOLATIONS})()")
    return errors


def _violations(page: Page) -> list[str]:
    found: list[str] = page.evaluate("() => window.__cspViolations || []")
    return found


@pytest.mark.parametrize("path", PAGES)
def test_no_page_is_blocked_by_the_content_security_policy(
    live_server: LiveServer, page: Page, path: str
) -> None:
    if path in PRECOMPUTED:
        ranking_compute(PRECOMPUTED[path])  # the page's table and chart, no worker needed
    errors = _watch(page)

    response = page.goto(live_server.url + path)

    assert response is not None
    assert response.status == 200
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert "unsafe-eval" not in policy
    page.wait_for_load_state("networkidle")
    if path in PRECOMPUTED:  # the charts ran under the policy
        wait_for_chart(page, "scatter-chart" if path == "/" else "serving-chart")
    assert _violations(page) == []
    assert errors == []


def test_the_admin_change_pages_work_under_the_policy(live_server: LiveServer, page: Page) -> None:
    User.objects.create_superuser("root", "root@example.com", "pw-for-the-test")
    errors = _watch(page)
    page.goto(live_server.url + "/admin/login/")
    page.get_by_label("Username:").fill("root")
    page.get_by_label("Password:").fill("pw-for-the-test")
    page.get_by_role("button", name="Log in").click()

    for path in ("/admin/", "/admin/catalog/gpu/", "/admin/catalog/priceobservation/add/"):
        page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
        assert _violations(page) == [], path
    assert errors == []

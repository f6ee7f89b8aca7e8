"""A buyer and a member of staff in the catalog (headless Chromium against the live
server): from a parts table to a part's page with its spec table and price chart, and, as
staff, from "Add a price" through the admin's form back to the part's price history."""

import re

import pytest
from django.test import Client
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from catalog.models import Part
from tests.catalog.factories import pricing_staff
from tests.frontend.browser import chart_points, screenshots, wait_for_chart

pytestmark = pytest.mark.usefixtures("catalog_committed")


def _sign_in(page: Page, live_server: LiveServer) -> None:
    """The browser takes the session of a staff account that may add prices."""
    client = Client()
    client.force_login(pricing_staff(username="pricer"))
    session = client.cookies["sessionid"].value
    page.context.add_cookies([{"name": "sessionid", "value": session, "url": live_server.url}])


def test_a_buyer_follows_a_part_link_to_its_specs_and_price_chart(
    live_server: LiveServer, page: Page
) -> None:
    page.goto(f"{live_server.url}/catalog/?kind=nvme_drive")
    expect(page.get_by_role("heading", name="NVMe drives")).to_be_visible()
    page.get_by_role("link", name="GPU", exact=True).click()
    screenshots(page, "catalog-gpus")

    page.get_by_role("link", name="RTX 4090", exact=True).click()

    expect(page).to_have_url(re.compile("/catalog/parts/rtx-4090/$"))
    specs = page.locator("table.specs")
    expect(specs.get_by_role("row", name="VRAM")).to_contain_text("24 GB")
    bandwidth = specs.get_by_role("row", name=re.compile("^Memory bandwidth"))
    expect(bandwidth).to_contain_text("1,008 GB/s")
    wait_for_chart(page, "price-chart")
    assert chart_points(page, "price-chart") == 1
    expect(page.get_by_role("link", name="Add a price")).to_have_count(0)
    expect(page.get_by_role("link", name="Admin", exact=True)).to_have_count(0)
    screenshots(page, "part-rtx-4090")


def test_staff_add_a_price_from_the_part_page_through_the_admin(
    live_server: LiveServer, page: Page
) -> None:
    _sign_in(page, live_server)
    part = Part.objects.get(slug="rtx-4090")
    page.goto(f"{live_server.url}/catalog/parts/rtx-4090/")
    expect(page.get_by_role("link", name="Admin", exact=True)).to_be_visible()

    page.get_by_role("link", name="Add a price").click()

    expect(page).to_have_url(re.compile(f"/admin/catalog/priceobservation/add/\\?part={part.pk}$"))
    expect(page.locator("#id_part")).to_have_value(str(part.pk))  # filled in
    page.locator("#id_amount").fill("1649")
    page.locator("#id_vendor").fill("Micro Center")
    page.locator("#id_observed_on").fill("2026-10-01")
    screenshots(page, "admin-add-price")
    page.locator("input[name=_save]").click()
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")

    page.goto(f"{live_server.url}/catalog/parts/rtx-4090/")
    expect(page.locator("table").last).to_contain_text("Micro Center")
    wait_for_chart(page, "price-chart")
    assert chart_points(page, "price-chart", dataset=1) == 1  # the new price's own line
    screenshots(page, "part-rtx-4090-repriced")

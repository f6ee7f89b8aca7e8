"""Staff tools where staff look: an "Admin" link in the navigation for staff, "Add a price"
on a part's page for those who may add prices (the admin's and POST /api/prices's rule),
and each price's age in words next to its date."""

import datetime
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from catalog.models import Part
from frontend.templatetags.planner import age_in_words, price_age
from tests.catalog.factories import UserFactory, pricing_staff

PART_PAGE = "/catalog/parts/rtx-4090/"
ADMIN_LINK = '<a href="/admin/">Admin</a>'
ADD_PRICE = "Add a price"
TODAY = datetime.date(2026, 11, 25)
LOCALDATE = "frontend.templatetags.planner.timezone.localdate"
pytestmark = pytest.mark.usefixtures("catalog")


def _text(response: Any) -> str:
    return str(response.content.decode())


def test_a_visitor_sees_neither_the_admin_link_nor_add_a_price(client: Client) -> None:
    page = _text(client.get(PART_PAGE))

    assert ADMIN_LINK not in page
    assert ADD_PRICE not in page


def test_a_signed_in_user_who_is_not_staff_sees_neither(client: Client) -> None:
    user = UserFactory.create()
    user.user_permissions.add(Permission.objects.get(codename="add_priceobservation"))
    client.force_login(user)

    page = _text(client.get(PART_PAGE))

    assert ADMIN_LINK not in page
    assert ADD_PRICE not in page


def test_staff_who_may_add_prices_see_the_admin_link_and_add_a_price(client: Client) -> None:
    client.force_login(pricing_staff())
    part = Part.objects.get(slug="rtx-4090")

    page = _text(client.get(PART_PAGE))

    assert ADMIN_LINK in page
    assert f'<a href="/admin/catalog/priceobservation/add/?part={part.pk}">{ADD_PRICE}</a>' in page


def test_staff_without_the_price_permission_see_the_admin_link_only(client: Client) -> None:
    client.force_login(UserFactory.create(is_staff=True))

    page = _text(client.get(PART_PAGE))

    assert ADMIN_LINK in page
    assert ADD_PRICE not in page


def test_add_a_price_opens_the_admin_form_with_the_part_filled_in(client: Client) -> None:
    client.force_login(pricing_staff())
    part = Part.objects.get(slug="rtx-4090")

    response = client.get(f"/admin/catalog/priceobservation/add/?part={part.pk}")

    assert response.status_code == 200
    assert response.context["adminform"].form.initial["part"] == str(part.pk)
    assert f'<option value="{part.pk}" selected>RTX 4090</option>' in _text(response)


@pytest.mark.parametrize(
    ("observed_on", "words"),
    [
        (datetime.date(2026, 2, 1), "9 months old"),
        (datetime.date(2026, 11, 1), "under a month old"),
        (datetime.date(2026, 10, 25), "1 month old"),
        (datetime.date(2026, 10, 26), "under a month old"),  # a month is whole on the 25th
        (datetime.date(2025, 3, 5), "20 months old"),
        (datetime.date(2024, 10, 29), "2 years old"),
    ],
)
def test_a_prices_age_counts_whole_months_to_today(observed_on: datetime.date, words: str) -> None:
    assert age_in_words(observed_on, today=TODAY) == words


def test_a_price_date_reads_with_its_month_and_age(settings: Any) -> None:
    settings.PRICE_STALE_AFTER_DAYS = 365
    with mock.patch(LOCALDATE, return_value=TODAY):
        shown = price_age("2026-02-01")

    assert shown == 'from <time datetime="2026-02-01">2026-02</time>, 9 months old'


def test_a_price_older_than_the_stale_age_is_flagged_stale(settings: Any) -> None:
    settings.PRICE_STALE_AFTER_DAYS = 180
    with mock.patch(LOCALDATE, return_value=TODAY):
        old = price_age("2026-02-01")  # 298 days before TODAY
        recent = price_age("2026-11-01")

    assert old.endswith('<span class="tag stale" title="older than 180 days">stale</span>')
    assert "stale" not in recent


def test_the_catalog_part_page_and_build_page_show_each_prices_age(client: Client) -> None:
    with mock.patch(LOCALDATE, return_value=TODAY):
        catalog = _text(client.get("/catalog/"))
        part = _text(client.get(PART_PAGE))
        build = _text(client.get("/builds/seed-a-budget-single-gpu/"))

    month_and_age = 'from <time datetime="2026-02-01">2026-02</time>, 9 months old'
    assert f"seed 000, {month_and_age}" in catalog
    assert f"seed 000, {month_and_age}" in build
    assert 'from <time datetime="2026-02-01">2026-02-01</time>, 9 months old' in part

"""Number formats of the pages: dollars, rounded figures, a price's age and JSON-path
lookups."""

from datetime import date
from typing import Any

from django import template
from django.conf import settings
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

from catalog.models import PartKind
from catalog.selectors import price_stale

register = template.Library()

MONTHS_IN_YEAR = 12
# Up to two years an age is counted in months ("14 months old"), beyond in years.
AGE_IN_MONTHS_BELOW = 24


@register.filter
def usd(value: Any) -> str:
    """$1,234 (or — when there is no price)."""
    if value is None or value == "":
        return "—"
    amount = float(value)
    return f"${amount:,.2f}" if amount < 100 else f"${amount:,.0f}"


@register.filter
def num(value: Any, digits: int = 0) -> str:
    """A number with thousands separators and `digits` decimals (— for none); a whole
    number (a GPU count, a layer count) without decimals."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, int) or value.is_integer():
        return f"{int(value):,}"
    return f"{value:,.{int(digits)}f}"


@register.filter
def part_kind(value: str) -> str:
    """A part kind in words: "nvme_drive" → "NVMe drive"."""
    return str(PartKind(value).label) if value in PartKind.values else value


@register.filter
def get(mapping: Any, key: str) -> Any:
    return mapping.get(key) if isinstance(mapping, dict) else None


def age_in_words(observed_on: date, *, today: date) -> str:
    """How long ago a price was observed, in whole months: "9 months old", "under a month
    old", "3 years old" (from 24 months on)."""
    months = (today.year - observed_on.year) * MONTHS_IN_YEAR + today.month - observed_on.month
    months -= today.day < observed_on.day  # a month is whole on the same day of the month
    if months < 1:
        return "under a month old"
    if months < AGE_IN_MONTHS_BELOW:
        return f"{months} month{'' if months == 1 else 's'} old"
    return f"{months // MONTHS_IN_YEAR} years old"


@register.filter
def price_age(value: date | str | None, precision: str = "month") -> str:
    """A price's date and age, counted to today: "from 2026-02, 9 months old" (with the day
    for `precision` "day", where several prices of one month are listed), flagged "stale"
    when older than PRICE_STALE_AFTER_DAYS. Every price date on the pages is shown through
    this filter."""
    if not value:
        return ""
    observed_on = date.fromisoformat(value) if isinstance(value, str) else value
    shown = observed_on.isoformat() if precision == "day" else observed_on.strftime("%Y-%m")
    today = timezone.localdate()
    age = age_in_words(observed_on, today=today)
    html: SafeString = format_html(
        'from <time datetime="{}">{}</time>, {}', observed_on.isoformat(), shown, age
    )
    if price_stale(observed_on=observed_on, today=today):
        html = format_html(
            '{} <span class="tag stale" title="older than {} days">stale</span>',
            html,
            settings.PRICE_STALE_AFTER_DAYS,
        )
    return html

"""Number formats of the pages: dollars, rounded figures and JSON-path lookups."""

from typing import Any

from django import template

register = template.Library()


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
def get(mapping: Any, key: str) -> Any:
    return mapping.get(key) if isinstance(mapping, dict) else None

"""Formats of the accuracy page and of the error bands every figure carries."""

from collections.abc import Mapping
from typing import Any

from django import template

register = template.Library()


@register.filter
def pct(value: Any, signed: bool = False) -> str:
    """A fraction as a percentage: 0.123 → "12.3 %" ("+12.3 %" when signed; — for none)."""
    if value is None or value == "":
        return "—"
    return f"{float(value) * 100:{'+' if signed else ''}.1f} %"


@register.filter
def compact(value: Any) -> str:
    """A row's hardware or workload object on one line: "gpu: RTX 4090, gpu_count: 1"."""
    if not isinstance(value, Mapping):
        return "" if value is None else str(value)
    return ", ".join(f"{key}: {compact(item)}" for key, item in value.items())


@register.filter
def band(value: Any) -> str:
    """An error band in words: "typically within ±12 % for this class (dense GPU inference)"."""
    if not isinstance(value, Mapping):
        return ""
    label = value.get("category_label") or value.get("category", "")
    typical = value.get("typical_abs_error")
    if typical is None:
        return f"no measured accuracy yet for this class ({label})"
    low, high = value.get("signed_error_low"), value.get("signed_error_high")
    if low is not None and high is not None:
        # predicted/measured − 1 in [low, high]: the measurement is between these of the figure
        below, above = 1 / (1 + float(high)) - 1, 1 / (1 + float(low)) - 1
        return (f"8 in 10 measured figures of this class ({label}) lie between "
                f"{below * 100:+.0f} % and {above * 100:+.0f} % of the prediction")  # fmt: skip
    return f"typically within ±{float(typical) * 100:.0f} % for this class ({label})"


@register.filter
def band_short(value: Any) -> str:
    """An error band as "±12 %" (— when nothing is modeled)."""
    if not isinstance(value, Mapping) or value.get("typical_abs_error") is None:
        return ""
    return f"±{float(value['typical_abs_error']) * 100:.0f} %"


@register.filter
def likely(value: Any, digits: int = 0) -> str:
    """A figure's likely range in words: [251.2, 320.9] → "likely 251–321" ("" without one)."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        return ""
    low, high = (float(v) for v in value)
    return f"likely {low:,.{digits}f}–{high:,.{digits}f}"

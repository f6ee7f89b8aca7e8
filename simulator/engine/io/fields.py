"""Reading the fields of a request's JSON: typed, bounded and named on error; and the one
table that turns the engine's field names into the request's JSON paths.

Every error is an `EngineInputError` whose `field` names the bad value. The request parser
names JSON paths (`workload.seq_len`); the rules of the physics name engine quantities
(`hardware.gpu.vram_gib`), which `json_path` maps to the request's (`hardware.gpu.vram_gb`).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping

from simulator.engine.errors import EngineInputError

# Engine quantities whose request field has another name: capacities are `_gib` inside the
# engine and `_gb` in requests and results (units.py).
JSON_PATHS: dict[str, str] = {
    "hardware.gpu.vram_gib": "hardware.gpu.vram_gb",
    "hardware.ram_gib": "hardware.ram_gb",
    "hardware.pinned_gib": "hardware.pinned_gb",
    "hardware.unified.mem_gib": "hardware.unified.mem_gb",
}


def json_path(field: str) -> str:
    """The request's JSON path of an error's `field` (a JSON path already stays as it is)."""
    return JSON_PATHS.get(field, field)


def require_known_fields(section: Mapping[str, object], known: frozenset[str], path: str) -> None:
    """A field this part of the request does not have is an error naming it (a misspelled
    `sequence_length` must not run at the default `seq_len`)."""
    unknown = sorted(str(key) for key in section if key not in known)
    if unknown:
        field = f"{path}.{unknown[0]}" if path else unknown[0]
        close = difflib.get_close_matches(unknown[0], sorted(known), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        names = ", ".join(repr(name) for name in unknown)
        message = f"unknown field{'s' if len(unknown) > 1 else ''} {names}{hint}"
        raise EngineInputError(
            field=field, message=f"{message} (known: {', '.join(sorted(known))})"
        )


def section(body: Mapping[str, object], key: str, path: str = "") -> Mapping[str, object]:
    value = body.get(key)
    if not isinstance(value, Mapping):
        raise EngineInputError(field=f"{path}{key}", message="must be an object")
    return value


def number(
    section: Mapping[str, object],
    key: str,
    path: str,
    default: float | None = None,
    *,
    lower: float | None = None,
    upper: float = math.inf,
    allow_zero: bool = False,
) -> float:
    """A number > 0 (≥ 0 with `allow_zero`; from `lower` when given) and ≤ `upper`."""
    value = section.get(key, default)
    field = f"{path}.{key}"
    if value is None:
        raise EngineInputError(field=field, message="is required")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EngineInputError(field=field, message=f"must be a number, got {value!r}")
    try:
        number = float(value)
    except OverflowError:  # an integer beyond any float
        number = math.inf
    if lower is not None:
        if not lower <= number <= upper:
            raise EngineInputError(
                field=field, message=f"must be a number from {lower:g} to {upper:g}"
            )
        return number
    low_ok = number >= 0 if allow_zero else number > 0
    if not math.isfinite(number) or not low_ok or number > upper:
        bound = "≥ 0" if allow_zero else "> 0"
        limit = f" and ≤ {upper:g}" if math.isfinite(upper) else ""
        raise EngineInputError(field=field, message=f"must be a finite number {bound}{limit}")
    return number


def integer(
    section: Mapping[str, object],
    key: str,
    path: str,
    default: int | None,
    *,
    upper: int,
    lower: int = 1,
) -> int:
    value = section.get(key, default)
    field = f"{path}.{key}"
    if value is None:
        raise EngineInputError(field=field, message="is required")
    if isinstance(value, bool) or not isinstance(value, int) or not lower <= value <= upper:
        allowed = f"a positive integer ≤ {upper}" if lower == 1 else f"an integer {lower}–{upper}"
        raise EngineInputError(field=field, message=f"must be {allowed}")
    return value


def optional_integer(
    section: Mapping[str, object], key: str, path: str, *, upper: int
) -> int | None:
    return None if section.get(key) is None else integer(section, key, path, None, upper=upper)


def choice(
    section: Mapping[str, object], key: str, path: str, choices: tuple[str, ...], default: str
) -> str:
    value = section.get(key, default)
    if value not in choices:
        raise EngineInputError(field=f"{path}.{key}", message=f"must be one of {list(choices)}")
    return str(value)


def optional_boolean(section: Mapping[str, object], key: str, path: str) -> bool | None:
    """A JSON true or false; None when absent or null (the engine's default applies)."""
    value = section.get(key)
    if value is None:
        return None
    if not isinstance(value, bool):
        raise EngineInputError(field=f"{path}.{key}", message="must be true or false")
    return value

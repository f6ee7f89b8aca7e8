"""Models brought as a Hugging Face config.json on the pages: read from the pasted text or
uploaded file (JSON checked here, the model's shape by the engine), stored once under the
hash of the canonical JSON the engine gets, and found again by the `custom:<16 hex>` slug a
page's address names it by."""

import hashlib
import json
import math
import re
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError

from frontend.models import CUSTOM_PREFIX, CustomModel
from planner_site.api_parsers import CONTROL_CHARACTERS, refused_value
from simulator.engine import EngineInputError, json_path, workload_model

NAME_MAX_CHARS = 80
SLUG = re.compile(rf"{CUSTOM_PREFIX}([0-9a-f]{{16}})")
# How a path of the engine's names the config: errors are shown as `model_config.<key>`.
ENGINE_PATH = "workload.model_config"


def model_config_max_bytes() -> int:
    """A quarter of the body limit the API takes a config.json in: pasted into a form and
    URL-encoded (each quote and brace three bytes) it still fits the page's request."""
    limit: int = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return limit // 4


@dataclass(frozen=True, slots=True, kw_only=True)
class PastedModel:
    """A config.json the engine reads, named: `config` is the `model_config` it gets (the
    pasted object with `name` as its `_display_name`), `sha256` the hash of its canonical
    JSON."""

    name: str
    config: dict[str, Any]
    sha256: str


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999: JSON has no infinity, nor has PostgreSQL's jsonb
        raise ValueError(f"the number {text[:20]} is too large")
    return value


def _constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def model_config_read(text: str) -> dict[str, Any]:
    """The JSON object of a pasted or uploaded config.json; a ValidationError saying what is
    wrong with the text otherwise (too large, control characters, not JSON, not an object)."""
    size, limit = len(text.encode("utf-8", "surrogatepass")), model_config_max_bytes()
    if size > limit:
        raise ValidationError(
            f"model_config: config.json is {size:,} bytes; at most {limit:,} are taken."
        )
    if CONTROL_CHARACTERS.search(text):
        raise ValidationError("model_config: must not contain control characters (such as NUL).")
    try:
        value = json.loads(text, parse_constant=_constant, parse_float=_finite)
    except RecursionError:
        raise ValidationError("model_config: is not valid JSON: nested too deeply.") from None
    except ValueError as exc:
        raise ValidationError(f"model_config: is not valid JSON: {exc}.") from None
    if not isinstance(value, dict):
        kind = {list: "a list", str: "a string", bool: "true or false"}.get(type(value), "a number")
        if value is None:
            kind = "null"
        raise ValidationError(f"model_config: must be a JSON object (a config.json), got {kind}.")
    refused = refused_value(value)
    if refused is not None:
        path, message = refused
        where = "model_config" if path == "request" else f"model_config.{path}"
        raise ValidationError(f"{where}: {message}.")
    return value


def _name(name: str, config: dict[str, Any]) -> str:
    """The name typed, else the config's own (`_display_name`, `_name_or_path`, its type)."""
    model_type = config.get("model_type")
    candidates = (
        name,
        config.get("_display_name"),
        config.get("_name_or_path"),
        f"Your {model_type} model" if isinstance(model_type, str) else None,
    )
    for candidate in candidates:
        if isinstance(candidate, str) and candidate.strip():
            shown = CONTROL_CHARACTERS.sub("", candidate).strip()
            if shown:
                return shown[:NAME_MAX_CHARS]
    return "Your model"


def pasted_model(*, config: dict[str, Any], name: str = "") -> PastedModel:
    """The config named and checked by the engine as a workload's `model_config` is: a
    ValidationError naming the key (`model_config.num_hidden_layers: …`) if it cannot read
    it."""
    named = {**config, "_display_name": _name(name, config)}
    try:
        workload_model({"model": f"{CUSTOM_PREFIX}check", "model_config": named})
    except EngineInputError as exc:
        path = json_path(exc.field).removeprefix("workload.")
        raise ValidationError(f"{path}: {exc.message}.") from None
    except ArithmeticError:  # a number the engine's arithmetic cannot hold (10**400)
        raise ValidationError("model_config: holds a number too large to compute with.") from None
    canonical = json.dumps(named, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    try:
        encoded = canonical.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate ("\ud800"): no database stores it
        raise ValidationError("model_config: holds text that is not valid Unicode.") from None
    sha256 = hashlib.sha256(encoded).hexdigest()
    return PastedModel(name=named["_display_name"], config=named, sha256=sha256)


def custom_model_store(*, pasted: PastedModel) -> CustomModel:
    """The stored model for this config: the same config pasted again is the same row (and
    the same link)."""
    model, _ = CustomModel.objects.get_or_create(
        sha256=pasted.sha256, defaults={"name": pasted.name, "config": pasted.config}
    )
    return model


def custom_model_get(*, slug: str) -> CustomModel | None:
    """The stored model a `custom:<16 hex>` slug names; None for any other slug. Sixteen hex
    digits are 64 bits of the hash: two configs sharing them is not a case to plan for."""
    match = SLUG.fullmatch(slug)
    if match is None:
        return None
    return CustomModel.objects.filter(sha256__startswith=match[1]).first()


def is_custom_slug(slug: str) -> bool:
    return slug.startswith(CUSTOM_PREFIX)

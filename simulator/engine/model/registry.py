"""The models the product ships, by slug (configs in `data/models/<slug>.json`)."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache
from importlib import resources

from simulator.engine.errors import EngineInputError
from simulator.engine.model.config import ModelShape, parse_model_config
from simulator.engine.version import ENGINE_PACKAGE

_DATA = "data/models"


def model_slugs() -> tuple[str, ...]:
    files = resources.files(ENGINE_PACKAGE).joinpath(_DATA).iterdir()
    return tuple(sorted(f.name[: -len(".json")] for f in files if f.name.endswith(".json")))


@cache
def load_model(slug: str) -> ModelShape:
    """The shipped model `slug`; `EngineInputError` on `workload.model` if unknown."""
    if slug not in model_slugs():
        known = ", ".join(model_slugs())
        message = f"unknown model {slug!r}; known: {known}"
        raise EngineInputError(field="workload.model", message=message)
    text = resources.files(ENGINE_PACKAGE).joinpath(_DATA, f"{slug}.json").read_text("utf-8")
    shape = parse_model_config(json.loads(text), slug=slug, path=f"models.{slug}")
    return replace(shape, shipped=True)

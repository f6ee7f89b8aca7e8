"""The model of a workload section, either kind: a shipped slug or an inline config.json."""

from __future__ import annotations

import json
from collections.abc import Mapping

from simulator.engine.errors import EngineInputError
from simulator.engine.model.config import ModelShape, parse_model_config
from simulator.engine.model.registry import load_model


def workload_model(workload: Mapping[str, object]) -> ModelShape:
    """The workload's model: its inline `model_config` (config.json) or a shipped slug."""
    inline, slug = workload.get("model_config"), workload.get("model")
    if slug is not None and not isinstance(slug, str):  # an inline config's name too
        raise EngineInputError(field="workload.model", message="must be a model slug")
    if isinstance(inline, Mapping):
        return parse_model_config(inline, slug=slug or "custom", path="workload.model_config")
    if inline is not None:
        raise EngineInputError(
            field="workload.model_config", message="must be a JSON object (a config.json)"
        )
    if not slug:
        raise EngineInputError(field="workload.model", message="must be a model slug")
    return load_model(slug)


def model_config_json(workload: Mapping[str, object]) -> str | None:
    """A workload's inline config.json as canonical JSON, kept to echo it back."""
    inline = workload.get("model_config")
    return json.dumps(inline, sort_keys=True) if isinstance(inline, Mapping) else None

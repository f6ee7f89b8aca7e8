"""A workload section on its own (no hardware yet): validated and echoed with its defaults, for
rankings, whose hardware comes build by build."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from simulator.engine.errors import EngineInputError
from simulator.engine.io.serve_request import INFER, parse_infer_workload
from simulator.engine.io.serve_result import infer_workload_to_json
from simulator.engine.io.train_request import model_config_json, parse_workload
from simulator.engine.io.train_result import train_workload_to_json


def workload_to_json(workload: object) -> dict[str, Any]:
    """The workload section with defaults filled in, either kind; `EngineInputError` names a
    bad field as the whole request's parser would."""
    if not isinstance(workload, Mapping):
        raise EngineInputError(field="workload", message="must be a JSON object")
    config = model_config_json(workload)
    if workload.get("kind") == INFER:
        quant = json.dumps(workload.get("quant"), sort_keys=True)
        return infer_workload_to_json(
            parse_infer_workload(workload), quant_spec=quant, model_config_json=config
        )
    return train_workload_to_json(parse_workload(workload), config)

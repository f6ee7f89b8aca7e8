"""The one result codec: requests, workloads and results of either kind as JSON-safe bodies
(plain floats, ints, strings and lists) and as text reports, each kind's writer registered by
the type it writes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from simulator.engine.io.model import model_config_json
from simulator.engine.io.report import format_train_report
from simulator.engine.io.request import parse_workload
from simulator.engine.io.serve_result import (
    format_inference_report,
    infer_workload_to_json,
    inference_request_to_json,
    inference_result_to_json,
)
from simulator.engine.io.train_result import (
    train_request_to_json,
    train_result_to_json,
    train_workload_to_json,
)
from simulator.engine.serve.inference import InferenceResult
from simulator.engine.serve.workload import InferWorkload
from simulator.engine.train.result import TrainResult
from simulator.engine.train.workload import TrainWorkload
from simulator.engine.workload import SimulationRequest, Workload

WORKLOAD_WRITERS: dict[type, Callable[[Any, str | None], dict[str, Any]]] = {
    TrainWorkload: train_workload_to_json,
    InferWorkload: infer_workload_to_json,
}
REQUEST_WRITERS: dict[type, Callable[[Any], dict[str, Any]]] = {
    TrainWorkload: train_request_to_json,
    InferWorkload: inference_request_to_json,
}
RESULT_WRITERS: dict[type, Callable[[Any], dict[str, Any]]] = {
    TrainResult: train_result_to_json,
    InferenceResult: inference_result_to_json,
}
REPORT_WRITERS: dict[type, Callable[[Any], str]] = {
    TrainResult: format_train_report,
    InferenceResult: format_inference_report,
}
Result = TrainResult | InferenceResult


def workload_to_json(workload: Workload, model_config_json: str | None = None) -> dict[str, Any]:
    """The normalized workload section; `parse_workload` reads it back as is."""
    return WORKLOAD_WRITERS[type(workload)](workload, model_config_json)


def normalize_workload(workload: object) -> dict[str, Any]:
    """A workload section with its defaults filled in, either kind; `EngineInputError` names a
    bad field as the whole request's parser would."""
    parsed = parse_workload(workload)
    assert isinstance(workload, Mapping)  # parse_workload refuses anything but an object
    return workload_to_json(parsed, model_config_json(workload))


def request_to_json(request: SimulationRequest[Any]) -> dict[str, Any]:
    """The normalized request body: defaults filled in; `parse_request` reads it back as is."""
    return REQUEST_WRITERS[type(request.workload)](request)


def result_to_json(result: Result) -> dict[str, Any]:
    """The response body of a result of either kind."""
    return RESULT_WRITERS[type(result)](result)


def format_report(result: Result) -> str:
    """Plain text for the `simulate` command."""
    return REPORT_WRITERS[type(result)](result)

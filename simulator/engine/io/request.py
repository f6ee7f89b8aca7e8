"""The one request parser: a body's `workload.kind` picks the workload's parser; the hardware
section is read once, into the one hardware description, as that kind reads it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from simulator.engine.errors import EngineInputError
from simulator.engine.hardware import Hardware
from simulator.engine.io.fields import choice, require_known_fields, section
from simulator.engine.io.hardware import parse_hardware
from simulator.engine.io.model import model_config_json
from simulator.engine.io.serve_request import parse_infer_workload
from simulator.engine.io.train_request import parse_train_workload
from simulator.engine.serve.hardware import CPU, GPU, UNIFIED
from simulator.engine.serve.workload import INFER, InferWorkload
from simulator.engine.train.workload import TRAIN
from simulator.engine.workload import KINDS, SimulationRequest, Workload

REQUEST_FIELDS = frozenset({"workload", "hardware"})
WORKLOAD_PARSERS: dict[str, Callable[[Mapping[str, object]], Workload]] = {
    TRAIN: parse_train_workload,
    INFER: parse_infer_workload,
}


def workload_kind(workload: Mapping[str, object]) -> str:
    """The section's `kind`: "train" (the default) or "infer"."""
    return choice(workload, "kind", "workload", KINDS, TRAIN)


def parse_workload(workload: object) -> Workload:
    """A workload section on its own (rankings take their hardware build by build)."""
    if not isinstance(workload, Mapping):
        raise EngineInputError(field="workload", message="must be a JSON object")
    return WORKLOAD_PARSERS[workload_kind(workload)](workload)


def parse_request(body: object) -> SimulationRequest[Any]:
    """The typed request for `body`, the decoded JSON object, either kind."""
    if not isinstance(body, Mapping):
        raise EngineInputError(field="request", message="must be a JSON object")
    require_known_fields(body, REQUEST_FIELDS, "")
    workload = section(body, "workload")
    parsed = parse_workload(workload)
    hardware = parse_hardware(section(body, "hardware"), kind=parsed.kind)
    if isinstance(parsed, InferWorkload) and workload.get("placement") is None:
        parsed = replace(parsed, placement=default_placement(hardware))
    return SimulationRequest(
        workload=parsed,
        hardware=hardware,
        model_config_json=model_config_json(workload),
    )


def default_placement(hardware: Hardware) -> str:
    """Where a serving workload that names no placement runs: on the GPUs where there are
    some, else in the unified memory of a whole system, else on the CPU (the only place such
    hardware offers)."""
    if hardware.gpu is not None:
        return GPU
    return UNIFIED if hardware.unified is not None else CPU

"""One workload abstraction: a training job or a serving one, and the request that pairs it
with the one hardware description. The workload's kind selects the rules that simulate it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from simulator.engine.hardware import Hardware
from simulator.engine.serve.workload import INFER, InferWorkload
from simulator.engine.train.workload import TRAIN, TrainWorkload

KINDS = (TRAIN, INFER)
Workload = TrainWorkload | InferWorkload
W = TypeVar("W", TrainWorkload, InferWorkload)


@dataclass(frozen=True, slots=True, kw_only=True)
class SimulationRequest(Generic[W]):
    workload: W
    hardware: Hardware
    model_config_json: str | None = None  # an inline config.json, kept to echo it back


TrainRequest = SimulationRequest[TrainWorkload]
InferenceRequest = SimulationRequest[InferWorkload]

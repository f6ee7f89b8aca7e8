"""What a training simulation answers: the model's facts, the best and greedy splits, the
trade-off curve and, in refined mode, the best split's timeline."""

from __future__ import annotations

from dataclasses import dataclass

from simulator.engine.train.reference import SplitResult
from simulator.engine.train.timeline import Timeline
from simulator.engine.workload import TrainRequest

SECONDS_PER_HOUR = 3600.0


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelFacts:
    params_per_layer: int
    active_params_per_layer: int
    expert_fraction: float
    layer_gib: float
    lora_params_per_layer: int
    lora_bytes_per_layer: int
    num_layers: int
    layers_per_gpu: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainResult:
    request: TrainRequest
    facts: ModelFacts
    best: SplitResult
    greedy: SplitResult | None
    curve: tuple[SplitResult, ...]
    tie_rule: str
    refinements: tuple[str, ...] = ()
    timeline: Timeline | None = None

    @property
    def hours_for_tokens(self) -> float | None:
        tokens = self.request.workload.tokens
        return None if tokens is None else tokens / self.best.tokens_per_s / SECONDS_PER_HOUR

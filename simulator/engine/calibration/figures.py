"""Training figures published as a time per step or a rate of samples, read as the tokens
they hold.

A trainer's progress bar prints seconds per iteration ("9.04 s/it"), a README a time per
step or per thousand iterations, ms-swift samples per second. Such a figure is a speed in
other units when the row pins the tokens it holds: every sequence `seq_len` tokens long
(packed, or synthetic inputs of that length), and the sequences one step takes (the
micro-batch times gradient accumulation times the data-parallel replicas, or the global
batch as stated). The engine's tokens/s is then published in the row's unit:
seconds per step = tokens per step / tokens/s; samples/s = tokens/s / seq_len. A figure
whose tokens are not pinned (unpacked samples of varied lengths, an unstated gradient
accumulation, a step that may be a micro-step) is not modeled, with the reason.

A whole run's wall time ("total training time") holds model loading, quantization and
evaluation besides the steps, which the engine does not predict: not modeled either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from simulator.engine.calibration.corpus import MeasurementRow
from simulator.engine.calibration.not_modeled import NotModeled

# Seconds in one unit of a published time, by the unit's first word.
TIME_UNITS = {
    "ms": 1e-3,
    "s": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "second": 1.0,
    "seconds": 1.0,
    "min": 60.0,
    "mins": 60.0,
    "minute": 60.0,
    "minutes": 60.0,
    "h": 3600.0,
    "hr": 3600.0,
    "hrs": 3600.0,
    "hour": 3600.0,
    "hours": 3600.0,
}
TIME_UNIT = re.compile(r"^\s*([a-z]+)\b")
# What one published time covers: one step ("s/it", "Sec/step", metric "step time"), or a
# thousand of them ("Time 1k iterations").
PER_STEP = re.compile(r"/\s*(?:it|iter|step)\b|per\s+step\b|\bstep time\b|\btime per step\b")
PER_THOUSAND_STEPS = re.compile(r"\b1k\s+iter(?:ation)?s?\b|\b1,?000\s+iter(?:ation)?s?\b")
# Rates: samples (one sequence each) or steps per second.
SAMPLES_PER_S = re.compile(r"^\s*samples?\s*(?:/|per\s+)\s*(?:s|sec|second)\b")
STEPS_PER_S = re.compile(r"^\s*(?:it|iters?|steps?)\s*(?:/|per\s+)\s*(?:s|sec|second)\b")
# Parallelism that does not give each GPU its own replica of the batch: how many sequences
# one step takes is then the global batch the row states.
NOT_DATA_PARALLEL = re.compile(r"\btp\d*\b|tensor|sequence parallel|ulysses|megatron|pipeline")


@dataclass(frozen=True, slots=True)
class StepFigure:
    """A published figure that holds `tokens` per unit: a time (`seconds` per unit of the
    published figure: seconds per step, or per thousand steps) or a rate (samples or steps
    per second)."""

    tokens: float
    seconds: float
    is_time: bool

    def published(self, tokens_per_s: float) -> float:
        """The engine's `tokens_per_s` in the row's unit."""
        if self.is_time:
            return self.tokens / tokens_per_s / self.seconds
        return tokens_per_s / self.tokens


def is_step_figure(row: MeasurementRow) -> bool:
    """Whether the row's figure is a time per step (or per thousand steps) or a rate of
    samples or steps of a training run, which `step_figure` reads."""
    unit, metric = row.unit.lower(), row.metric.lower()
    if row.workload.get("phase") != "train":
        return False
    if SAMPLES_PER_S.match(unit) or STEPS_PER_S.match(unit):
        return True
    found = TIME_UNIT.match(unit)
    if found is None or found.group(1) not in TIME_UNITS:
        return False
    said = f"{unit} {metric}"
    return bool(PER_STEP.search(said) or PER_THOUSAND_STEPS.search(said))


def _stated_int(row: MeasurementRow, key: str) -> int | None:
    value = row.workload.get(key)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    return None


def _sequences_per_step(row: MeasurementRow, gpu_count: int, parallelism: str) -> int:
    """The sequences one step takes: the global batch as stated, or the micro-batch times
    the gradient accumulation (when the step is the optimizer step) times the replicas."""
    stated = _stated_int(row, "sequences_per_step")
    if stated is not None:
        return stated
    batch = _stated_int(row, "batch_size")
    if batch is None:
        raise NotModeled("a time per step whose micro-batch the row does not state")
    accum = _stated_int(row, "grad_accum")
    step = str(row.workload.get("step", "")).lower()
    if step == "micro-batch":
        accum = 1
    elif accum is None:
        raise NotModeled(
            "a time per step whose gradient accumulation the row does not state: the "
            "sequences one optimizer step takes are unknown"
        )
    elif accum > 1 and step != "optimizer":
        raise NotModeled(
            f"a time per step with gradient accumulation {accum}, and the source does not say "
            "whether its step is the optimizer step or one micro-batch"
        )
    stated_parallelism = str(row.workload.get("parallelism", "")).lower()
    if gpu_count > 1 and NOT_DATA_PARALLEL.search(stated_parallelism):
        raise NotModeled(
            "a time per step on GPUs that share one replica (tensor, sequence or pipeline "
            "parallel), and the row states no global batch: the sequences one step takes "
            "are unknown"
        )
    replicas = 1 if parallelism == "pipeline" else gpu_count
    return batch * accum * replicas


def step_figure(row: MeasurementRow, gpu_count: int, parallelism: str) -> StepFigure:
    """How the row's time per step or rate of samples reads as tokens; `NotModeled` with the
    reason when the row does not pin them."""
    seq_len = _stated_int(row, "seq_len")
    filled = row.workload.get("packed") is True or row.workload.get("fixed_length") is True
    if seq_len is None or not filled:
        raise NotModeled(
            f"{row.metric!r} in {row.unit} counts steps or samples, and the row does not say "
            "every sequence is seq_len tokens long (packed, or synthetic inputs of that "
            "length): the tokens one holds are unknown"
        )
    unit, metric = row.unit.lower(), row.metric.lower()
    if SAMPLES_PER_S.match(unit):
        return StepFigure(tokens=float(seq_len), seconds=1.0, is_time=False)
    tokens = float(seq_len * _sequences_per_step(row, gpu_count, parallelism))
    if STEPS_PER_S.match(unit):
        return StepFigure(tokens=tokens, seconds=1.0, is_time=False)
    found = TIME_UNIT.match(unit)
    assert found is not None  # is_step_figure checked it
    steps = 1000 if PER_THOUSAND_STEPS.search(f"{unit} {metric}") else 1
    return StepFigure(tokens=tokens * steps, seconds=TIME_UNITS[found.group(1)], is_time=True)

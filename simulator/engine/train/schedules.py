"""Pipeline schedules: how long a step of M micro-batches takes over G pipeline stages, given
one micro-batch's makespan on the slowest stage (its compute and weight streaming) and its
compute alone. Registered by name; rules read floats or NumPy arrays alike.

A schedule returns (step_s, bubble_s): the step, and the part of it charged to the pipeline's
fill and drain rather than to the micro-batches (reference-model.md §8's overhead leaves it
out).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

FILL_DRAIN = "fill_drain"
ONE_F_ONE_B = "1f1b"

Schedule = Callable[..., tuple[Any, Any]]
SCHEDULES: dict[str, Schedule] = {}


def register_schedule(name: str) -> Callable[[Schedule], Schedule]:
    def add(rule: Schedule) -> Schedule:
        if name in SCHEDULES:
            raise ValueError(f"schedule {name!r} is already registered")
        SCHEDULES[name] = rule
        return rule

    return add


@register_schedule(FILL_DRAIN)
def fill_drain(*, makespan_s: Any, compute_s: Any, micro_batches: Any, stages: Any) -> Any:
    """Reference §8 (GPipe-like): the M micro-batches back to back, then the fill and drain of
    the pipeline, (G − 1) micro-batches of compute, with no streaming hidden in it."""
    bubble = (stages - 1) * compute_s
    return micro_batches * makespan_s + bubble, bubble


@register_schedule(ONE_F_ONE_B)
def one_f_one_b(*, makespan_s: Any, compute_s: Any, micro_batches: Any, stages: Any) -> Any:
    """1F1B (Narayanan et al. 2021): weights keep streaming during warm-up and cool-down, so
    the bubble costs compute only: step = max(M·makespan, (M + G − 1)·compute)."""
    step = np.maximum(micro_batches * makespan_s, (micro_batches + stages - 1) * compute_s)
    return step, step - micro_batches * makespan_s


def pipeline_step(
    schedule: str, *, makespan_s: Any, compute_s: Any, micro_batches: Any, stages: Any
) -> tuple[Any, Any]:
    """(step_s, bubble_s) under the named schedule."""
    return SCHEDULES[schedule](
        makespan_s=makespan_s, compute_s=compute_s, micro_batches=micro_batches, stages=stages
    )

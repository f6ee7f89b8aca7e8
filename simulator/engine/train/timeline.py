"""Per-layer event timeline of one micro-batch on one GPU (refined mode), returned as data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True, kw_only=True)
class LayerEvent:
    """One layer in one phase. Transfer times are None for a resident or cached-on-GPU layer."""

    layer: int
    phase: str  # "forward" or "backward" (backward includes the checkpoint recompute)
    resident: bool
    transfer_start_s: float | None
    transfer_end_s: float | None
    compute_start_s: float
    compute_end_s: float

    def to_json(self) -> dict[str, Any]:
        return {
            "layer": int(self.layer),
            "phase": self.phase,
            "resident": bool(self.resident),
            "transfer_start_s": _opt(self.transfer_start_s),
            "transfer_end_s": _opt(self.transfer_end_s),
            "compute_start_s": float(self.compute_start_s),
            "compute_end_s": float(self.compute_end_s),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Timeline:
    events: tuple[LayerEvent, ...]
    micro_batch_s: float  # makespan of forward + backward of one micro-batch on one GPU
    compute_busy_s: float
    transfer_busy_s: float

    @property
    def stall_s(self) -> float:
        """Time the GPU waits for weights: makespan minus compute."""
        return self.micro_batch_s - self.compute_busy_s

    def to_json(self) -> dict[str, Any]:
        return {
            "micro_batch_s": float(self.micro_batch_s),
            "compute_busy_s": float(self.compute_busy_s),
            "transfer_busy_s": float(self.transfer_busy_s),
            "stall_s": float(self.stall_s),
            "events": [event.to_json() for event in self.events],
        }


def _opt(value: float | None) -> float | None:
    return None if value is None else float(value)

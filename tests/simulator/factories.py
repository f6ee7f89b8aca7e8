"""factory-boy factories for the simulator's models."""

from __future__ import annotations

from factory.declarations import Sequence
from factory.django import DjangoModelFactory

from simulator.models import SimulatedBuild


class SimulatedBuildFactory(DjangoModelFactory[SimulatedBuild]):
    """One hardware's physics under one workload: a 1x RTX 4090 build that can run it."""

    engine_version = "test"
    workload_hash = "w" * 64
    hardware_signature = Sequence(lambda n: f"{n:064x}")
    hardware = {"gpu": {"name": "RTX 4090", "vram_gb": 24}, "gpu_count": 1, "ram_gb": 64}
    physics = {"gpu_name": "RTX 4090", "tokens_per_s": 277.0, "bottleneck": "compute"}
    reason = ""

    class Meta:
        model = SimulatedBuild

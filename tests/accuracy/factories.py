"""factory-boy factory of Measurement: by default an accepted corpus-like row the engine
models (corpus row H013: Llama 3 8B Q4_K_M decode on one RTX 4090 with llama.cpp), not
yet predicted."""

from __future__ import annotations

from factory.declarations import Sequence
from factory.django import DjangoModelFactory

from simulator.models import Measurement, MeasurementOrigin, MeasurementStatus


class MeasurementFactory(DjangoModelFactory[Measurement]):
    row_id = Sequence(lambda n: f"T{n:04d}")
    category = "inference_gpu_dense"
    engine = "llama.cpp CUDA (full offload; multi-GPU = default layer split)"
    hardware = {"gpu": "NVIDIA GeForce RTX 4090 24GB", "gpu_count": 1}
    model = "Llama 3 8B"
    quant = "Q4_K_M"
    workload = {"batch": 1, "phase": "decode", "test": "tg512"}
    metric = "throughput"
    value = 130.58
    unit = "tok/s"
    source = {"kind": "issue", "url": "https://example.org/measurement"}
    source_url = "https://example.org/measurement"
    origin = MeasurementOrigin.CORPUS
    status = MeasurementStatus.ACCEPTED

    class Meta:
        model = Measurement

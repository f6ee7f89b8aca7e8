"""A corpus row for tests: a llama.cpp CUDA decode of Llama 3.1 8B Q4_0 on one RTX 4090, with
any field replaced."""

from typing import Any

from simulator.engine.calibration.corpus import MeasurementRow, row_from_json


def corpus_row(**changes: Any) -> MeasurementRow:
    body = {
        "id": "T1", "category": "inference_gpu_dense", "engine": "llama.cpp CUDA",
        "hardware": {"gpu": "RTX 4090", "gpu_count": 1}, "model": "Llama 3.1 8B",
        "quant": "Q4_0", "workload": {"phase": "decode", "test": "tg128"},
        "metric": "decode throughput", "value": 100.0, "unit": "tok/s",
        "source": {"url": "https://example.org/x"},
    }  # fmt: skip
    return row_from_json({**body, **changes}, "rows[0]")

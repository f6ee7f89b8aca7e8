"""Simulation engine: training (streaming QLoRA) and serving of LLMs on a hardware
description, as pure functions over frozen data. Imports nothing from Django.

This module's exports are the engine's public API: the service layer, the pages and the
commands import from here and nowhere deeper. Layout:

- `units.py`, `devices.py` (+ `data/devices.json`): units and the one device table;
- `model/`: a model's shape (config.json), its layers, LoRA adapters, the shipped models;
- `formats/`: how weights are stored (training formats, serving weight types);
- `train/`: training rules (reference and refined modes, the vectorised batch paths);
- `serve/`: serving rules (placement, KV cache, decode, prefill, the placement search);
- `calibration/`: efficiency constants per runtime and device class, the measurement
  corpus, the fit and the accuracy report;
- `io/`: requests in (parsing, validation) and results out (JSON, text reports);
- `checks/`: the seed's assumption checks and the reference-vs-refined comparison;
- `simulate.py`: one request → its result, whatever the workload.
"""

from simulator.engine.calibration.corpus import read_corpus_file, row_from_json, rows_from_corpus
from simulator.engine.calibration.efficiency import efficiency_to_json, load_efficiency
from simulator.engine.calibration.fit import fit_shipped
from simulator.engine.calibration.predict import Prediction, predict_row
from simulator.engine.calibration.report import (
    MIN_ROWS_FOR_CATEGORY_BAND,
    AccuracyReport,
    CategoryStats,
    accuracy_report,
    band_category,
    error_band,
)
from simulator.engine.checks.validate import run_checks
from simulator.engine.devices import Cpu, Device, Gpu, System, devices, find_device, require_device
from simulator.engine.errors import EngineInputError
from simulator.engine.formats.training import QUANT_FORMATS, layer_gib, quant_format
from simulator.engine.formats.weights import MIX_SEPARATOR, PARTS, WEIGHT_TYPES
from simulator.engine.io.report import format_report
from simulator.engine.io.serve_request import (
    INFER,
    MAX_BATCH,
    MAX_CONTEXT,
    MAX_CORES,
    MAX_LAYER,
    parse_any_request,
    parse_infer_request,
)
from simulator.engine.io.serve_result import format_inference_report, inference_request_to_json
from simulator.engine.io.train_request import (
    MAX_GPU_COUNT,
    MAX_LORA_RANK,
    MAX_SEQ_LEN,
    MAX_TOKENS,
    SimulationRequest,
    parse_hardware,
    parse_request,
    parse_workload,
    require_known_fields,
    workload_model,
)
from simulator.engine.io.train_result import request_to_json, result_to_json
from simulator.engine.io.workload import workload_to_json
from simulator.engine.model.layers import reference_layer
from simulator.engine.model.registry import load_model, model_slugs
from simulator.engine.serve.inference import InferenceRequest, InferenceResult
from simulator.engine.serve.kv_cache import KV_CACHE_BYTES_PER_ELEMENT
from simulator.engine.serve.placement import PLACEMENTS
from simulator.engine.serve.placement_search import AUTO, placement_search
from simulator.engine.simulate import simulate
from simulator.engine.train.batch import best_splits
from simulator.engine.train.hardware import GpuSpec, Hardware, default_pinned_gib
from simulator.engine.train.reference import (
    TIE_TOLERANCE,
    SplitResult,
    optimal_split,
    reference_costs,
    reference_curve,
)
from simulator.engine.train.sweep import HardwareBatch, sweep
from simulator.engine.train.workload import TrainWorkload
from simulator.engine.units import GIB, pcie_gbps
from simulator.engine.version import ENGINE_PACKAGE, ENGINE_VERSION

__all__ = [
    "AUTO", "ENGINE_PACKAGE", "ENGINE_VERSION", "GIB", "INFER", "KV_CACHE_BYTES_PER_ELEMENT",
    "MAX_BATCH", "MAX_CONTEXT", "MAX_CORES", "MAX_GPU_COUNT", "MAX_LAYER", "MAX_LORA_RANK",
    "MAX_SEQ_LEN", "MAX_TOKENS", "MIN_ROWS_FOR_CATEGORY_BAND", "MIX_SEPARATOR", "PARTS",
    "PLACEMENTS", "QUANT_FORMATS", "TIE_TOLERANCE", "WEIGHT_TYPES", "AccuracyReport",
    "CategoryStats", "Cpu", "Device", "EngineInputError", "Gpu", "GpuSpec", "Hardware",
    "HardwareBatch", "InferenceRequest", "InferenceResult", "Prediction", "SimulationRequest",
    "SplitResult", "System", "TrainWorkload", "accuracy_report", "band_category", "best_splits",
    "default_pinned_gib", "devices", "efficiency_to_json", "error_band", "find_device",
    "fit_shipped", "format_inference_report", "format_report", "inference_request_to_json",
    "layer_gib", "load_efficiency", "load_model", "model_slugs", "optimal_split",
    "parse_any_request", "parse_hardware", "parse_infer_request", "parse_request",
    "parse_workload", "pcie_gbps", "placement_search", "predict_row", "quant_format",
    "read_corpus_file", "reference_costs", "reference_curve", "reference_layer",
    "request_to_json", "require_device", "require_known_fields", "result_to_json",
    "row_from_json", "rows_from_corpus", "run_checks", "simulate", "sweep", "workload_model",
    "workload_to_json",
]  # fmt: skip

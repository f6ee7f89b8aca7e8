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

from simulator.engine.calibration.corpus import (
    HOLDOUT_PATH,
    read_corpus_file,
    row_from_json,
    rows_from_corpus,
    shipped_corpus_document,
)
from simulator.engine.calibration.crossval import (
    CrossValidation,
    cross_validated_predictions,
    crossval_to_json,
    load_crossval,
)
from simulator.engine.calibration.efficiency import (
    DEFAULT_RUNTIME,
    efficiency_to_json,
    load_efficiency,
)
from simulator.engine.calibration.fit import fit_shipped
from simulator.engine.calibration.modes import ModeComparison, shipped_mode_comparison
from simulator.engine.calibration.predict import Prediction, predict_all, predict_row
from simulator.engine.calibration.report import (
    CROSS_VALIDATED_TARGETS,
    IN_SAMPLE_TARGETS,
    MIN_ROWS_FOR_CATEGORY_BAND,
    AccuracyReport,
    CategoryStats,
    Targets,
    accuracy_report,
    band_category,
    band_range,
    error_band,
)
from simulator.engine.checks.validate import run_checks
from simulator.engine.devices import Cpu, Device, Gpu, System, devices, find_device, require_device
from simulator.engine.errors import EngineInputError
from simulator.engine.formats.training import QUANT_FORMATS, layer_gib, quant_format
from simulator.engine.formats.weights import MIX_SEPARATOR, PARTS, WEIGHT_TYPES
from simulator.engine.hardware import (
    DEFAULT_GPU_MAKER,
    DEFAULT_SYSTEM_MAKER,
    CpuSpec,
    GpuSpec,
    Hardware,
    UnifiedSpec,
    default_pinned_gib,
)
from simulator.engine.io.codec import (
    format_report,
    normalize_workload,
    request_to_json,
    result_to_json,
    workload_to_json,
)
from simulator.engine.io.fields import json_path, require_known_fields
from simulator.engine.io.hardware import MAX_CORES, MAX_GPU_COUNT, MAX_MACHINES, parse_hardware
from simulator.engine.io.model import workload_model
from simulator.engine.io.request import parse_request, parse_workload
from simulator.engine.io.serve_request import (
    MAX_BATCH,
    MAX_CONTEXT,
    MAX_LAYER,
    MAX_REQUEST_RATE_PER_S,
    MAX_REQUESTS,
)
from simulator.engine.io.train_request import MAX_LORA_RANK, MAX_SEQ_LEN, MAX_TOKENS, TRAIN_MODES
from simulator.engine.model.layers import reference_layer
from simulator.engine.model.registry import load_model, model_slugs
from simulator.engine.serve.batch import best_placements
from simulator.engine.serve.context_sweep import (
    BATCH_LEVELS,
    CONTENT_KINDS,
    BatchPoint,
    ContextSweep,
    DepthPoint,
    batch_sweep,
    context_sweep,
    placement_contents,
    sweep_depths,
)
from simulator.engine.serve.hardware import (
    GPU,
    UNIFIED,
    fitted_bandwidth_efficiency,
    streamed_bandwidth_efficiency,
)
from simulator.engine.serve.inference import CapacityError, InferenceResult
from simulator.engine.serve.kv_cache import KV_CACHE_BYTES_PER_ELEMENT
from simulator.engine.serve.placement import PLACEMENTS
from simulator.engine.serve.placement_search import AUTO, PlacementSearch, placement_search
from simulator.engine.serve.workload import INFER, InferWorkload
from simulator.engine.simulate import simulate
from simulator.engine.train.batch import best_splits
from simulator.engine.train.reference import (
    TIE_TOLERANCE,
    SplitResult,
    optimal_split,
    reference_costs,
    reference_curve,
)
from simulator.engine.train.refined import REFINEMENT_EFFECTS
from simulator.engine.train.result import TrainResult
from simulator.engine.train.sweep import HardwareBatch, sweep
from simulator.engine.train.workload import (
    DEFAULT_MODE,
    MODE_REFERENCE,
    MODE_REFINED,
    TRAIN,
    TrainWorkload,
)
from simulator.engine.units import GIB, pcie_gbps
from simulator.engine.version import ENGINE_PACKAGE, ENGINE_VERSION
from simulator.engine.work_limit import (
    WorkLimitError,
    check_cpu_limit,
    cpu_limit,
    cpu_time_left_s,
)
from simulator.engine.workload import (
    KINDS,
    InferenceRequest,
    SimulationRequest,
    TrainRequest,
    Workload,
)

__all__ = [
    "AUTO",
    "BATCH_LEVELS",
    "CONTENT_KINDS",
    "CROSS_VALIDATED_TARGETS",
    "DEFAULT_GPU_MAKER",
    "DEFAULT_MODE",
    "DEFAULT_RUNTIME",
    "DEFAULT_SYSTEM_MAKER",
    "ENGINE_PACKAGE",
    "ENGINE_VERSION",
    "GIB",
    "GPU",
    "HOLDOUT_PATH",
    "INFER",
    "IN_SAMPLE_TARGETS",
    "KINDS",
    "KV_CACHE_BYTES_PER_ELEMENT",
    "MAX_BATCH",
    "MAX_CONTEXT",
    "MAX_CORES",
    "MAX_GPU_COUNT",
    "MAX_LAYER",
    "MAX_LORA_RANK",
    "MAX_MACHINES",
    "MAX_REQUESTS",
    "MAX_REQUEST_RATE_PER_S",
    "MAX_SEQ_LEN",
    "MAX_TOKENS",
    "MIN_ROWS_FOR_CATEGORY_BAND",
    "MIX_SEPARATOR",
    "MODE_REFERENCE",
    "MODE_REFINED",
    "PARTS",
    "PLACEMENTS",
    "QUANT_FORMATS",
    "REFINEMENT_EFFECTS",
    "TIE_TOLERANCE",
    "TRAIN",
    "TRAIN_MODES",
    "UNIFIED",
    "WEIGHT_TYPES",
    "AccuracyReport",
    "BatchPoint",
    "CapacityError",
    "CategoryStats",
    "ContextSweep",
    "Cpu",
    "CpuSpec",
    "CrossValidation",
    "DepthPoint",
    "Device",
    "EngineInputError",
    "Gpu",
    "GpuSpec",
    "Hardware",
    "HardwareBatch",
    "InferWorkload",
    "InferenceRequest",
    "InferenceResult",
    "ModeComparison",
    "PlacementSearch",
    "Prediction",
    "SimulationRequest",
    "SplitResult",
    "System",
    "Targets",
    "TrainRequest",
    "TrainResult",
    "TrainWorkload",
    "UnifiedSpec",
    "WorkLimitError",
    "Workload",
    "accuracy_report",
    "band_category",
    "band_range",
    "batch_sweep",
    "best_placements",
    "best_splits",
    "check_cpu_limit",
    "context_sweep",
    "cpu_limit",
    "cpu_time_left_s",
    "cross_validated_predictions",
    "crossval_to_json",
    "default_pinned_gib",
    "devices",
    "efficiency_to_json",
    "error_band",
    "find_device",
    "fit_shipped",
    "fitted_bandwidth_efficiency",
    "format_report",
    "json_path",
    "layer_gib",
    "load_crossval",
    "load_efficiency",
    "load_model",
    "model_slugs",
    "normalize_workload",
    "optimal_split",
    "parse_hardware",
    "parse_request",
    "parse_workload",
    "pcie_gbps",
    "placement_contents",
    "placement_search",
    "predict_all",
    "predict_row",
    "quant_format",
    "read_corpus_file",
    "reference_costs",
    "reference_curve",
    "reference_layer",
    "request_to_json",
    "require_device",
    "require_known_fields",
    "result_to_json",
    "row_from_json",
    "rows_from_corpus",
    "run_checks",
    "shipped_corpus_document",
    "shipped_mode_comparison",
    "simulate",
    "streamed_bandwidth_efficiency",
    "sweep",
    "sweep_depths",
    "workload_model",
    "workload_to_json",
]  # fmt: skip

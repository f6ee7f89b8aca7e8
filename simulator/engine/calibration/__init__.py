"""Accuracy you can check (issue 9): the engine's predictions against published measurements.

Pure functions over frozen dataclasses, no Django. `load_corpus()` reads the shipped corpus,
`predict_all(rows)` predicts every row with the engine paths the rankings use (or says why a
row is not modeled), `accuracy_report(predictions)` computes the statistics and issue 9's
targets, and `error_band(band_category(...), report)` is the band a planner figure carries.
"""

from simulator.engine.calibration.corpus import (
    CorpusInfo,
    MeasurementRow,
    load_corpus,
    load_seed_rows,
    rows_from_corpus,
)
from simulator.engine.calibration.efficiency import (
    Efficiency,
    RuntimeConstants,
    efficiency_from_json,
    efficiency_to_json,
    load_efficiency,
)
from simulator.engine.calibration.fit import fit_efficiency
from simulator.engine.calibration.predict import Prediction, predict_all, predict_row
from simulator.engine.calibration.report import (
    AccuracyReport,
    CategoryStats,
    accuracy_report,
    band_category,
    error_band,
)

__all__ = [
    "AccuracyReport",
    "CategoryStats",
    "CorpusInfo",
    "Efficiency",
    "MeasurementRow",
    "Prediction",
    "RuntimeConstants",
    "accuracy_report",
    "band_category",
    "efficiency_from_json",
    "efficiency_to_json",
    "error_band",
    "fit_efficiency",
    "load_corpus",
    "load_efficiency",
    "load_seed_rows",
    "predict_all",
    "predict_row",
    "rows_from_corpus",
]

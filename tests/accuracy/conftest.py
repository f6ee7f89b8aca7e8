"""Fixtures of the accuracy tests: the shipped corpus loaded and predicted, and the engine's
own report over the same rows to compare against."""

from __future__ import annotations

import pytest

from simulator.engine import CROSS_VALIDATED_TARGETS, cross_validated_predictions, load_crossval
from simulator.engine.calibration import (
    AccuracyReport,
    accuracy_report,
    load_corpus,
    predict_all,
)
from simulator.services.measurements import measurements_load

# The page tests need the shipped catalog and rankings that queue nothing.
from tests.frontend.conftest import catalog, no_queue

__all__ = ["catalog", "no_queue"]


@pytest.fixture
def corpus(db: None) -> int:
    """The shipped corpus as accepted, predicted rows (what bin/run loads)."""
    return measurements_load()


@pytest.fixture(scope="session")
def engine_report() -> AccuracyReport:
    """The engine's cross-validated report on the shipped corpus (the headline), computed
    without Django."""
    _, rows = load_corpus()
    predictions = cross_validated_predictions(rows, load_crossval())
    return accuracy_report(predictions, CROSS_VALIDATED_TARGETS)


@pytest.fixture(scope="session")
def in_sample_report() -> AccuracyReport:
    """The engine's in-sample report (constants fitted on the rows scored)."""
    _, rows = load_corpus()
    return accuracy_report(predict_all(rows))

"""Fixtures of the accuracy tests: the shipped corpus loaded and predicted, and the engine's
own report over the same rows to compare against."""

from __future__ import annotations

import pytest

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
    """The engine's report on the shipped corpus, computed without Django."""
    _, rows = load_corpus()
    return accuracy_report(predict_all(rows))

"""The fit minimizes the pseudo-Huber loss of the log errors (fit._log_error_loss): beyond a few
per cent it is the absolute log error, so one row far off (a broken build, a misread figure)
moves the constants no more than any other row that reads wrong (docs/accuracy.md, "What
moved in engine 1.22.0"); within SMOOTHING it is smooth, so coordinate descent does not stop
at a corner ("What moved in engine 1.24.0")."""

import math
from dataclasses import replace

import pytest

from simulator.engine.calibration.corpus import MeasurementRow
from simulator.engine.calibration.efficiency import load_efficiency
from simulator.engine.calibration.fit import (
    NETWORK_HOP_GRID_S,
    SMOOTHING,
    _fit_global,
    _log_error_loss,
)
from simulator.engine.calibration.predict import predicted_value
from simulator.engine.calibration.setups import Setup, row_setup
from tests.simulator.engine.accuracy.test_network_rows import STRIX_PAIR, _rpc_row

TRUE_HOP = NETWORK_HOP_GRID_S[30]  # 3 ms


def _rows_measured_at(
    hop_s: float, tests: list[tuple[int, str]], factor: float = 1.0
) -> list[tuple[MeasurementRow, Setup]]:
    """Rows of several machines measured as the engine predicts them at `hop_s`, × factor."""
    table = replace(load_efficiency(), network_hop_s=hop_s)
    pairs = []
    for machines, test in tests:
        hardware = dict(STRIX_PAIR, system=f"{machines} x Framework Desktop (128GB)")
        phase = "decode" if test.startswith("tg") else "prefill"
        row = _rpc_row(hardware=hardware, workload={"phase": phase, "test": test, "batch": 1})
        setup = row_setup(row)
        measured, _ = predicted_value(setup, table, row.unit)
        pairs.append((replace(row, value=measured * factor), setup))
    return pairs


def test_the_loss_is_the_sum_of_smoothed_absolute_log_errors() -> None:
    pairs = _rows_measured_at(TRUE_HOP, [(2, "tg128"), (3, "tg128")], factor=2.0)
    at_truth = replace(load_efficiency(), network_hop_s=TRUE_HOP)
    # every row reads at half its measured figure: e = log(1/2) each
    each = math.sqrt(math.log(2.0) ** 2 + SMOOTHING**2) - SMOOTHING
    assert _log_error_loss(at_truth, pairs) == pytest.approx(2 * each)
    # far beyond SMOOTHING the loss is |e| less a constant
    assert each == pytest.approx(math.log(2.0) - SMOOTHING, abs=0.002)


def test_near_zero_the_loss_is_quadratic() -> None:
    """A row 1 % off costs e²/2δ, not |e|: no corner where the row reads right."""
    pairs = _rows_measured_at(TRUE_HOP, [(2, "tg128")], factor=1.01)
    at_truth = replace(load_efficiency(), network_hop_s=TRUE_HOP)
    error = math.log(1.01)
    assert _log_error_loss(at_truth, pairs) == pytest.approx(error**2 / (2 * SMOOTHING), rel=0.03)


def test_one_row_far_off_moves_the_fitted_constant_no_more_than_any_row_off() -> None:
    """Four rows measured at a 3 ms hop and one measured at a third (or a tenth) of its
    speed: the fit lands on the same hop whichever (beyond SMOOTHING a row pulls with the
    same force however far off it is), and the four clean rows read within 2 × SMOOTHING of
    their figures (the outlier's pull of 1 against the clean decodes' e / SMOOTHING each).
    Squared log errors would trade the four rows' fit for the outlier's, the more the
    farther it is."""
    clean = _rows_measured_at(TRUE_HOP, [(2, "tg128"), (3, "tg128"), (2, "pp512"), (3, "pp512")])
    start = replace(load_efficiency(), network_hop_s=0.0)
    fits = []
    for factor in (1 / 3, 1 / 10):
        outlier = _rows_measured_at(TRUE_HOP, [(3, "tg128")], factor=factor)
        fits.append(_fit_global(start, "network_hop_s", [*clean, *outlier]))
    assert fits[0].network_hop_s == fits[1].network_hop_s
    for fitted in fits:
        for row, setup in clean:
            predicted, _ = predicted_value(setup, fitted, row.unit)
            assert abs(math.log(predicted / row.value)) < 2 * SMOOTHING

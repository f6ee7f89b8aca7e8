"""The fit minimizes absolute log errors (fit._log_error_loss): the constants that make the
rows' median error zero, so one row far off (a broken build, a misread figure) moves them no
more than any other row that reads wrong (docs/accuracy.md, "What moved in engine 1.22.0")."""

import math
from dataclasses import replace

import pytest

from simulator.engine.calibration.corpus import MeasurementRow
from simulator.engine.calibration.efficiency import load_efficiency
from simulator.engine.calibration.fit import NETWORK_HOP_GRID_S, _fit_global, _log_error_loss
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


def test_the_loss_is_the_sum_of_absolute_log_errors() -> None:
    pairs = _rows_measured_at(TRUE_HOP, [(2, "tg128"), (3, "tg128")], factor=2.0)
    at_truth = replace(load_efficiency(), network_hop_s=TRUE_HOP)
    # every row reads at half its measured figure: |log(1/2)| each
    assert _log_error_loss(at_truth, pairs) == pytest.approx(2 * math.log(2.0))


def test_one_row_three_times_off_does_not_move_the_fitted_constant() -> None:
    """Four rows measured at a 3 ms hop and one measured at a third of its speed: the fit
    keeps 3 ms. Squared log errors would trade the four rows' fit for the outlier's."""
    clean = _rows_measured_at(TRUE_HOP, [(2, "tg128"), (3, "tg128"), (2, "pp512"), (3, "pp512")])
    outlier = _rows_measured_at(TRUE_HOP, [(3, "tg128")], factor=1 / 3)
    start = replace(load_efficiency(), network_hop_s=0.0)
    fitted = _fit_global(start, "network_hop_s", [*clean, *outlier])
    assert fitted.network_hop_s == pytest.approx(TRUE_HOP)

"""What the fit has already worked out, kept per process: each row's setup, and each setup's
prediction at the constants it reads.

A fit predicts every row at hundreds of tables, and a cross-validation runs the whole fit once
per source (fit.py, crossval.py): most of those predictions repeat, within one fit (rounds
that revisit a grid value) and across held-out fits (a key whose rows the held-out source
does not touch walks the same grid). A prediction depends on a table only through the
constants its setup reads (`_constants_read`), so it is computed once per (setup, unit,
those constants). A setup is worked out once per row, and found again by the row's id and
full text (`repr`), so that a changed row is a new setup. The fit's result does not depend
on the memo (tests/simulator/engine/accuracy/test_fit_memo.py compares it on and off).
"""

from __future__ import annotations

from typing import Any

from simulator.engine.calibration.corpus import MeasurementRow
from simulator.engine.calibration.efficiency import PRIOR_EFFICIENCY, TRAIN, Efficiency
from simulator.engine.calibration.not_modeled import NotModeled
from simulator.engine.calibration.predict import predicted_value
from simulator.engine.calibration.setups import InferSetup, Setup, TrainSetup, row_setup
from simulator.engine.errors import EngineInputError
from simulator.engine.serve.hardware import CPU, GPU, UNIFIED
from simulator.engine.serve.runtimes import default_runtime

# Entries kept before the memo starts again: a full fit of the shipped corpus makes about
# 10^6 predictions, of which a few hundred thousand distinct (about 0.3 kB each).
MEMO_LIMIT = 2_000_000

_setups: dict[str, tuple[str, Setup | None]] = {}
# (id(setup), unit, constants) → (setup, value): the setup kept beside its value so that an
# id reused by another object after the first is freed never finds the first's value.
_values: dict[tuple[Any, ...], tuple[Setup, float | None]] = {}
_enabled = True
# The table last read and its constants by runtime (the table kept, so its id is not reused).
_last_table: list[Any] = [None, {}]


def use_memo(enabled: bool) -> None:
    """Turn the memo on or off (off: every prediction computed, for comparison)."""
    global _enabled
    _enabled = enabled
    clear()


def clear() -> None:
    _setups.clear()
    _values.clear()
    _last_table[:] = [None, {}]


def resolved_setup(row: MeasurementRow) -> Setup | None:
    """The row's setup when the engine predicts it at the prior constants, else None."""
    text = repr(row)
    known = _setups.get(row.id) if _enabled else None
    if known is not None and known[0] == text:
        return known[1]
    setup: Setup | None
    try:
        setup = row_setup(row)
        predicted_value(setup, PRIOR_EFFICIENCY)
    except (NotModeled, EngineInputError):
        setup = None
    if _enabled:
        if len(_setups) >= MEMO_LIMIT:
            clear()
        _setups[row.id] = (text, setup)
    return setup


def _constants_read(setup: Setup, table: Efficiency) -> tuple[Any, ...]:
    """Everything in `table` the setup's prediction reads: a training run its runtime's
    utilization (predict._train_bound); an inference run the routing pool fraction, the
    network hop, and its runtime's constants on each device class
    (serve/inference.devices_for takes them through Efficiency.device_class, which folds in
    the pooled m½ and the MoE layer extra)."""
    if isinstance(setup, TrainSetup):
        return (table.get(setup.runtime, TRAIN).flops_efficiency,)
    assert isinstance(setup, InferSetup)
    request = setup.request
    runtime = request.workload.runtime or default_runtime(request.hardware)
    if _last_table[0] is not table:  # a loss sums one table over many rows
        _last_table[:] = [table, {}]
    read: dict[str, tuple[Any, ...]] = _last_table[1]
    if runtime not in read:
        classes = tuple(table.device_class(runtime, where) for where in (GPU, CPU, UNIFIED))
        globals_read = (table.routing_pool_fraction, table.network_hop_s)
        read[runtime] = (*globals_read, runtime, *classes)
    return read[runtime]


def prediction(setup: Setup, table: Efficiency, unit: str) -> float | None:
    """`predicted_value(setup, table, unit)`'s value, None where the engine rejects the
    setup at these constants (the fit's loss is then infinite)."""
    key: tuple[Any, ...] | None = None
    if _enabled:
        key = (id(setup), unit, _constants_read(setup, table))
        known = _values.get(key)
        if known is not None and known[0] is setup:
            return known[1]
    value: float | None
    try:
        value, _ = predicted_value(setup, table, unit)
    except EngineInputError:
        value = None
    if key is not None:
        if len(_values) >= MEMO_LIMIT:
            _values.clear()
        _values[key] = (setup, value)
    return value

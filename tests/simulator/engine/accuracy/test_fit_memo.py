"""The fit's prediction memo (calibration/memo.py) changes how fast the fit runs, never what
it finds: the same tables with it on and off, a row changed under the same id worked out
again, and a prediction at other constants computed, not recalled."""

from dataclasses import replace

import pytest

from simulator.engine.calibration import fit_efficiency, load_corpus, load_efficiency, memo
from simulator.engine.calibration.corpus import source_of
from simulator.engine.calibration.crossval import fit_without
from simulator.engine.calibration.predict import predicted_value
from simulator.engine.calibration.setups import InferSetup
from simulator.engine.serve.hardware import GPU

_, ROWS = load_corpus()
# Two sources' rows: llama.cpp prompts and decodes on one RTX 4090 (H001–H005 and their
# source's siblings) and the next source's, so that leaving one out changes the fit.
FIRST, SECOND = (
    source_of(ROWS[0]),
    next(source_of(r) for r in ROWS if source_of(r) != source_of(ROWS[0])),
)
FEW = tuple(row for row in ROWS if source_of(row) in (FIRST, SECOND))


@pytest.fixture
def memo_off():
    memo.use_memo(False)
    yield
    memo.use_memo(True)


def _full_and_held_out() -> tuple[object, object]:
    return fit_efficiency(FEW), fit_without(FEW, FIRST)


def test_the_fits_are_the_same_with_the_memo_on_and_off(memo_off):
    without = _full_and_held_out()
    memo.use_memo(True)
    with_memo = _full_and_held_out()
    again = _full_and_held_out()  # every prediction now recalled
    assert with_memo == without
    assert again == without
    assert without[0] != without[1]  # the held-out fit is a fit of its own


def test_a_row_changed_under_the_same_id_is_worked_out_again():
    memo.use_memo(True)
    row = next(r for r in FEW if r.workload.get("phase") == "prefill")
    first = memo.resolved_setup(row)
    longer = replace(row, workload={**row.workload, "prompt_tokens": 4096, "test": "pp4096"})
    second = memo.resolved_setup(longer)
    assert isinstance(first, InferSetup)
    assert isinstance(second, InferSetup)
    assert memo.resolved_setup(row) is not second
    assert second.request.workload.prompt_tokens == 4096
    assert first.request.workload.prompt_tokens != 4096


def test_a_prediction_at_other_constants_is_computed_not_recalled():
    memo.use_memo(True)
    row = next(r for r in FEW if r.workload.get("phase") == "decode")
    setup = memo.resolved_setup(row)
    assert isinstance(setup, InferSetup)
    table = load_efficiency()
    runtime = setup.request.workload.runtime or "llama.cpp"
    entry = table.get(runtime, GPU)
    slower = table.replace(replace(entry, bandwidth_efficiency=entry.bandwidth_efficiency / 2))
    at_fit = memo.prediction(setup, table, row.unit)
    at_half = memo.prediction(setup, slower, row.unit)
    assert at_fit == predicted_value(setup, table, row.unit)[0]
    assert at_half == predicted_value(setup, slower, row.unit)[0]
    assert at_half < at_fit

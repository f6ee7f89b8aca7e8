"""Leave-one-source-out cross-validation: each row scored with constants its source never
entered (simulator/engine/calibration/crossval.py)."""

import pytest

from simulator.engine.calibration import (
    efficiency_to_json,
    load_corpus,
    load_efficiency,
    load_seed_rows,
)
from simulator.engine.calibration.corpus import source_of
from simulator.engine.calibration.crossval import (
    cross_validated_predictions,
    crossval_from_json,
    crossval_to_json,
    fit_without,
    load_crossval,
    sources,
)
from simulator.engine.calibration.efficiency import TORCHTUNE, TRAIN, prior_constants
from simulator.engine.calibration.fit import grid_minimum
from simulator.engine.calibration.predict import predict_row
from simulator.engine.errors import EngineInputError

_, ROWS = load_corpus()
SHIPPED = load_crossval()
TORCHTUNE_README = next(s for s in sources(ROWS) if "pytorch/torchtune" in s)


def test_every_source_of_the_corpus_has_a_held_out_table():
    assert set(SHIPPED.held_out) == set(sources(ROWS))
    assert len(SHIPPED.held_out) >= 19


@pytest.mark.parametrize("source", sorted(sources(ROWS)))
def test_no_held_out_constant_was_fitted_on_a_row_of_its_source(source):
    mine = {row.id for row in ROWS if source_of(row) == source}
    table = SHIPPED.held_out[source]
    for entry in table.entries:
        assert not mine & set(entry.fitted_on), (entry.runtime, entry.device_class)
    assert not mine & set(table.routing_pool_fitted_on)


def test_the_shipped_held_out_table_is_a_fresh_fit_without_the_source():
    """A sample of the shipped file re-derived, a source whose absence moves the constants
    (`python -m simulator.engine.calibration.fit --check` compares every source; that the
    full fit is what ships is tests/accuracy/test_accuracy_command.py's, through the
    command)."""
    fresh = efficiency_to_json(fit_without(ROWS, TORCHTUNE_README, load_seed_rows()))
    shipped = efficiency_to_json(SHIPPED.held_out[TORCHTUNE_README])
    full = efficiency_to_json(SHIPPED.full)
    assert {**shipped, "corpus_assembled": ""} != {**full, "corpus_assembled": ""}
    assert {**fresh, "corpus_assembled": ""} == {**shipped, "corpus_assembled": ""}


def test_a_left_out_sources_rows_never_fit_the_constants_they_are_scored_with():
    """Without the torchtune README, torchtune's utilization is fitted on its other sources'
    rows only (or is the prior where none is left), so H075 is never predicted from its own
    figure."""
    table = SHIPPED.held_out[TORCHTUNE_README]
    held_out = table.get(TORCHTUNE, TRAIN)
    assert not {"H073", "H075", "H079"} & set(held_out.fitted_on)
    if not held_out.fitted_on:
        assert held_out == prior_constants(TORCHTUNE, TRAIN)
    fitted = load_efficiency().get(TORCHTUNE, TRAIN)
    assert {"H073", "H075", "H079"} <= set(fitted.fitted_on)


def test_a_cross_validated_prediction_is_the_row_predicted_with_its_sources_table():
    by_id = {row.id: row for row in ROWS}
    predictions = {p.row_id: p for p in cross_validated_predictions(ROWS, SHIPPED)}
    for row_id in ("H075", "H039", "H051", "X023"):
        row = by_id[row_id]
        expected = predict_row(row, SHIPPED.held_out[source_of(row)])
        assert predictions[row_id] == expected
        assert predictions[row_id] != predict_row(row, load_efficiency())


def test_a_row_from_a_source_no_fit_saw_takes_the_full_fit():
    from dataclasses import replace

    row = replace(ROWS[0], id="U1", source_url="https://example.org/my-bench")
    assert SHIPPED.table_for(row) is SHIPPED.full


def test_the_shipped_file_round_trips():
    again = crossval_from_json(crossval_to_json(SHIPPED), SHIPPED.full)
    assert again.held_out == SHIPPED.held_out


def test_a_bad_held_out_entry_names_its_field():
    body = crossval_to_json(SHIPPED)
    body["sources"][0]["priors"] = [["torchtune"]]
    with pytest.raises(EngineInputError) as error:
        crossval_from_json(body, SHIPPED.full)
    assert error.value.field == "crossval.sources[0].priors"


def test_the_coarse_to_fine_search_finds_the_whole_grid_minimum():
    grid = tuple(round(0.02 + 0.01 * i, 2) for i in range(99))
    for trough in (0.02, 0.13, 0.5, 0.77, 1.0):

        def loss(v: float, trough: float = trough) -> float:
            return (v - trough) ** 2

        assert grid_minimum(grid, loss) == min(grid, key=loss)
    # ties keep the earlier grid value
    assert grid_minimum(grid, lambda v: 0.0) == 0.02


def test_leaving_out_a_source_no_fit_uses_leaves_the_full_fit():
    """A source whose rows are all not modeled adds nothing to any fit: its held-out table is
    the full fit (so the shipped cross-validation refits only the sources the fit uses)."""
    from simulator.engine.calibration import fit_efficiency
    from simulator.engine.calibration.crossval import fitted_sources, held_out_tables
    from simulator.engine.calibration.efficiency import Efficiency
    from simulator.engine.calibration.predict import predict_row

    modeled = {source_of(r) for r in ROWS if predict_row(r, load_efficiency()).modeled}
    unmodeled = next(row for row in ROWS if source_of(row) not in modeled)
    unmodeled_source = source_of(unmodeled)
    few = (*ROWS[:3], unmodeled)  # H001–H005 (llama.cpp prefill, one RTX 4090) and it
    assert fitted_sources(few) == {source_of(ROWS[0])}
    full = fit_efficiency(few)
    assert fit_without(few, unmodeled_source) == full

    fitted: list[str] = []

    def fit(source: str) -> Efficiency:
        fitted.append(source)
        return fit_without(few, source)

    tables = held_out_tables(few, (), full, fit)
    assert fitted == [source_of(ROWS[0])]
    assert tables[unmodeled_source] == full
    assert tables[source_of(ROWS[0])] == fit_without(few, source_of(ROWS[0]))
    assert tables[source_of(ROWS[0])] != full


def test_a_held_out_table_keeps_its_own_global_constants():
    """Every global constant (routing pool, m½, network hop, routed-expert layer extra) of a
    held-out fit travels through the shipped file: a source's rows
    are never scored with a global fitted on them."""
    from dataclasses import replace

    from simulator.engine.calibration.crossval import GLOBAL_CONSTANTS, CrossValidation

    source = TORCHTUNE_README
    table = replace(
        SHIPPED.held_out[source],
        network_hop_s=SHIPPED.full.network_hop_s + 1e-4,
        moe_layer_extra=SHIPPED.full.moe_layer_extra + 0.25,
        moe_layer_extra_fitted_on=("X1",),
    )
    crossval = CrossValidation(full=SHIPPED.full, held_out={source: table})
    again = crossval_from_json(crossval_to_json(crossval), SHIPPED.full).held_out[source]
    for name in GLOBAL_CONSTANTS:
        assert getattr(again, name) == getattr(table, name), name

import pytest

from simulator.engine.accuracy import (
    efficiency_from_json,
    efficiency_to_json,
    fit_efficiency,
    load_corpus,
    load_efficiency,
    load_seed_rows,
)
from simulator.engine.accuracy.fit import fit_shipped
from simulator.engine.efficiency import LLAMA_CPP_METAL, METAL_MARLIN
from simulator.engine.errors import EngineInputError

_, ROWS = load_corpus()


def test_the_fit_is_deterministic_and_is_what_ships():
    assert fit_shipped() == fit_shipped()
    assert efficiency_to_json(fit_shipped()) == efficiency_to_json(load_efficiency())


def test_json_round_trips():
    shipped = load_efficiency()
    assert efficiency_from_json(efficiency_to_json(shipped)) == shipped


def test_a_bad_constant_is_rejected_naming_its_field():
    body = efficiency_to_json(load_efficiency())
    body["entries"][0]["bandwidth_efficiency"] = 1.5
    with pytest.raises(EngineInputError) as error:
        efficiency_from_json(body)
    assert error.value.field == "efficiency.entries[0].bandwidth_efficiency"


def test_each_constant_is_fitted_on_its_own_runtimes_rows():
    fitted = fit_efficiency(ROWS[:3])  # H001–H005: llama.cpp prefill on one RTX 4090
    (entry,) = fitted.entries
    assert (entry.runtime, entry.device_class) == ("llama.cpp", "gpu")
    assert entry.fitted_on == ("H001", "H003", "H005")


def test_seed_001s_runtime_has_its_own_constant_far_below_llama_cpp_metal():
    shipped = load_efficiency()
    marlin = shipped.get(METAL_MARLIN, "unified")
    assert marlin.fitted_on == tuple(row.id for row in load_seed_rows())
    assert (
        marlin.bandwidth_efficiency
        < shipped.get(LLAMA_CPP_METAL, "unified").bandwidth_efficiency / 5
    )

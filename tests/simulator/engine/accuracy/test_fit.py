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


def test_seed_001s_runtime_is_derived_from_its_kernel_table_not_fitted_on_its_decode():
    """Issue 7: no constant per data point. Metal Marlin reads and computes at the Apple
    class's fitted constants and pays one fused trellis dispatch per layer, the intercept of
    seed 001's kernel table (2.8 ms at batch 1, 4.2 ms at batch 32)."""
    shipped = load_efficiency()
    marlin, apple = shipped.get(METAL_MARLIN, "unified"), shipped.get(LLAMA_CPP_METAL, "unified")
    assert marlin.fitted_on == ()
    assert (marlin.bandwidth_efficiency, marlin.flops_efficiency) == (
        apple.bandwidth_efficiency,
        apple.flops_efficiency,
    )
    assert marlin.layer_overhead_s == pytest.approx(2.8e-3 - 1.4e-3 / 31, abs=1e-7)
    refit = fit_efficiency(load_seed_rows())
    assert refit.get(METAL_MARLIN, "unified").layer_overhead_s == marlin.layer_overhead_s

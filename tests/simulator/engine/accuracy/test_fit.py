import pytest

from simulator.engine.calibration import (
    efficiency_from_json,
    efficiency_to_json,
    fit_efficiency,
    load_corpus,
    load_efficiency,
    load_seed_rows,
)
from simulator.engine.calibration.corpus import MeasurementRow
from simulator.engine.calibration.efficiency import (
    LLAMA_CPP_METAL,
    METAL_MARLIN,
    PRIOR_EFFICIENCY,
    UNIFORM_ROUTING,
)
from simulator.engine.calibration.fit import (
    MIN_ROUTING_SOURCES,
    ROUTING_POOL_GRID,
    depends_on_routing,
)
from simulator.engine.calibration.setups import row_setup
from simulator.engine.errors import EngineInputError

_, ROWS = load_corpus()


def test_json_round_trips():
    shipped = load_efficiency()
    assert efficiency_from_json(efficiency_to_json(shipped)) == shipped


def test_a_bad_constant_is_rejected_naming_its_field():
    body = efficiency_to_json(load_efficiency())
    body["entries"][0]["bandwidth_efficiency"] = 1.5
    with pytest.raises(EngineInputError) as error:
        efficiency_from_json(body)
    assert error.value.field == "efficiency.entries[0].bandwidth_efficiency"


def test_the_routing_pool_fraction_is_fitted_on_batched_moe_decode_rows_only():
    """One global value (docs/model.md, "Decode"): fitted on the rows it moves, the
    llama-batched-bench MoE rows at B ≥ 2; H039's gpt-oss-120b step then reads ≈ 60 of 128
    experts per layer, what its measured 102 ms allows at 273 GB/s."""
    shipped = load_efficiency()
    assert shipped.routing_pool_fraction < UNIFORM_ROUTING
    assert shipped.routing_pool_fraction in ROUTING_POOL_GRID
    by_id = {row.id: row for row in ROWS}
    fitted_on = shipped.routing_pool_fitted_on
    assert "H039" in fitted_on
    # 3 MoE models × 3 prompt lengths × B = 2, 4, 8, 16, 32 on DGX Spark, H071 (vLLM, 64
    # concurrent requests of Qwen3-235B-A22B on 4× B200) and the gathered batched MoE rows
    spark = {row.id for row in ROWS if "dgx-spark" in row.source_url}
    assert len(spark & set(fitted_on)) == 45
    assert "H071" in fitted_on
    assert all(depends_on_routing(row_setup(by_id[i])) for i in fitted_on)
    assert "X001" not in fitted_on  # batch 1: the fraction does not move it


def test_one_source_alone_does_not_set_the_routing_pool_fraction():
    """A global constant needs rows from MIN_ROUTING_SOURCES sources: one benchmark's batch
    composition stays its own, and uniform routing stands."""
    spark = [row for row in ROWS if "dgx-spark" in row.source_url]
    assert MIN_ROUTING_SOURCES == 2
    alone = fit_efficiency(spark)
    assert alone.routing_pool_fraction == UNIFORM_ROUTING
    assert alone.routing_pool_fitted_on == ()


def test_no_batched_moe_row_keeps_uniform_routing():
    assert fit_efficiency(ROWS[:3]).routing_pool_fraction == UNIFORM_ROUTING
    assert PRIOR_EFFICIENCY.routing_pool_fraction == UNIFORM_ROUTING
    body = efficiency_to_json(load_efficiency())
    del body["routing_pool_fraction"]
    assert efficiency_from_json(body).routing_pool_fraction == UNIFORM_ROUTING


@pytest.mark.parametrize("value", [0, 1.5, "0.5"])
def test_a_bad_routing_pool_fraction_is_rejected(value):
    body = efficiency_to_json(load_efficiency())
    body["routing_pool_fraction"] = value
    with pytest.raises(EngineInputError) as error:
        efficiency_from_json(body)
    assert error.value.field == "efficiency.routing_pool_fraction"


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


def test_attention_never_beats_the_gemms_fraction_of_peak():
    """The attention grid stops at the key's GEMM efficiency (fit.attention_grid)."""
    from simulator.engine.calibration.fit import FRACTION_GRID, attention_grid

    assert max(attention_grid(0.32)) == 0.32
    assert attention_grid(1.0) == FRACTION_GRID
    for entry in load_efficiency().entries:
        if entry.attention_efficiency is not None:
            assert entry.attention_efficiency <= entry.flops_efficiency, entry.runtime


def _rows(*ids: str) -> list[MeasurementRow]:
    return [row for row in ROWS if row.id in ids]


def test_hybrid_rows_never_pin_their_cpus_attention_or_per_layer_overhead():
    """A hybrid keeps attention on the GPU, and its CPU layers' fixed cost cannot be told
    from the link crossings around them: its rows fit the CPU's bandwidth and FLOPS only."""
    from simulator.engine.calibration.fit import runs_at_home

    hybrid = _rows("G023", "G024", "G025", "G026")  # ik_llama.cpp, experts in RAM, to 30k deep
    setups = [row_setup(row) for row in hybrid]
    assert all(runs_at_home(s, "gpu") and not runs_at_home(s, "cpu") for s in setups)

    fitted = fit_efficiency(hybrid)
    cpu, prior = fitted.get("ik_llama.cpp", "cpu"), PRIOR_EFFICIENCY.get("ik_llama.cpp", "cpu")
    assert cpu.fitted_on == ("G023", "G024", "G025", "G026")
    assert cpu.attention_efficiency is None
    assert cpu.layer_overhead_s == prior.layer_overhead_s
    assert fitted.get("ik_llama.cpp", "gpu").attention_efficiency is not None

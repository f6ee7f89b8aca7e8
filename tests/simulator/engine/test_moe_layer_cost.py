"""A routed-expert layer's extra kernels (router, top-k, the experts' gather and combine) as
one global constant, `moe_layer_extra`, in units of the runtime's per-layer cost, on the
runtimes that launch MoE routing unfused (llama.cpp's Metal, Vulkan and SYCL backends, MLX):
derived from named quantities, read and written with the constants, fitted only on those
runtimes' decodes of both dense and MoE models."""

from dataclasses import replace
from typing import Any

import pytest

from simulator.engine.calibration.corpus import load_corpus
from simulator.engine.calibration.efficiency import (
    RUNTIMES_WITH_UNFUSED_MOE_ROUTING,
    efficiency_from_json,
    efficiency_to_json,
    load_efficiency,
)
from simulator.engine.calibration.fit import (
    MOE_LAYER_EXTRA_GRID,
    _fit_global,
    depends_on_moe_layer_extra,
)
from simulator.engine.calibration.not_modeled import NotModeled
from simulator.engine.calibration.predict import predicted_value
from simulator.engine.calibration.setups import InferSetup, row_setup
from simulator.engine.errors import EngineInputError
from simulator.engine.io.request import parse_request
from simulator.engine.serve.inference import simulate_inference

LAYER_S = 1e-4
EXTRA = 1.5


def _decode_overhead_s(model: str, runtime: str, location: str, hardware: dict[str, Any]) -> float:
    base = load_efficiency()
    entry = replace(base.get(runtime, location), layer_overhead_s=LAYER_S)
    table = replace(base.replace(entry), moe_layer_extra=EXTRA)
    body: dict[str, Any] = {
        "workload": {"kind": "infer", "model": model, "quant": "Q4_K_M",
                     "placement": location, "runtime": runtime, "context": 512},
        "hardware": hardware,
    }  # fmt: skip
    result = simulate_inference(parse_request(body), table)
    return result.decode.locations[0].overhead_s


def test_a_routed_expert_layer_costs_its_extra_on_an_unfused_runtime_only() -> None:
    """Qwen3-30B-A3B: 48 layers, every one routed; Qwen3-8B: 36 dense layers. On an M4 Max
    under llama.cpp's Metal backend a routed layer costs 1 + 1.5 per-layer costs; under
    llama.cpp's CUDA backend, which fuses the routing, one."""
    mac = {"unified": "mac-studio-m4-max-128gb"}
    metal = ("llama.cpp-metal", "unified", mac)
    assert _decode_overhead_s("qwen3-30b-a3b", *metal) == pytest.approx((48 + EXTRA * 48) * LAYER_S)
    assert _decode_overhead_s("qwen3-8b", *metal) == pytest.approx(36 * LAYER_S)
    cuda = ("llama.cpp", "gpu", {"gpu": "RTX PRO 6000", "gpu_count": 1})
    assert _decode_overhead_s("qwen3-30b-a3b", *cuda) == pytest.approx(48 * LAYER_S)
    assert "llama.cpp" not in RUNTIMES_WITH_UNFUSED_MOE_ROUTING


def test_the_constant_round_trips_and_a_bad_value_names_its_field() -> None:
    shipped = load_efficiency()
    assert efficiency_from_json(efficiency_to_json(shipped)) == shipped
    body = efficiency_to_json(shipped)
    body["moe_layer_extra"] = -1
    with pytest.raises(EngineInputError) as error:
        efficiency_from_json(body)
    assert error.value.field == "efficiency.moe_layer_extra"


def test_the_fit_recovers_the_extra_cost_the_rows_were_measured_at() -> None:
    """The shipped corpus's Metal and MLX decodes, each measured as the engine predicts it at
    an extra cost of 1.25: the global fit over the grid finds 1.25."""
    _, rows = load_corpus()
    table = load_efficiency()
    truth = replace(table, moe_layer_extra=MOE_LAYER_EXTRA_GRID[5])
    pairs = []
    for row in rows:
        try:
            setup = row_setup(row)
            if not depends_on_moe_layer_extra(setup):
                continue
            measured, _ = predicted_value(setup, truth, row.unit)
        except (NotModeled, EngineInputError):
            continue
        pairs.append((replace(row, value=measured), setup))
    assert {setup.request.workload.model.is_moe for _, setup in pairs} == {True, False}
    fitted = _fit_global(replace(table, moe_layer_extra=0.0), "moe_layer_extra", pairs)
    assert fitted.moe_layer_extra == MOE_LAYER_EXTRA_GRID[5] == 1.25


def test_the_shipped_value_is_fitted_on_unfused_runtimes_decodes_only() -> None:
    shipped = load_efficiency()
    _, rows = load_corpus()
    by_id = {row.id: row for row in rows}
    fitted_on = shipped.moe_layer_extra_fitted_on
    assert fitted_on
    setups = [row_setup(by_id[i]) for i in fitted_on if i in by_id]
    assert all(isinstance(s, InferSetup) for s in setups)
    runtimes = {s.request.workload.runtime for s in setups if isinstance(s, InferSetup)}
    assert runtimes <= RUNTIMES_WITH_UNFUSED_MOE_ROUTING

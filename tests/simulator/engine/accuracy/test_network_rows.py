"""Corpus rows of several machines: llama.cpp RPC over unified-memory systems is read with its
machine count and the network it states; a row that states no network, llama.cpp RPC over
discrete GPUs and other clusters (exo, MLX distributed) are not modeled, each with its reason.
The fixed cost of a crossing is one global constant fitted on such rows."""

from dataclasses import replace
from typing import Any

import pytest

from simulator.engine.calibration.efficiency import load_efficiency
from simulator.engine.calibration.fit import (
    NETWORK_HOP_GRID_S,
    _fit_global,
    depends_on_network,
)
from simulator.engine.calibration.predict import predict_row, predicted_value
from simulator.engine.calibration.setups import InferSetup, row_setup
from tests.simulator.engine.corpus_rows import corpus_row

STRIX_PAIR: dict[str, Any] = {
    "system": "2 x Framework Desktop (AMD Ryzen AI Max+ 395, Radeon 8060S, 128GB each) "
    "via llama.cpp RPC",
    "gpu": "AMD Radeon 8060S (Strix Halo iGPU)",
    "gpu_count": 2,
    "interconnect": "50 Gbps Ethernet (llama.cpp RPC)",
}
RPC_PAIR: dict[str, Any] = {
    "category": "inference_multi_gpu_layer_split",
    "engine": "llama.cpp ROCm 6.4.4 toolbox + RPC (-fa 1, ngl 99)",
    "hardware": STRIX_PAIR,
    "model": "gpt-oss-120b",
    "quant": "MXFP4",
    "workload": {"phase": "decode", "test": "tg128", "batch": 1},
}


def _rpc_row(**changes: Any) -> Any:
    return corpus_row(**{**RPC_PAIR, **changes})


def test_an_rpc_pair_of_strix_halo_systems_is_two_machines_on_the_stated_network() -> None:
    setup = row_setup(_rpc_row())
    assert isinstance(setup, InferSetup)
    hardware = setup.request.hardware
    assert hardware.machines == 2
    assert hardware.network_gbit_per_s == 50.0
    assert hardware.unified is not None
    assert hardware.unified.mem_gib == 128.0
    assert setup.request.workload.placement == "unified"
    assert depends_on_network(setup)


def test_a_usb4_link_is_read_at_its_stated_effective_speed() -> None:
    hardware = dict(STRIX_PAIR, interconnect="direct USB4 (~9.4 Gbps effective)")
    setup = row_setup(_rpc_row(hardware=hardware))
    assert isinstance(setup, InferSetup)
    assert setup.request.hardware.network_gbit_per_s == 9.4


def test_one_system_on_an_rpc_enabled_build_is_one_machine() -> None:
    hardware = dict(STRIX_PAIR, system="1 x Framework Desktop (128GB)", gpu_count=1)
    hardware.pop("interconnect")
    setup = row_setup(_rpc_row(hardware=hardware))
    assert isinstance(setup, InferSetup)
    assert setup.request.hardware.machines == 1
    assert not depends_on_network(setup)


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        (
            {"hardware": {**STRIX_PAIR, "interconnect": "Ethernet (LAN)"}},
            "does not state the network between its machines",
        ),
        (
            {"hardware": {"system": "2 x workstation", "gpu": "RTX 3090", "gpu_count": 4,
                          "interconnect": "10 Gbps"}},
            "llama.cpp RPC over machines with discrete GPUs",
        ),
        (
            {"engine": "exo (MLX backend, tensor parallel over Thunderbolt 5)",
             "hardware": {"system": "2 x Mac Studio M3 Ultra 512 GB (1024 GB total) cluster"}},
            "cluster of several machines",
        ),
    ],
)  # fmt: skip
def test_what_the_engine_cannot_split_over_machines_is_not_modeled(
    changes: dict[str, Any], reason: str
) -> None:
    prediction = predict_row(_rpc_row(**changes))
    assert not prediction.modeled
    assert reason in prediction.reason


def test_the_hop_cost_is_the_grid_value_that_best_fits_rows_of_several_machines() -> None:
    """Rows measured as the engine predicts them at a 3 ms hop: the fit recovers it."""
    table = load_efficiency()
    true_hop = NETWORK_HOP_GRID_S[30]
    at_truth = replace(table, network_hop_s=true_hop)
    pairs = []
    for machines, test in ((2, "tg128"), (3, "tg128"), (2, "pp512")):
        hardware = dict(STRIX_PAIR, system=f"{machines} x Framework Desktop (128GB)")
        phase = "decode" if test.startswith("tg") else "prefill"
        workload = {"phase": phase, "test": test, "batch": 1}
        row = _rpc_row(hardware=hardware, workload=workload)
        setup = row_setup(row)
        measured, _ = predicted_value(setup, at_truth, row.unit)
        pairs.append((replace(row, value=measured), setup))

    fitted = _fit_global(replace(table, network_hop_s=0.0), "network_hop_s", pairs)
    assert fitted.network_hop_s == pytest.approx(true_hop)


def test_the_shipped_hop_cost_is_fitted_on_the_rpc_rows_with_a_stated_network() -> None:
    """kyuz0/amd-strix-halo-toolboxes' two Framework Desktops on 50 Gbps Ethernet (R084–R091,
    four log files, four sources): the fit's value, on its grid, from those rows only (0 s
    under absolute log errors: the rows read as well with the network's bytes alone)."""
    shipped = load_efficiency()
    assert shipped.network_hop_s in NETWORK_HOP_GRID_S
    assert set(shipped.network_hop_fitted_on) == {f"R0{n}" for n in range(84, 92)}

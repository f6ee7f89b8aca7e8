"""A training stack's unfused elementwise traffic (compute.EagerTraffic): bytes per token per
element of projection width, at streaming bandwidth, on top of the GEMMs; the rankings'
vectorised path gives what the scalar path gives."""

from __future__ import annotations

from dataclasses import replace

import pytest

from simulator.engine import SimulationRequest
from simulator.engine.formats.training import quant_format
from simulator.engine.hardware import Hardware
from simulator.engine.model.config import ModelShape
from simulator.engine.model.layers import dense_layer
from simulator.engine.model.lora import projection_width
from simulator.engine.model.registry import load_model
from simulator.engine.simulate import simulate
from simulator.engine.train.batch import best_splits
from simulator.engine.train.compute import (
    DEQUANT_BANDWIDTH_EFFICIENCY,
    HF_EAGER_TRAFFIC,
    PEFT_EAGER_TRAFFIC,
)
from simulator.engine.train.refined import ALL_REFINEMENTS, layer_traffic_s, stage_layers
from simulator.engine.train.workload import TrainWorkload
from tests.simulator.engine.peft_workloads import gpu, h200, peft_workload

LLAMA_8B = load_model("llama-3.1-8b")


def test_the_projection_width_of_llama_3_1_8b() -> None:
    """q 4096→4096, k and v 4096→1024, o 4096→4096, gate and up 4096→14336, down 14336→4096."""
    q, kv, o, mlp = 4096 + 4096, 4096 + 1024, 4096 + 4096, 4096 + 14336
    assert projection_width(dense_layer(LLAMA_8B)) == q + 2 * kv + o + 3 * mlp == 81920


def test_peft_bytes_are_the_layers_plus_the_adapted_projections() -> None:
    width, adapted, rank = 81920, 4096 + 4096 + 4096 + 1024, 16  # q and v adapted
    per_adapter = PEFT_EAGER_TRAFFIC.adapter_forward_bytes + 16 * 0.119
    assert PEFT_EAGER_TRAFFIC.forward_bytes(width, adapted, rank) == pytest.approx(
        10.9 * width + per_adapter * adapted
    )
    assert HF_EAGER_TRAFFIC.backward_bytes(width, adapted, rank) == pytest.approx(22.8 * width)


def _workload(model: ModelShape = LLAMA_8B, **changes: object) -> TrainWorkload:
    return peft_workload(model, **changes)


def test_a_layers_traffic_takes_its_bytes_at_streaming_bandwidth() -> None:
    workload = _workload()
    plans = stage_layers(workload, 1, ALL_REFINEMENTS)
    tokens = 2 * 4096
    forward, backward = layer_traffic_s(plans, workload, 4800.0, tokens)
    all_seven = projection_width(dense_layer(LLAMA_8B))  # the default targets: all seven
    per_token = (10.9 + 26.1 + 16 * 0.119) * all_seven
    assert forward[0] == pytest.approx(tokens * per_token / (4800e9 * DEQUANT_BANDWIDTH_EFFICIENCY))
    assert len(forward) == len(backward) == LLAMA_8B.num_layers


def test_checkpointing_repeats_the_forwards_traffic_in_the_backward() -> None:
    kept, recomputed = _workload(), _workload(activation_checkpointing=True)
    plans = stage_layers(kept, 1, ALL_REFINEMENTS)
    fwd, bwd = layer_traffic_s(plans, kept, 4800.0, 8192)
    _, bwd_recomputed = layer_traffic_s(plans, recomputed, 4800.0, 8192)
    assert bwd_recomputed[0] == pytest.approx(bwd[0] + fwd[0])


def test_traffic_slows_a_training_step_and_small_models_most() -> None:
    """Traffic grows with width, GEMM FLOPs with width squared: a 1B model loses a larger share
    of its speed to it than an 8B one."""

    def slowdown(model: str) -> float:
        workload = _workload(model=load_model(model))
        fused = replace(workload, eager_traffic=None)
        eager = simulate(SimulationRequest(workload=workload, hardware=h200())).best
        plain = simulate(SimulationRequest(workload=fused, hardware=h200())).best
        return plain.tokens_per_s / eager.tokens_per_s

    small, large = slowdown("llama-3.2-1b"), slowdown("llama-3.1-8b")
    assert large > 1.0
    assert small > large


@pytest.mark.parametrize("checkpointing", [False, True])
def test_the_vectorised_path_gives_what_simulate_gives(checkpointing: bool) -> None:
    workload = _workload(activation_checkpointing=checkpointing, quant=quant_format("NF4"))
    # without checkpointing an eager 8B layer keeps ~288 KB a token: 24 GB cards need 4 stages
    grid = [h200(count) for count in (1, 2)] + [
        Hardware(gpu=gpu("rtx-4090"), gpu_count=count, ram_gib=128.0, pinned_gib=112.0)
        for count in ((1, 2, 4) if checkpointing else (4,))
    ]
    expected = [simulate(SimulationRequest(workload=workload, hardware=hw)).best for hw in grid]
    assert best_splits(workload, grid) == expected

"""Megatron pipeline stages in data-parallel training (train/data_parallel.py): P stages of
consecutive layers run 1F1B over M micro-batches, V chunks per GPU; each figure derived from
named quantities."""

from __future__ import annotations

from dataclasses import replace

import pytest

from simulator.engine.errors import EngineInputError
from simulator.engine.hardware import Hardware
from simulator.engine.io.request import parse_request
from simulator.engine.io.train_result import train_request_to_json
from simulator.engine.model.registry import load_model
from simulator.engine.simulate import simulate
from simulator.engine.train.data_parallel import (
    data_parallel_split,
    in_flight_micro_batches,
    stage_handoff_s,
)
from simulator.engine.train.reference import SplitResult
from simulator.engine.train.refined import ALL_REFINEMENTS
from simulator.engine.train.workload import TrainWorkload
from tests.simulator.engine.peft_workloads import gpu, h200, peft_workload

LLAMA_8B = load_model("llama-3.1-8b")  # hidden 4096, 32 identical layers
NVLINK_GBPS = 450.0
FREE_LINK_GBPS = 1e12  # hand-offs and gradient traffic take no time


def _workload(p: int, v: int = 1, m: int = 16, **changes: object) -> TrainWorkload:
    return peft_workload(
        LLAMA_8B, parallelism="zero1", pipeline_parallel=p, virtual_stages=v,
        micro_batches=m, max_micro_batch=1, **changes,
    )  # fmt: skip


def _split(workload: TrainWorkload, hw: Hardware) -> SplitResult:
    result = data_parallel_split(workload, hw, ALL_REFINEMENTS)
    assert result is not None
    return result


def _link(gpus: int, gbps: float) -> Hardware:
    return replace(h200(gpus), interconnect_gbps=gbps)


def test_the_fill_and_drain_is_p_minus_one_micro_batches_over_the_chunks() -> None:
    """With the link free a micro-batch takes its compute, and the step adds (P − 1)/V of it."""
    hw = _link(8, FREE_LINK_GBPS)
    for p, v in ((4, 1), (4, 2), (8, 4)):
        split = _split(_workload(p, v), hw)
        per_micro_batch = split.compute_s / split.micro_batches
        assert split.bubble_s == pytest.approx((p - 1) / v * per_micro_batch, rel=1e-9)
    assert _split(_workload(1), hw).bubble_s == 0.0


def test_a_stage_computes_its_share_of_the_layers_and_the_last_the_head() -> None:
    """Llama 3.1 8B's 32 layers are alike: the last stage of P computes 32/P layers and the LM
    head, so c1 − c2 = 16 layers and c2 − c4 = 8 layers: c1 − c2 = 2 (c2 − c4)."""
    hw = _link(8, FREE_LINK_GBPS)
    c1, c2, c4 = (_split(_workload(p), hw).compute_s for p in (1, 2, 4))
    assert c1 - c2 == pytest.approx(2 * (c2 - c4), rel=1e-9)
    assert c2 > c1 / 2  # the head stays on the last stage


def test_tokens_per_second_count_every_data_parallel_group() -> None:
    """8 GPUs in stages of 4: 2 groups, each M × B × S tokens a step."""
    split = _split(_workload(4, m=16), _link(8, NVLINK_GBPS))
    assert split.tokens_per_s == pytest.approx(2 * 16 * 1 * 4096 / split.step_s, rel=1e-12)


def test_each_chunk_hands_its_activations_on_and_their_gradients_back() -> None:
    """B × S × hidden × 2 bytes each way, per chunk, split over the stage's T GPUs."""
    hw = _link(8, NVLINK_GBPS)
    workload = _workload(4, v=3, tensor_parallel=2)
    moved = 2 * 3 * (1 * 4096 * 4096 * 2) / 2
    assert stage_handoff_s(workload, hw, 1) == pytest.approx(moved / (NVLINK_GBPS * 1e9))
    assert stage_handoff_s(_workload(1), hw, 1) == 0.0


def test_the_first_stage_holds_p_micro_batches_and_more_when_interleaved() -> None:
    """Korthikanti et al. 2022 §4.2.3: P in flight under 1F1B, P (1 + (P − 1)/(P V))
    interleaved, never more than the step's M."""
    assert in_flight_micro_batches(_workload(4, 1, m=16)) == 4
    assert in_flight_micro_batches(_workload(4, 2, m=16)) == pytest.approx(4 * (1 + 3 / 8))
    assert in_flight_micro_batches(_workload(4, 1, m=2)) == 2
    assert in_flight_micro_batches(_workload(1)) == 1


def test_stages_let_a_full_fine_tune_fit_that_one_gpu_per_replica_cannot() -> None:
    """Llama 3.1 70B fully fine-tuned on 32 H100s (80 GB): a whole replica's BF16 weights and
    gradients alone are 70.6 B × 4 B = 282 GB; in 8 stages of 4 replicas the last GPU holds
    10 layers and the LM head, 9.7 B weights × (4 B + 12 B / 4), 68 GB, and fits."""
    full = peft_workload(
        load_model("llama-3.1-70b"), full_finetune=True, parallelism="zero1",
        max_micro_batch=1, activation_checkpointing=True, eager_traffic=None, micro_batches=16,
    )  # fmt: skip
    hw = Hardware(gpu=gpu("h100-sxm"), gpu_count=32, ram_gib=512.0, pinned_gib=480.0)
    assert data_parallel_split(full, hw, ALL_REFINEMENTS) is None
    staged = data_parallel_split(replace(full, pipeline_parallel=8), hw, ALL_REFINEMENTS)
    assert staged is not None
    assert 0 < staged.free_vram_gib < 80


def _body(**workload: object) -> dict[str, object]:
    return {
        "workload": {"model": "llama-3.1-8b", "quant": "BF16", "mode": "refined",
                     "parallelism": "zero1", "micro_batches": 16, **workload},
        "hardware": {"gpu": "H200 SXM", "gpu_count": 8, "interconnect_gbps": NVLINK_GBPS},
    }  # fmt: skip


@pytest.mark.parametrize(
    ("workload", "field"),
    [
        ({"pipeline_parallel": 4, "parallelism": "pipeline"}, "workload.pipeline_parallel"),
        ({"pipeline_parallel": 3}, "workload.pipeline_parallel"),
        ({"pipeline_parallel": 4, "tensor_parallel": 4}, "workload.pipeline_parallel"),
        ({"virtual_stages": 2}, "workload.virtual_stages"),
        ({"pipeline_parallel": 8, "virtual_stages": 8}, "workload.pipeline_parallel"),
        ({"pipeline_parallel": 2, "mode": "reference"}, "workload.parallelism"),
        ({"pipeline_parallel": 0}, "workload.pipeline_parallel"),
    ],
)
def test_a_split_the_gpus_or_layers_cannot_hold_is_refused_with_its_field(
    workload: dict[str, object], field: str
) -> None:
    with pytest.raises(EngineInputError) as refused:
        simulate(parse_request(_body(**workload)))
    assert refused.value.field == field


def test_the_stages_are_kept_in_the_stored_request() -> None:
    request = parse_request(_body(pipeline_parallel=4, virtual_stages=2))
    echoed = train_request_to_json(request)["workload"]
    assert (echoed["pipeline_parallel"], echoed["virtual_stages"]) == (4, 2)
    assert parse_request(train_request_to_json(request)) == request
    result = simulate(request)
    assert result.best.bubble_s > 0

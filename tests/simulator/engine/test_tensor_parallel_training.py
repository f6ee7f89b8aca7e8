"""Tensor-parallel training (train/data_parallel.py): T GPUs split each layer, G/T groups run
data parallel; each figure derived from named quantities."""

from __future__ import annotations

from dataclasses import replace

import pytest

from simulator.engine.errors import EngineInputError
from simulator.engine.hardware import Hardware
from simulator.engine.model.registry import load_model
from simulator.engine.simulate import simulate
from simulator.engine.train.data_parallel import data_parallel_split, tensor_parallel_s
from simulator.engine.train.refined import ALL_REFINEMENTS
from simulator.engine.train.workload import DDP, FSDP, MODE_REFERENCE, PIPELINE
from simulator.engine.workload import SimulationRequest
from tests.simulator.engine.peft_workloads import gpu, h200, peft_workload

LLAMA_8B = load_model("llama-3.1-8b")  # hidden 4096, 32 layers, 32 attention heads
LLAMA_70B = load_model("llama-3.1-70b")
NVLINK_GBPS = 450.0  # an H100/H200 SXM's NVLink, per direction


def _nvlink(count: int) -> Hardware:
    return replace(h200(count), interconnect_gbps=NVLINK_GBPS)


def test_the_all_reduces_of_a_micro_batch_are_counted_per_layer_and_pass() -> None:
    """Checkpointed: forward, recompute and backward each end attention and the MLP with an
    all-reduce of B × S × 4096 two-byte activations; a ring moves 2 (T − 1)/T of them."""
    b, s, t = 2, 4096, 4
    workload = peft_workload(
        LLAMA_8B, seq_len=s, activation_checkpointing=True, tensor_parallel=t, parallelism=DDP
    )
    hw = _nvlink(4)
    activations = b * s * 4096 * 2
    moved = 2 * 3 * 32 * 2 * (t - 1) / t * activations
    assert tensor_parallel_s(workload, hw, b) == pytest.approx(moved / (NVLINK_GBPS * 1e9))
    without = replace(workload, activation_checkpointing=False)
    assert tensor_parallel_s(without, hw, b) == pytest.approx(moved * 2 / 3 / (NVLINK_GBPS * 1e9))
    assert tensor_parallel_s(replace(workload, tensor_parallel=1), hw, b) == 0.0


def test_two_gpus_splitting_layers_match_two_replicas_when_the_link_is_free() -> None:
    """One sequence per micro-batch: TP2 halves each GPU's work on one sequence, DDP gives
    each GPU its own; with the all-reduces free the two run at the same pace, and over a real
    link TP2 is the slower by its all-reduces."""
    base = peft_workload(LLAMA_8B, max_micro_batch=1, parallelism=DDP)
    ddp = data_parallel_split(base, _nvlink(2), ALL_REFINEMENTS)
    free_link = replace(h200(2), interconnect_gbps=1e12)
    tp_free = data_parallel_split(replace(base, tensor_parallel=2), free_link, ALL_REFINEMENTS)
    tp = data_parallel_split(replace(base, tensor_parallel=2), _nvlink(2), ALL_REFINEMENTS)
    assert ddp is not None
    assert tp_free is not None
    assert tp is not None
    assert tp_free.tokens_per_s == pytest.approx(ddp.tokens_per_s, rel=1e-6)
    all_reduces = tensor_parallel_s(replace(base, tensor_parallel=2), _nvlink(2), 1)
    assert tp.step_s == pytest.approx(tp_free.step_s + all_reduces, rel=1e-6)


def test_splitting_layers_lets_a_model_fit_that_replicas_cannot_hold() -> None:
    """Llama 3.1 70B's BF16 weights (141 GB) exceed an H100's 80 GB, so replicas cannot hold
    them; four GPUs splitting each layer hold a quarter each."""
    workload = peft_workload(
        LLAMA_70B, max_micro_batch=1, parallelism=FSDP, activation_checkpointing=True
    )
    h100 = replace(_nvlink(4), gpu=gpu("h100-sxm"))
    assert data_parallel_split(replace(workload, parallelism=DDP), h100) is None
    split = data_parallel_split(replace(workload, parallelism=DDP, tensor_parallel=4), h100)
    assert split is not None
    assert split.tokens_per_s > 0


@pytest.mark.parametrize(
    ("changes", "gpus", "message"),
    [
        ({"parallelism": PIPELINE}, 2, "not the layer pipeline"),
        ({"parallelism": DDP, "tensor_parallel": 3}, 4, "divide hardware.gpu_count"),
        ({"parallelism": DDP, "tensor_parallel": 64}, 64, "32 attention heads"),
        ({"parallelism": PIPELINE, "mode": MODE_REFERENCE}, 2, "reference mode"),
    ],
)
def test_a_tensor_split_the_engine_cannot_run_is_refused_on_its_field(
    changes: dict[str, object], gpus: int, message: str
) -> None:
    workload = peft_workload(LLAMA_8B, max_micro_batch=1, **{"tensor_parallel": 2, **changes})
    with pytest.raises(EngineInputError) as error:
        simulate(SimulationRequest(workload=workload, hardware=_nvlink(gpus)))
    assert error.value.field == "workload.tensor_parallel"
    assert message in error.value.message


def test_a_data_parallel_run_that_does_not_fit_names_what_one_gpu_needs() -> None:
    """Llama 3.1 70B replicated on H100s: each GPU would hold the whole 131 GiB of weights,
    so the refusal names more than the 80 GB the GPU has (not the layer pipeline's minimum)."""
    workload = peft_workload(
        LLAMA_70B, max_micro_batch=1, parallelism=DDP, activation_checkpointing=True
    )
    hardware = replace(_nvlink(4), gpu=gpu("h100-sxm"))
    with pytest.raises(EngineInputError) as error:
        simulate(SimulationRequest(workload=workload, hardware=hardware))
    assert error.value.field == "hardware.gpu.vram_gib"
    need = float(error.value.message.split("needs at least ")[1].split(" GB")[0])
    assert need > 131

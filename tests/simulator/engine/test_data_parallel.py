"""Data-parallel training and full fine-tuning (docs/model.md, "Data-parallel training"):
every GPU runs every layer on its own micro-batches, replicated (DDP) or sharded (FSDP)."""

from dataclasses import replace
from typing import Any

import pytest

from simulator.engine import SimulationRequest, parse_request
from simulator.engine.errors import EngineInputError
from simulator.engine.formats.training import quant_format
from simulator.engine.hardware import GpuSpec, Hardware
from simulator.engine.model.layers import embedding_params
from simulator.engine.model.lora import LoraConfig
from simulator.engine.model.registry import load_model
from simulator.engine.simulate import simulate
from simulator.engine.train.data_parallel import (
    OPTIMIZER_STATE_BYTES,
    data_parallel_need_gib,
    data_parallel_peak_gib,
    data_parallel_split,
)
from simulator.engine.train.refined import ALL_REFINEMENTS, stage_layers
from simulator.engine.train.workload import (
    DDP,
    FSDP,
    MODE_REFINED,
    ZERO1,
    ZERO2,
    TrainWorkload,
)
from simulator.engine.units import GB, GIB

A100 = GpuSpec(name="A100", vram_gib=80.0, bf16_tflops=312.0, pcie_gbps=25.0, mem_gbps=2039.0)
MODEL = load_model("llama-3.1-8b")


def _workload(**changes: Any) -> TrainWorkload:
    base = TrainWorkload(
        model=MODEL, quant=quant_format("BF16"), lora=LoraConfig(rank=16), seq_len=2048,
        max_micro_batch=2, mode=MODE_REFINED, parallelism=DDP,
    )  # fmt: skip
    return replace(base, **changes)


def test_ddp_with_lora_scales_with_the_gpus():
    """LoRA's gradients are a few MB: all-reducing them is far shorter than a micro-batch, so
    eight GPUs run eight times the single GPU's tokens (less the optimizer's share)."""
    one = data_parallel_split(_workload(), Hardware(gpu=A100, gpu_count=1))
    eight = data_parallel_split(_workload(), Hardware(gpu=A100, gpu_count=8))
    assert one is not None
    assert eight is not None
    assert eight.bubble_s == 0.0
    assert eight.transfer_s < 0.01 * eight.compute_s
    assert eight.tokens_per_s == pytest.approx(8 * one.tokens_per_s, rel=0.01)


def test_fsdp_moves_each_layers_weights_for_every_use():
    """FSDP all-gathers the layers' weights for the forward, the backward and the recompute,
    3 × 15 GB × 7/8 through each GPU's 25 GB/s PCIe, the root unit's embedding and LM head
    once (it stays gathered), plus the adapters' gradients."""
    w = _workload(parallelism=FSDP)
    hw = Hardware(gpu=A100, gpu_count=8)
    split = data_parallel_split(w, hw)
    plans = stage_layers(w, 1, ALL_REFINEMENTS)
    weights = sum(p.gib for p in plans) * GIB
    grads = 2 * sum(p.lora_params for p in plans)
    edges = 2 * embedding_params(w.model)
    assert split is not None
    assert split.transfer_s == pytest.approx((3 * weights + edges + grads) * 7 / 8 / (25 * GB))
    nvlink = data_parallel_split(w, replace(hw, interconnect_gbps=300.0))
    assert nvlink is not None
    assert nvlink.transfer_s == pytest.approx(split.transfer_s * 25 / 300)


def test_fsdp_shards_what_ddp_replicates():
    """Full fine-tuning of 8B with mixed-precision AdamW: 16 bytes a weight, 128 GB, fits no
    80 GB GPU replicated; sharded over 8 each holds 1/8 plus two gathered layers."""
    full = _workload(full_finetune=True)
    hw = Hardware(gpu=A100, gpu_count=8)
    assert OPTIMIZER_STATE_BYTES["adamw"] == 14
    assert data_parallel_split(full, hw) is None
    sharded = data_parallel_split(replace(full, parallelism=FSDP), hw)
    assert sharded is not None
    peak = data_parallel_peak_gib(replace(full, parallelism=FSDP), hw)
    assert peak is not None
    assert peak < 80.0


def test_zero_1_and_2_shard_the_optimizer_state_and_then_the_gradients():
    """Full fine-tuning of 8B on 8 GPUs, mixed-precision AdamW (ZeRO §3.1: 2 B of gradient
    and 12 B of FP32 master copy and moments a weight, beside the 2 B BF16 copy): ZeRO-1
    keeps 1/8 of the 12 B, ZeRO-2 1/8 of the 2 B gradient too (ZeRO §5.1's P_os and
    P_os+g); the activations and the reserve are DDP's."""
    full = _workload(full_finetune=True)
    hw = Hardware(gpu=A100, gpu_count=8)
    layers = sum(p.params for p in stage_layers(full, 1, ALL_REFINEMENTS))
    params = layers + embedding_params(full.model)  # the embedding and LM head are trained too
    ddp = data_parallel_need_gib(full, hw)
    zero1 = data_parallel_need_gib(replace(full, parallelism=ZERO1), hw)
    zero2 = data_parallel_need_gib(replace(full, parallelism=ZERO2), hw)
    assert ddp - zero1 == pytest.approx(params * 12 * 7 / 8 / GIB)
    assert zero1 - zero2 == pytest.approx(params * 2 * 7 / 8 / GIB)
    assert zero2 < 80.0 < ddp


def test_zero_1_and_2_move_ddps_bytes_and_update_an_eighth_of_the_state():
    """ZeRO-1/2 reduce-scatter the gradients and all-gather the updated weights: DDP's
    all-reduce bytes; each GPU updates its 1/8 of the state, so the optimizer's time is 1/8
    of DDP's (LoRA, where DDP fits)."""
    hw = Hardware(gpu=A100, gpu_count=8)
    ddp = data_parallel_split(_workload(), hw)
    zero1 = data_parallel_split(_workload(parallelism=ZERO1), hw)
    assert ddp is not None
    assert zero1 is not None
    assert zero1.transfer_s == ddp.transfer_s
    assert zero1.compute_s == ddp.compute_s
    optimizer_ddp = ddp.step_s - ddp.micro_batches * max(ddp.compute_s, ddp.transfer_s)
    optimizer_zero1 = zero1.step_s - zero1.micro_batches * max(zero1.compute_s, zero1.transfer_s)
    assert optimizer_zero1 == pytest.approx(optimizer_ddp / 8)


def test_full_fine_tuning_computes_every_weight_gradient():
    """Full training is 2 + 4 FLOPs a weight a token against LoRA's 2 + 2: slower per token."""
    hw = Hardware(gpu=A100, gpu_count=8)
    lora = data_parallel_split(_workload(parallelism=FSDP), hw)
    full = data_parallel_split(_workload(parallelism=FSDP, full_finetune=True), hw)
    assert lora is not None
    assert full is not None
    assert full.compute_s / full.micro_batch > 1.2 * lora.compute_s / lora.micro_batch


def test_requests_choose_the_parallelism_and_reference_mode_refuses_it():
    body = {
        "workload": {"model": "llama-3.1-8b", "quant": "BF16", "mode": "refined",
                     "parallelism": "fsdp", "full_finetune": True, "seq_len": 2048},
        "hardware": {"gpu": "A100 80G", "gpu_count": 8},
    }  # fmt: skip
    result = simulate(parse_request(body))
    assert result.best.transfer_source == "interconnect"
    assert result.best.bubble_s == 0.0
    reference = {**body, "workload": {**body["workload"], "mode": "reference"}}
    with pytest.raises(EngineInputError) as error:
        simulate(parse_request(reference))
    assert error.value.field == "workload.parallelism"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"parallelism": "tensor"}, "workload.parallelism"),
        ({"parallelism": "zero3"}, "workload.parallelism"),
        ({"full_finetune": "yes"}, "workload.full_finetune"),
        ({"full_finetune": True, "quant": "NF4"}, "workload.full_finetune"),
        ({"optimizer": "sgd"}, "workload.optimizer"),
    ],
)
def test_bad_training_choices_name_their_field(change, field):
    body = {"workload": {"model": "llama-3.1-8b", "quant": "BF16", "mode": "refined", **change},
            "hardware": {"gpu": "A100 80G", "gpu_count": 2}}  # fmt: skip
    with pytest.raises(EngineInputError) as error:
        simulate(parse_request(body))
    assert error.value.field == field


def test_full_fine_tuning_on_a_pipeline_is_refused():
    w = _workload(full_finetune=True, parallelism="pipeline")
    request = SimulationRequest(workload=w, hardware=Hardware(gpu=A100, gpu_count=2))
    with pytest.raises(EngineInputError) as error:
        simulate(request)
    assert error.value.field == "workload.parallelism"

"""QLoRA pays a dequantization per use of each quantized base weight (docs/model.md,
"QLoRA"): the forward, the backward's dX and the checkpoint's recompute each read the stored
NF4 weight and write its BF16 copy."""

from dataclasses import replace

import pytest

from simulator.engine.formats.training import quant_format
from simulator.engine.hardware import GpuSpec, Hardware
from simulator.engine.model.layers import dense_layer, total_params
from simulator.engine.model.lora import LoraConfig
from simulator.engine.model.registry import load_model
from simulator.engine.train.compute import DEQUANT_BANDWIDTH_EFFICIENCY, dequant_seconds
from simulator.engine.train.refined import (
    ALL_REFINEMENTS,
    evaluate_refined,
    layer_dequant_s,
    stage_layers,
)
from simulator.engine.train.workload import MODE_REFINED, TrainWorkload
from simulator.engine.units import GIB

GPU = GpuSpec(name="4090", vram_gib=24.0, bf16_tflops=165.2, pcie_gbps=25.0, mem_gbps=1008.0)
HW = Hardware(gpu=GPU, ram_gib=64.0, pinned_gib=48.0)
MODEL = load_model("llama-3.1-8b")


def _workload(quant: str) -> TrainWorkload:
    return TrainWorkload(
        model=MODEL, quant=quant_format(quant), lora=LoraConfig(rank=16), seq_len=2048,
        max_micro_batch=2, mode=MODE_REFINED,
    )  # fmt: skip


def test_one_dequantization_reads_the_stored_layer_and_writes_bf16():
    plans = stage_layers(_workload("NF4"), 1, ALL_REFINEMENTS)
    params = total_params(dense_layer(MODEL))
    # q, o: 4096²; k, v: 4096·1024; gate, up, down: 4096·14336
    assert plans[0].params == params == 2 * 4096**2 + 2 * 4096 * 1024 + 3 * 4096 * 14336
    seconds = layer_dequant_s(plans, _workload("NF4"), GPU.mem_gbps, ALL_REFINEMENTS)
    expected = (plans[0].gib * GIB + 2 * params) / (1008e9 * DEQUANT_BANDWIDTH_EFFICIENCY)
    assert seconds[0] == pytest.approx(expected)
    assert seconds[0] == dequant_seconds(plans[0].gib * GIB, params, 1008.0)
    # about 0.70 ms a layer: NF4 at ~4.6 bits plus 2 bytes of BF16 a weight over 806 GB/s
    assert seconds[0] == pytest.approx(0.70e-3, rel=0.01)


def test_bf16_and_unknown_bandwidth_pay_nothing():
    bf16 = _workload("BF16")
    plans = stage_layers(bf16, 1, ALL_REFINEMENTS)
    assert set(layer_dequant_s(plans, bf16, 1008.0, ALL_REFINEMENTS)) == {0.0}
    nf4 = _workload("NF4")
    assert set(layer_dequant_s(plans, nf4, None, ALL_REFINEMENTS)) == {0.0}
    assert quant_format("NVFP4").dequantized_per_use is False
    assert quant_format("NF4").dequantized_per_use is True


@pytest.mark.parametrize("checkpointing", [True, False])
def test_a_micro_batch_pays_each_use_forward_backward_and_recompute(checkpointing):
    """All 32 layers resident on one GPU: the micro-batch with dequantization minus the one
    without is 3 uses of every layer with checkpointing (forward, dX, recompute), 2 without."""
    w = replace(_workload("NF4"), activation_checkpointing=checkpointing)
    plans = stage_layers(w, 1, ALL_REFINEMENTS)
    on = evaluate_refined(plans, w, HW, len(plans), ALL_REFINEMENTS)
    off = evaluate_refined(plans, w, HW, len(plans), replace(ALL_REFINEMENTS, dequantization=False))
    assert on is not None
    assert off is not None
    assert on.row.micro_batch == off.row.micro_batch
    uses = 3 if checkpointing else 2
    dequant = sum(layer_dequant_s(plans, w, GPU.mem_gbps, ALL_REFINEMENTS))
    assert on.row.compute_s - off.row.compute_s == pytest.approx(uses * dequant)
    assert on.row.tokens_per_s < off.row.tokens_per_s

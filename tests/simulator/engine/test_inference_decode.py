"""Decode and prefill from named sizes: weight and KV bytes over bandwidth, FLOPs over FLOPS."""

from dataclasses import replace

import numpy as np
import pytest

from simulator.engine import SimulationRequest
from simulator.engine.calibration.efficiency import load_efficiency
from simulator.engine.errors import EngineInputError
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.hardware import GPU_RESERVE_GIB, LLAMA_CPP, CpuSpec, GpuSpec, Hardware
from simulator.engine.model.registry import load_model
from simulator.engine.serve.decode import distinct_experts
from simulator.engine.serve.inference import InferenceResult, simulate_inference
from simulator.engine.serve.kv_cache import max_context
from simulator.engine.serve.workload import InferWorkload
from simulator.engine.sustained import bandwidth_shares
from simulator.engine.units import GB, GIB

RTOL = 1e-9
# Llama-3.1-8B config.json
HIDDEN, LAYERS, HEADS, KV_HEADS, HEAD_DIM, FFN, VOCAB = 4096, 32, 32, 8, 128, 14336, 128256
ATTENTION = LAYERS * (2 * HIDDEN * HEADS * HEAD_DIM + 2 * HIDDEN * KV_HEADS * HEAD_DIM)
MLP = LAYERS * 3 * HIDDEN * FFN  # gate, up, down
LM_HEAD = VOCAB * HIDDEN
BF16 = 2
KV_PER_TOKEN = LAYERS * 2 * KV_HEADS * HEAD_DIM * BF16
GPU_MEM_GBPS = 2000.0
GPU = GpuSpec(name="test GPU", vram_gib=80, mem_gbps=GPU_MEM_GBPS, bf16_tflops=400, pcie_gbps=44)
CPU = CpuSpec(name="test CPU", cores=32, mem_gbps=400, flops_per_core_cycle=64, ghz=3.0)
HARDWARE = Hardware(gpu=GPU, cpu=CPU, ram_gib=512, link_gbps=44)
# The shipped constants of the runtime a request without one gets on a GPU (llama.cpp).
GPU_CLASS = load_efficiency().device_class(None, "gpu")


def llama_8b(placement="gpu", *, context=8192, batch=1, prompt=1024, quant="BF16"):
    workload = InferWorkload(
        model=load_model("llama-3.1-8b"),
        quant=weight_scheme(quant),
        placement=placement,
        context=context,
        batch=batch,
        prompt_tokens=prompt,
        ubatch=512,
    )
    return simulate_inference(SimulationRequest(workload=workload, hardware=HARDWARE))


def test_decode_reads_every_dense_weight_and_the_kv_cache_once_per_token():
    context = 8192
    step = llama_8b(context=context).decode.locations[0]
    weights = (ATTENTION + MLP + LM_HEAD) * BF16 + HIDDEN * BF16  # + one embedding row
    # the runtime's share of what the memory sustains, a GPU without a measurement taking
    # the median measured share of the device table's GPUs
    bandwidth = GPU_MEM_GBPS * GB * GPU_CLASS.bandwidth_efficiency * bandwidth_shares()["discrete"]
    np.testing.assert_allclose(
        [step.weight_bytes, step.kv_bytes, step.memory_s, step.overhead_s],
        [
            weights,
            KV_PER_TOKEN * context,
            (weights + KV_PER_TOKEN * context) / bandwidth,
            LAYERS * GPU_CLASS.layer_overhead_s,
        ],
        rtol=RTOL,
    )


def test_a_batch_reads_the_weights_once_and_each_sequences_cache():
    one, four = llama_8b(batch=1).decode, llama_8b(batch=4).decode
    assert four.locations[0].weight_bytes == one.locations[0].weight_bytes
    assert four.locations[0].kv_bytes == 4 * one.locations[0].kv_bytes
    assert four.tokens_per_s > 3 * one.tokens_per_s


def test_a_batch_touches_more_distinct_experts_up_to_all_of_them():
    experts, per_token = 64, 4
    assert distinct_experts(experts, per_token, 1) == pytest.approx(per_token)
    assert distinct_experts(experts, per_token, 2) == pytest.approx(64 * (1 - (60 / 64) ** 2))
    assert distinct_experts(experts, per_token, 4096) == pytest.approx(experts)


@pytest.mark.parametrize("fraction", [1.0, 0.49, 0.2, 0.01])
def test_a_single_token_reads_its_k_experts_whatever_the_routing_pool(fraction):
    assert distinct_experts(128, 4, 1, fraction) == 4.0
    assert distinct_experts(64, 8, 1, fraction) == 8.0


def test_a_smaller_routing_pool_touches_fewer_experts_at_batch_32():
    experts, per_token = 128, 4  # gpt-oss-120b
    counts = [distinct_experts(experts, per_token, 32, f) for f in (1.0, 0.75, 0.49, 0.3, 0.2)]
    assert counts == sorted(counts, reverse=True)
    assert len(set(counts)) == len(counts)
    assert counts[0] == pytest.approx(128 * (1 - (124 / 128) ** 32))  # uniform: 81.7
    pool = 0.49 * 128
    assert counts[2] == pytest.approx(pool * (1 - (1 - 4 / pool) ** 32))  # 55.1
    # the pool never shrinks below the k experts one token reads
    assert distinct_experts(experts, per_token, 32, 0.01) == pytest.approx(per_token)


def _moe_decode(batch, fraction):
    workload = InferWorkload(
        model=load_model("gpt-oss-20b"), quant=weight_scheme("Q8_0"), placement="gpu", batch=batch
    )
    table = replace(load_efficiency(), routing_pool_fraction=fraction)
    return simulate_inference(SimulationRequest(workload=workload, hardware=HARDWARE), table)


def test_the_routing_pool_leaves_batch_1_decode_unchanged_and_speeds_up_batches():
    assert _moe_decode(1, 0.3).decode == _moe_decode(1, 1.0).decode
    narrow, uniform = _moe_decode(32, 0.3).decode, _moe_decode(32, 1.0).decode
    assert narrow.locations[0].weight_bytes < uniform.locations[0].weight_bytes
    assert narrow.tokens_per_s > uniform.tokens_per_s


def test_prefill_counts_two_flops_per_active_weight_and_causal_attention_pairs():
    prompt = 1024
    run = llama_8b(prompt=prompt).prefill
    linear = 2 * ((ATTENTION + MLP) * prompt + LM_HEAD)  # LM head for the last token only
    attention = 2 * HEADS * (HEAD_DIM + HEAD_DIM) * LAYERS * prompt * (prompt + 1) / 2
    peak = GPU.bf16_tflops * 1e12
    # GEMMs at the GEMM efficiency, attention at the attention kernels'
    seconds = linear / (peak * GPU_CLASS.flops_efficiency) + attention / (
        peak * GPU_CLASS.attention_flops_efficiency
    )
    np.testing.assert_allclose([run.flops, run.compute_s], [linear + attention, seconds], rtol=RTOL)


def test_cpu_decode_runs_at_cpu_ram_bandwidth():
    gpu, cpu = llama_8b("gpu").decode, llama_8b("cpu").decode
    assert cpu.locations[0].location == "cpu"
    assert cpu.tokens_per_s < gpu.tokens_per_s * CPU.mem_gbps / GPU_MEM_GBPS * 1.5


def test_hybrid_keeps_attention_and_cache_on_the_gpu_and_experts_in_cpu_ram():
    workload = InferWorkload(
        model=load_model("glm-4.7-flash"), quant=weight_scheme("Q8_0"), placement="hybrid"
    )
    result = simulate_inference(SimulationRequest(workload=workload, hardware=HARDWARE))
    gpu, cpu = result.placement.shares
    expert = 3 * 2048 * 1536  # gate, up, down of one routed expert
    moe_layers, experts = 46, 64
    assert cpu.stored_bytes == pytest.approx(moe_layers * experts * expert * 8.5 / 8)
    assert result.placement.kv_location == "gpu"
    assert result.decode.link_bytes == 46 * 2 * 2048 * 4  # f32 activations both ways
    assert cpu.location == "cpu"
    assert gpu.expert_layers == 0


def test_max_context_fills_the_free_vram_after_the_weights_up_to_the_trained_length():
    """Llama 3.1 8B Q4_0 leaves room for 524,640 tokens of cache on a 80 GB card, but its
    config.json's max_position_embeddings is 131,072: the largest context is that."""
    result = llama_8b(context=1024)
    usable = (GPU.vram_gib - GPU_RESERVE_GIB[LLAMA_CPP]) * GIB
    free = usable - result.placement.shares[0].stored_bytes
    assert int(free // KV_PER_TOKEN) == 524_640
    assert result.request.workload.model.trained_context == 131_072
    assert result.max_context == 131_072


def test_max_context_below_the_trained_length_is_what_fits():
    model = load_model("llama-3.1-8b")
    assert max_context(10 * 2**30, KV_PER_TOKEN, model=model) == 10 * 2**30 // KV_PER_TOKEN


def test_a_context_beyond_the_vram_names_the_gpu_memory():
    with pytest.raises(EngineInputError) as error:
        llama_8b(context=2_000_000)
    assert error.value.field == "hardware.gpu.vram_gib"


def test_hybrid_needs_a_moe_model():
    with pytest.raises(EngineInputError) as error:
        llama_8b("hybrid")
    assert error.value.field == "workload.placement"


def test_the_cpu_holds_what_the_os_leaves_of_the_ram():
    """Seed 000's host keeps 6 GiB of 32 (8 of 64 and 128, 8 otherwise) for the operating
    system: Llama 3.1 8B in BF16 (15.0 GiB of weights) fits a 32 GiB machine's 26, not a 16
    GiB machine's 8, where llama.cpp would page weights in from storage."""
    workload = InferWorkload(
        model=load_model("llama-3.1-8b"), quant=weight_scheme("BF16"), placement="cpu",
        context=1024, batch=1, prompt_tokens=128, ubatch=512,
    )  # fmt: skip

    def on(ram_gib: float) -> InferenceResult:
        hardware = Hardware(cpu=CPU, ram_gib=ram_gib)
        return simulate_inference(SimulationRequest(workload=workload, hardware=hardware))

    weights_gib = on(32).placement.shares[0].stored_bytes / GIB
    assert 8 < weights_gib < 26
    with pytest.raises(EngineInputError) as error:
        on(16)
    assert error.value.field == "hardware.ram_gib"
    assert "has 8.0 GB usable" in error.value.message

"""Laws of decode speed (Hypothesis): bandwidth never hurts, context never helps."""

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.engine import InferWorkload, SimulationRequest
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.hardware import CpuSpec, GpuSpec, Hardware, UnifiedSpec
from simulator.engine.model.registry import load_model
from simulator.engine.serve.inference import simulate_inference

ROUNDING = 1e-12
MODELS = st.sampled_from(["glm-4.7-flash", "llama-3.1-8b", "mixtral-8x7b", "qwen3-235b-a22b"])
PLACEMENTS = st.sampled_from(["gpu", "cpu", "unified", "hybrid"])
QUANTS = st.sampled_from(["Q4_K_M", "IQ2_XXS", "Q8_0+IQ4_XS", "NVFP4"])


def hardware(gpu_gbps, cpu_gbps, unified_gbps):
    return Hardware(
        gpu=GpuSpec(name="g", vram_gib=4096, mem_gbps=gpu_gbps, bf16_tflops=300, pcie_gbps=44),
        cpu=CpuSpec(name="c", cores=16, mem_gbps=cpu_gbps, flops_per_core_cycle=64, ghz=4),
        unified=UnifiedSpec(name="u", mem_gib=8192, mem_gbps=unified_gbps, tflops=30),
        ram_gib=4096,
        link_gbps=32,
    )


def decode_tokens_per_s(model, placement, quant, hw, context, batch=1):
    if placement == "hybrid" and model == "llama-3.1-8b":
        placement = "gpu"
    workload = InferWorkload(
        model=load_model(model),
        quant=weight_scheme(quant),
        placement=placement,
        context=context,
        batch=batch,
    )
    return simulate_inference(SimulationRequest(workload=workload, hardware=hw)).decode.tokens_per_s


bandwidths = st.tuples(st.floats(50, 8000), st.floats(20, 1500), st.floats(50, 1500))


@settings(max_examples=150, deadline=None)
@given(MODELS, PLACEMENTS, QUANTS, bandwidths, st.floats(1.01, 4.0), st.integers(1, 131072))
def test_more_bandwidth_never_slows_decode(model, placement, quant, gbps, factor, context):
    slow = hardware(*gbps)
    fast = hardware(*(g * factor for g in gbps))
    before = decode_tokens_per_s(model, placement, quant, slow, context)
    after = decode_tokens_per_s(model, placement, quant, fast, context)
    assert after >= before * (1 - ROUNDING)


@settings(max_examples=150, deadline=None)
@given(
    MODELS,
    PLACEMENTS,
    QUANTS,
    bandwidths,
    st.integers(1, 65536),
    st.integers(1, 65536),
    st.integers(1, 8),
)
def test_longer_context_never_speeds_decode(model, placement, quant, gbps, context, extra, batch):
    hw = hardware(*gbps)
    short = decode_tokens_per_s(model, placement, quant, hw, context, batch)
    long = decode_tokens_per_s(model, placement, quant, hw, context + extra, batch)
    assert long <= short * (1 + ROUNDING)


@settings(max_examples=60, deadline=None)
@given(MODELS, QUANTS, st.floats(1.01, 4.0))
def test_a_faster_link_never_slows_hybrid_decode(model, quant, factor):
    hw = hardware(1000, 200, 400)
    quicker = replace(hw, link_gbps=hw.link_gbps * factor)
    placement = "gpu" if model == "llama-3.1-8b" else "hybrid"
    before = decode_tokens_per_s(model, placement, quant, hw, 4096)
    assert decode_tokens_per_s(model, placement, quant, quicker, 4096) >= before

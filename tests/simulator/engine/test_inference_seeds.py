"""Predictions against the measurements of seeds 001–003 (issue 7's validation table).

Hardware figures are datasheet constants named with their source; the device-class constants
(infer_hardware.DEVICE_CLASSES) are the same for every row. docs/model.md, "Inference", has
the table these tests pin.
"""

import statistics

import pytest

from simulator.engine import InferWorkload, SimulationRequest
from simulator.engine.calibration.efficiency import IK_LLAMA_CPP, METAL_MARLIN
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.hardware import CpuSpec, GpuSpec, Hardware, UnifiedSpec
from simulator.engine.model.registry import load_model
from simulator.engine.serve.inference import simulate_inference
from simulator.engine.units import GB

EVERY_ROW_RTOL = 0.35  # issue 7: every prediction within 35 %
MEDIAN_RTOL = 0.20  # issue 7: median within 20 %

# NVIDIA RTX PRO 6000 Blackwell Max-Q datasheet: 96 GB GDDR7, 512-bit, 1792 GB/s.
RTX_PRO_6000_MEM_GBPS = 1792.0
RTX_PRO_6000_BF16_TFLOPS = 300.0  # seed 000's GPU table (hardware.SEED_GPUS)
PCIE_GEN5_X16_GBPS = 44.0  # effective, hardware.PCIE_GEN5_X16_GBPS
# AMD EPYC 9175F: 16 Zen 5 cores, 4.2 GHz base, 12 × DDR5-6400 (12 × 6400 MT/s × 8 B).
EPYC_9175F_CORES, EPYC_9175F_GHZ = 16, 4.2
DDR5_6400_12CH_GBPS = 12 * 6400 * 8 / 1000
ZEN5_FLOPS_PER_CYCLE = 2 * 16 * 2  # two 512-bit FMA pipes × 16 FP32 lanes × 2 FLOPs
# NVIDIA Quadro RTX 8000 datasheet: 48 GB GDDR6, 672 GB/s, 130.5 TFLOPS tensor (FP16).
RTX_8000_VRAM_GB, RTX_8000_MEM_GBPS, RTX_8000_TFLOPS = 48.0, 672.0, 130.5
PCIE_GEN3_X16_GBPS = 11.0  # half the engine's effective Gen4 ×16 (22 GB/s)
# AMD EPYC 7763: 64 Zen 3 cores, 2.45 GHz base, 8 × DDR4-3200.
EPYC_7763_CORES, EPYC_7763_GHZ = 64, 2.45
DDR4_3200_8CH_GBPS = 8 * 3200 * 8 / 1000
ZEN3_FLOPS_PER_CYCLE = 2 * 8 * 2  # two 256-bit FMA pipes × 8 FP32 lanes × 2 FLOPs
# Apple M4 Max (16-core CPU, 40-core GPU): 546 GB/s; GPU FP32 40 cores × 128 ALUs × 2 × 1.578 GHz.
M4_MAX_MEM_GBPS, M4_MAX_TFLOPS, M4_MAX_MEM_GB = 546.0, 16.2, 128.0

SEED_003_CONTEXT = 32768  # the first request's 31,151-token prompt plus its output, rounded
SEED_003_PROMPT = 31151  # the "Max PP speed" request
SEED_003_UBATCH = 2048  # -ub 2048
SEED_002_OFFLOAD_FROM = 29  # --override-tensor "blk\.(29|[3-9][0-9])\.ffn_(up|gate|down)_exps"
SEED_002_UBATCH = 4096  # --ubatch-size 4096
SEED_002_TG_TOKENS = 1024  # each TG row generates 1024 tokens after N_KV
SEED_001_CONTEXT = 2048

SEED_003_HARDWARE = Hardware(
    gpu=GpuSpec(
        name="RTX PRO 6000 Blackwell Max-Q",
        vram_gib=96,
        mem_gbps=RTX_PRO_6000_MEM_GBPS,
        bf16_tflops=RTX_PRO_6000_BF16_TFLOPS,
        pcie_gbps=PCIE_GEN5_X16_GBPS,
    ),
    cpu=CpuSpec(
        name="EPYC 9175F",
        cores=EPYC_9175F_CORES,
        mem_gbps=DDR5_6400_12CH_GBPS,
        flops_per_core_cycle=ZEN5_FLOPS_PER_CYCLE,
        ghz=EPYC_9175F_GHZ,
    ),
    ram_gib=768,
    link_gbps=PCIE_GEN5_X16_GBPS,
)
SEED_002_HARDWARE = Hardware(
    gpu=GpuSpec(
        name="Quadro RTX 8000",
        vram_gib=RTX_8000_VRAM_GB,
        mem_gbps=RTX_8000_MEM_GBPS,
        bf16_tflops=RTX_8000_TFLOPS,
        pcie_gbps=PCIE_GEN3_X16_GBPS,
    ),
    gpu_count=2,
    cpu=CpuSpec(
        name="EPYC 7763",
        cores=EPYC_7763_CORES,
        mem_gbps=DDR4_3200_8CH_GBPS,
        flops_per_core_cycle=ZEN3_FLOPS_PER_CYCLE,
        ghz=EPYC_7763_GHZ,
    ),
    ram_gib=512,
    link_gbps=PCIE_GEN3_X16_GBPS,
)
SEED_001_HARDWARE = Hardware(
    unified=UnifiedSpec(
        name="M4 Max", mem_gib=M4_MAX_MEM_GB, mem_gbps=M4_MAX_MEM_GBPS, tflops=M4_MAX_TFLOPS
    )
)
# Seed 001's format: trellis 3 bpw on the expert shapes it benchmarks; the rest BF16.
SEED_001_QUANT = {"default": "BF16", "experts": "TRELLIS3"}


def seed_003(placement):
    workload = InferWorkload(
        model=load_model("glm-4.7-flash"),
        quant=weight_scheme("IQ5_K"),
        placement=placement,
        context=SEED_003_CONTEXT,
        prompt_tokens=SEED_003_PROMPT,
        ubatch=SEED_003_UBATCH,
        runtime=IK_LLAMA_CPP,  # seed 003 runs ik_llama.cpp (its IQ5_K is an ik_llama type)
    )
    return simulate_inference(SimulationRequest(workload=workload, hardware=SEED_003_HARDWARE))


def seed_002(n_kv):
    workload = InferWorkload(
        model=load_model("glm-4.7"),
        quant=weight_scheme("Q4_K_M"),
        placement="hybrid",
        context=n_kv + SEED_002_TG_TOKENS // 2,  # the mean context of the 1024 TG tokens
        prompt_tokens=4096,
        ubatch=SEED_002_UBATCH,
        offload_from_layer=SEED_002_OFFLOAD_FROM,
    )
    return simulate_inference(SimulationRequest(workload=workload, hardware=SEED_002_HARDWARE))


def seed_001():
    workload = InferWorkload(
        model=load_model("glm-4.7-flash"),
        quant=weight_scheme(SEED_001_QUANT),
        placement="unified",
        context=SEED_001_CONTEXT,
        runtime=METAL_MARLIN,  # seed 001's fused trellis kernels: their own runtime family
    )
    return simulate_inference(SimulationRequest(workload=workload, hardware=SEED_001_HARDWARE))


def validated_rows():
    """(name, predicted, measured) for every row the target covers."""
    cpu, hybrid, gpu = seed_003("cpu"), seed_003("hybrid"), seed_003("gpu")
    at_0, at_32k = seed_002(0), seed_002(32768)
    return [
        ("001 M4 Max decode", seed_001().decode.tokens_per_s, 5.4),
        ("003 CPU-only decode", cpu.decode.tokens_per_s, 20.23),
        ("003 CPU-only prefill", cpu.prefill.tokens_per_s, 100.32),
        ("003 hybrid decode", hybrid.decode.tokens_per_s, 66.84),
        ("003 hybrid prefill", hybrid.prefill.tokens_per_s, 1635.35),
        ("003 full GPU decode", gpu.decode.tokens_per_s, 99.42),
        ("003 full GPU prefill", gpu.prefill.tokens_per_s, 3723.34),
        ("002 decode at 0", at_0.decode.tokens_per_s, 11.22),
        ("002 decode at 32k", at_32k.decode.tokens_per_s, 9.04),
        ("002 slowdown 32k/0", at_32k.decode.tokens_per_s / at_0.decode.tokens_per_s, 9.04 / 11.22),
        ("002 prefill 4096", at_0.prefill.tokens_per_s, 218.32),
    ]


ROWS = validated_rows()


@pytest.mark.parametrize(("name", "predicted", "measured"), ROWS, ids=[r[0] for r in ROWS])
def test_every_prediction_is_within_35_percent(name, predicted, measured):
    assert predicted == pytest.approx(measured, rel=EVERY_ROW_RTOL)


def test_the_median_error_is_within_20_percent():
    errors = [abs(predicted / measured - 1) for _, predicted, measured in ROWS]
    assert statistics.median(errors) <= MEDIAN_RTOL


def test_hybrid_lands_between_cpu_only_and_full_gpu_as_in_seed_003():
    speeds = [seed_003(p).decode.tokens_per_s for p in ("cpu", "hybrid", "gpu")]
    assert speeds == sorted(speeds)


def test_seed_002s_decode_slows_with_context_because_the_kv_cache_grows():
    at_0, at_32k = seed_002(0), seed_002(32768)
    assert at_32k.decode.locations[0].kv_bytes > at_0.decode.locations[0].kv_bytes
    assert at_32k.decode.tokens_per_s < at_0.decode.tokens_per_s


def test_seed_001s_weights_come_within_15_percent_of_its_16_93_gb():
    stored = seed_001().placement.shares[0].stored_bytes
    assert stored / GB == pytest.approx(16.93, rel=0.15)


def test_seed_001s_decode_is_bound_by_one_fused_dispatch_per_layer():
    """Seed 001 runs the Metal Marlin trellis kernels. Nothing is fitted on its decode figure:
    the Apple class's constants (llama.cpp-metal, corpus rows H021–H031) plus one fused
    dispatch per layer from its own kernel table (efficiency.METAL_MARLIN_DISPATCH_S); the
    figure itself is checked with the others in test_every_prediction_is_within_35_percent."""
    assert seed_001().decode.bottleneck == "unified per-layer overhead"


def test_llama_cpp_on_the_same_m4_max_is_several_times_faster_than_seed_001s_runtime():
    metal = InferWorkload(
        model=load_model("glm-4.7-flash"),
        quant=weight_scheme(SEED_001_QUANT),
        placement="unified",
        context=SEED_001_CONTEXT,
    )
    request = SimulationRequest(workload=metal, hardware=SEED_001_HARDWARE)
    assert simulate_inference(request).decode.tokens_per_s > 5 * seed_001().decode.tokens_per_s

"""llama.cpp's layer split pipelines a prompt's micro-batches over the GPUs (PR #6017): the
prefill of a long prompt on G GPUs takes (m + G − 1) stage times, not m · G."""

import pytest

from simulator.engine import SimulationRequest
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.hardware import GpuSpec, Hardware
from simulator.engine.model.registry import load_model
from simulator.engine.serve.inference import simulate_inference
from simulator.engine.serve.prefill import (
    LLAMA_CPP_N_BATCH,
    SCHED_MAX_COPIES,
    layer_split_pipeline_factor,
)
from simulator.engine.serve.workload import InferWorkload

GPU = GpuSpec(name="t", vram_gib=48.0, bf16_tflops=150.0, pcie_gbps=25.0, mem_gbps=900.0)
LLAMA_70B = load_model("llama-3.1-70b")


@pytest.mark.parametrize(
    ("tokens", "ubatch", "gpus", "factor"),
    [
        (512, 512, 2, 1.0),  # one micro-batch: nothing to overlap
        (2048, 512, 2, 5 / 8),  # m = 4: 4 + 2 − 1 stage times of the 8 at one GPU's pace
        (2048, 512, 4, 7 / 16),
        (2048, 512, 8, 11 / 32),
        (2048, 128, 8, (128 / SCHED_MAX_COPIES) / 128),  # 16 micro-batches, 4 in flight
        (8192, 512, 2, 5 / 8),  # in batches of n_batch = 2048 tokens
        (2048, 2048, 8, 1.0),
    ],
)
def test_the_factor_counts_stage_times(tokens: int, ubatch: int, gpus: int, factor: float) -> None:
    assert LLAMA_CPP_N_BATCH == 2048
    assert layer_split_pipeline_factor(tokens, ubatch, gpus) == pytest.approx(factor)


def _prefill_tokens_per_s(gpus: int, runtime: str | None, tp: int = 1) -> float:
    w = InferWorkload(
        model=LLAMA_70B, quant=weight_scheme("Q4_K_M"), placement="gpu", context=2048,
        prompt_tokens=2048, runtime=runtime, tensor_parallel=tp,
    )  # fmt: skip
    hw = Hardware(gpu=GPU, gpu_count=gpus, ram_gib=0.0, link_gbps=25.0)
    return simulate_inference(SimulationRequest(workload=w, hardware=hw)).prefill.tokens_per_s


def test_llama_cpp_prefill_on_two_gpus_runs_at_the_pipelines_pace() -> None:
    one_pace = _prefill_tokens_per_s(2, "vllm")  # no pipeline: one GPU's pace
    assert _prefill_tokens_per_s(2, None) > one_pace  # llama.cpp, the default runtime
    run = simulate_inference(
        SimulationRequest(
            workload=InferWorkload(model=LLAMA_70B, quant=weight_scheme("Q4_K_M"),
                                   placement="gpu", context=2048, prompt_tokens=2048),
            hardware=Hardware(gpu=GPU, gpu_count=2, ram_gib=0.0, link_gbps=25.0),
        )
    )  # fmt: skip
    assert run.prefill.pipeline_factor == pytest.approx(5 / 8)

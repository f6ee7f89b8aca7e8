"""llama.cpp's layer split pipelines a prompt's micro-batches over the GPUs (PR #6017): the
prefill of a long prompt on G GPUs takes (m + G − 1) stage times, not m · G."""

from dataclasses import replace

import pytest

from simulator.engine import SimulationRequest
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.hardware import GpuSpec, Hardware
from simulator.engine.model.registry import load_model
from simulator.engine.serve.inference import simulate_inference
from simulator.engine.serve.prefill import (
    LLAMA_CPP_N_BATCH,
    SCHED_MAX_COPIES,
    PrefillRun,
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


def test_llama_cpp_prefill_on_two_gpus_runs_at_the_pipelines_pace() -> None:
    workload = InferWorkload(model=LLAMA_70B, quant=weight_scheme("Q4_K_M"), placement="gpu",
                             context=2048, prompt_tokens=2048)  # fmt: skip
    hardware = Hardware(gpu=GPU, gpu_count=2, ram_gib=0.0, link_gbps=25.0)

    def prefill(runtime: str | None) -> PrefillRun:
        request = SimulationRequest(workload=replace(workload, runtime=runtime), hardware=hardware)
        return simulate_inference(request).prefill

    pipelined = prefill(None)  # llama.cpp, NVIDIA's default runtime
    assert pipelined.pipeline_factor == pytest.approx(5 / 8)
    one_pace = replace(pipelined, pipeline_factor=1.0)  # the same work, no overlap
    assert pipelined.tokens_per_s == pytest.approx(one_pace.tokens_per_s * 8 / 5)
    assert prefill("vllm").pipeline_factor == 1.0  # vLLM does not pipeline a layer split

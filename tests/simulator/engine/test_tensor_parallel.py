"""Tensor parallelism and concurrent requests in serving (docs/model.md, "Tensor parallelism
and concurrent requests")."""

from dataclasses import replace
from typing import Any

import pytest

from simulator.engine import SimulationRequest, parse_request, simulate
from simulator.engine.calibration.corpus import row_from_json
from simulator.engine.calibration.predict import predict_row
from simulator.engine.calibration.setups import InferSetup, row_setup
from simulator.engine.errors import EngineInputError
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.hardware import GpuSpec, Hardware
from simulator.engine.model.registry import load_model
from simulator.engine.serve.hardware import tensor_parallel_allreduce_s
from simulator.engine.serve.inference import InferenceResult, simulate_inference
from simulator.engine.serve.workload import InferWorkload

GPU = GpuSpec(name="t", vram_gib=80.0, bf16_tflops=400.0, pcie_gbps=50.0, mem_gbps=2000.0)
LLAMA_70B = load_model("llama-3.1-70b")


def _run(tp: int, batch: int = 1, **hardware: Any) -> InferenceResult:
    workload = InferWorkload(
        model=LLAMA_70B, quant=weight_scheme("Q4_0"), placement="gpu", batch=batch,
        tensor_parallel=tp, context=1024, prompt_tokens=512,
    )  # fmt: skip
    hw = Hardware(gpu=GPU, gpu_count=4, **hardware)
    return simulate_inference(SimulationRequest(workload=workload, hardware=hw))


def test_an_all_reduce_moves_two_thirds_of_the_hidden_states_twice_a_layer():
    """T = 4: a ring all-reduce sends 2·3/4 of the message through each GPU's link; 80
    layers × 2; one token of 8,192 BF16 values (16 KiB) over 50 GB/s."""
    seconds = tensor_parallel_allreduce_s(
        layers=80, hidden_size=8192, tokens=1, tensor_parallel=4, link_gbps=50.0
    )
    assert seconds == pytest.approx(2 * 80 * (2 * 3 / 4 * 8192 * 2) / 50e9)
    assert (
        tensor_parallel_allreduce_s(
            layers=80, hidden_size=8192, tokens=1, tensor_parallel=1, link_gbps=50.0
        )
        == 0.0
    )


def test_four_way_tensor_parallel_reads_with_four_gpus_bandwidth():
    split, tp = _run(1), _run(4)
    split_memory = sum(step.memory_s for step in split.decode.locations)
    tp_memory = sum(step.memory_s for step in tp.decode.locations)
    assert tp_memory == pytest.approx(split_memory / 4)
    assert tp.decode.allreduce_s > 0
    assert split.decode.allreduce_s == 0
    # bytes and FLOPs split four ways; the per-layer fixed cost (kernel launches) does not,
    # and the all-reduces add: less than 4x
    split_compute = sum(step.compute_s for step in split.decode.locations)
    overhead = sum(step.overhead_s for step in split.decode.locations)
    assert tp.decode.step_s == pytest.approx(
        (split_memory + split_compute) / 4 + overhead + tp.decode.allreduce_s
    )
    assert split.decode.tokens_per_s < tp.decode.tokens_per_s < 4 * split.decode.tokens_per_s
    nvlink = _run(4, interconnect_gbps=450.0)
    assert nvlink.decode.allreduce_s == pytest.approx(tp.decode.allreduce_s * 50 / 450)


@pytest.mark.parametrize(("tp", "count", "placement"), [(3, 4, "gpu"), (2, 2, "hybrid")])
def test_a_tensor_parallel_size_that_does_not_fit_is_refused(tp, count, placement):
    body = {"workload": {"kind": "infer", "model": "llama-3.1-8b", "quant": "Q4_0",
                         "placement": placement, "tensor_parallel": tp},
            "hardware": {"gpu": "RTX 4090", "gpu_count": count, "cpu": "EPYC 9124",
                         "ram_gb": 128}}  # fmt: skip
    with pytest.raises(EngineInputError) as error:
        simulate(parse_request(body))
    assert error.value.field == "workload.tensor_parallel"


def test_a_serving_row_is_prefill_of_every_prompt_then_the_batched_decode():
    """64 concurrent requests of 2,000 in / 200 out: output tokens over 64·2,000 / prefill rate
    plus 200 decode steps of 64 sequences at 2,100 tokens of context."""
    row = row_from_json(
        {"id": "T1", "category": "serving_concurrent", "engine": "vLLM 0.9 (TP 4)",
         "hardware": {"gpu": "H100 NVL", "gpu_count": 4}, "model": "Llama 3.1 70B",
         "quant": "BF16", "metric": "output token throughput", "value": 2000.0,
         "unit": "tok/s", "source": {"url": "https://example.org/bench"},
         "workload": {"phase": "serving", "prompt_tokens": 2000, "gen_tokens": 200,
                      "max_concurrency": 64}},
        "rows[0]",
    )  # fmt: skip
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    w = setup.request.workload
    assert (w.batch, w.tensor_parallel, w.context, w.prompt_tokens) == (64, 4, 2200, 2000)
    assert w.output_tokens == 200
    mean = replace(w, context=2100, output_tokens=None)  # the requests' mean context
    run = simulate_inference(replace(setup.request, workload=mean))
    expected = 64 * 200 / (64 * 2000 / run.prefill.tokens_per_s + 200 * run.decode.step_s)
    assert predict_row(row).predicted == pytest.approx(expected)
    total = predict_row(replace(row, metric="total token throughput")).predicted
    assert total == pytest.approx(expected * 2200 / 200)

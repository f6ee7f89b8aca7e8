"""Training state offloaded to host RAM (docs/model.md, "Offload to host RAM";
train/offload.py): ZeRO-Offload's optimizer on the CPU, and the weights too under FSDP/ZeRO-3."""

from dataclasses import replace
from typing import Any

import pytest

from simulator.engine import parse_request
from simulator.engine.errors import EngineInputError
from simulator.engine.formats.training import quant_format
from simulator.engine.hardware import CpuSpec, GpuSpec, Hardware
from simulator.engine.io.train_result import train_request_to_json
from simulator.engine.model.layers import embedding_params
from simulator.engine.model.lora import LoraConfig
from simulator.engine.model.registry import load_model
from simulator.engine.simulate import simulate
from simulator.engine.train.data_parallel import (
    OPTIMIZER_STATE_BYTES,
    data_parallel_need_gib,
    data_parallel_split,
    trained_params,
)
from simulator.engine.train.offload import HOST_STREAM_EFFICIENCY
from simulator.engine.train.refined import ALL_REFINEMENTS, stage_layers
from simulator.engine.train.workload import (
    DDP,
    FSDP,
    MODE_REFINED,
    OFFLOAD_OPTIMIZER,
    OFFLOAD_PARAMETERS,
    ZERO2,
    TrainWorkload,
)
from simulator.engine.units import GB, GIB

# An RTX 4090 on a Ryzen 9 7950X (2 channels of DDR5-5200: 83.2 GB/s), the device table's
# figures, so every number below is derived from named quantities.
RTX_4090 = GpuSpec(
    name="RTX 4090", vram_gib=24.0, bf16_tflops=165.2, pcie_gbps=25.0, mem_gbps=1008.0
)
A100 = GpuSpec(name="A100", vram_gib=80.0, bf16_tflops=312.0, pcie_gbps=25.0, mem_gbps=2039.0)
RYZEN = CpuSpec(name="Ryzen 9 7950X", cores=16, mem_gbps=83.2, flops_per_core_cycle=32.0, ghz=4.5)
MODEL = load_model("qwen2.5-3b")


def _workload(**changes: Any) -> TrainWorkload:
    base = TrainWorkload(
        model=MODEL, quant=quant_format("BF16"), lora=LoraConfig(rank=16), seq_len=1024,
        max_micro_batch=4, micro_batches=8, mode=MODE_REFINED, parallelism=DDP,
        full_finetune=True,
    )  # fmt: skip
    return replace(base, **changes)


def _hardware(gpu: GpuSpec = A100, **changes: Any) -> Hardware:
    return replace(Hardware(gpu=gpu, cpu=RYZEN, ram_gib=256.0, pinned_gib=240.0), **changes)


def _trained() -> float:
    return trained_params(_workload(), stage_layers(_workload(), 1, ALL_REFINEMENTS))


def test_the_cpu_runs_the_update_at_the_hosts_bandwidth():
    """The same micro-batches; the update moves from the GPU's HBM to host RAM: each trained
    weight's state (2 + 12 B) and BF16 copy read and written once, 32 B a weight, at 70 % of
    83.2 GB/s, then the updated BF16 weights (2 B each) back over the 25 GB/s PCIe."""
    on_gpu = data_parallel_split(_workload(), _hardware())
    offloaded = data_parallel_split(_workload(offload=OFFLOAD_OPTIMIZER), _hardware())
    assert on_gpu is not None
    assert offloaded is not None
    assert offloaded.micro_batch == on_gpu.micro_batch == 4
    assert offloaded.compute_s == pytest.approx(on_gpu.compute_s)
    trained = _trained()
    state = OPTIMIZER_STATE_BYTES["adamw"] + 2
    gpu_update = 2 * state * trained / (2039.0 * GB * 0.8)  # A100's HBM at STREAM_EFFICIENCY
    host_update = 2 * state * trained / (RYZEN.mem_gbps * GB * HOST_STREAM_EFFICIENCY)
    weights_back = 2 * trained / (A100.pcie_gbps * GB)
    assert state == 16
    assert offloaded.step_s - on_gpu.step_s == pytest.approx(
        host_update + weights_back - gpu_update, rel=1e-9
    )
    # Qwen2.5-3B: 2.77 B weights in its 36 layers and 0.31 B in its tied embedding (151,936 ×
    # 2,048), 99 GB of update traffic, 1.7 s of the host
    assert trained == pytest.approx(2.77e9 + 151_936 * 2048, rel=0.01)
    assert host_update == pytest.approx(1.70, abs=0.01)


def test_offload_fits_a_full_fine_tune_on_a_24_gb_card():
    """Full fine-tuning Qwen2.5-3B keeps 16 B a weight on the GPU (weights, gradient, Adam):
    about 46 GB, more than an RTX 4090 holds; offloaded, the GPU keeps the 2 B weights."""
    hw = _hardware(gpu=RTX_4090)
    assert data_parallel_split(_workload(), hw) is None
    run = data_parallel_split(_workload(offload=OFFLOAD_OPTIMIZER), hw)
    assert run is not None
    held = data_parallel_need_gib(_workload(offload=OFFLOAD_OPTIMIZER), hw, ALL_REFINEMENTS, 0)
    weights_gib = sum(p.gib for p in stage_layers(_workload(), 1, ALL_REFINEMENTS))
    embedding_gib = 2 * embedding_params(MODEL) / GIB
    assert held == pytest.approx(weights_gib + embedding_gib + 2.5, abs=0.01)  # + the reserve


def test_the_weights_offload_copies_each_use_over_pcie():
    """FSDP with the weights in host RAM: each micro-batch copies every layer's weights for
    each use (forward, recompute, backward: 3) through the PCIe link, and the gradients out;
    with a small batch that copy, not the compute, sets the micro-batch."""
    w = _workload(parallelism=FSDP, offload=OFFLOAD_PARAMETERS, max_micro_batch=1)
    run = data_parallel_split(w, _hardware())
    assert run is not None
    weights = sum(p.gib for p in stage_layers(w, 1, ALL_REFINEMENTS)) * GIB
    # every layer for each use, the root unit's embedding once, the gradients out
    copies = (3 * weights + 2 * embedding_params(MODEL) + 2 * _trained()) / (A100.pcie_gbps * GB)
    assert run.bottleneck == "pcie"
    micro = (run.step_s - _update_s(w)) / 8  # the workload's micro-batches
    assert micro == pytest.approx(copies, rel=1e-9)


def _update_s(w: TrainWorkload) -> float:
    trained = _trained()
    host = 2 * 16 * trained / (RYZEN.mem_gbps * GB * HOST_STREAM_EFFICIENCY)
    return host + 2 * trained / (A100.pcie_gbps * GB)


def test_every_ranks_update_shares_the_one_host():
    """Eight GPUs under ZeRO-2 each update 1/8 of the state, all on one host at once: the
    host streams the whole state, so the update takes as long as on one GPU's host."""
    w = _workload(parallelism=ZERO2, offload=OFFLOAD_OPTIMIZER)
    one = data_parallel_split(w, _hardware())
    eight = data_parallel_split(w, _hardware(gpu_count=8))
    assert one is not None
    assert eight is not None
    host = 2 * 16 * _trained() / (RYZEN.mem_gbps * GB * HOST_STREAM_EFFICIENCY)
    for run, gpus in ((one, 1), (eight, 8)):
        assert run.bottleneck == "compute"
        weights_back = 2 * _trained() / gpus / (A100.pcie_gbps * GB)
        assert run.step_s - run.compute_s == pytest.approx(host + weights_back, rel=1e-9)


@pytest.mark.parametrize(
    ("changes", "hardware", "field", "words"),
    [
        ({"parallelism": "pipeline"}, {}, "workload.offload", "data parallelism"),
        ({"offload": "parameters"}, {}, "workload.offload", "'fsdp'"),
        ({}, {"cpu": None}, "hardware.cpu", "memory bandwidth"),
        ({}, {"ram_gb": 32}, "hardware.ram_gb", "host RAM for the offloaded training state"),
        (
            {
                "mode": "reference",
                "parallelism": "pipeline",
                "full_finetune": False,
                "quant": "NF4",
            },
            {},
            "workload.offload",
            "reference mode",
        ),
        ({"offload": "nvme"}, {}, "workload.offload", "none"),
    ],
)
def test_requests_that_cannot_offload_are_refused(changes, hardware, field, words):
    body = {
        "workload": {
            "kind": "train", "model": "qwen2.5-3b", "quant": "BF16", "full_finetune": True,
            "parallelism": "ddp", "mode": "refined", "offload": "optimizer", **changes,
        },
        "hardware": {"gpu": "RTX 4090", "cpu": "Ryzen 9 7950X", "ram_gb": 128, **hardware},
    }  # fmt: skip
    body["hardware"] = {k: v for k, v in body["hardware"].items() if v is not None}
    with pytest.raises(EngineInputError) as raised:
        simulate(parse_request(body))
    assert raised.value.field == field
    assert words in raised.value.message


def test_a_request_names_its_offload_and_the_run_says_what_it_waits_on():
    body = {
        "workload": {
            "kind": "train", "model": "qwen2.5-7b", "quant": "BF16", "full_finetune": True,
            "parallelism": "fsdp", "mode": "refined", "offload": "parameters",
            "max_micro_batch": 16,
        },
        "hardware": {"gpu": "RTX 4090", "cpu": "Ryzen 9 7950X", "ram_gb": 192},
    }  # fmt: skip
    result = simulate(parse_request(body))
    assert result.request.workload.offload == OFFLOAD_PARAMETERS
    assert result.best.micro_batch == 16
    assert result.best.tokens_per_s > 0
    assert result.best.bottleneck in ("compute", "pcie")


def test_the_normalized_request_keeps_the_offload_and_tensor_split():
    """Two requests differing only in offload (or tensor parallelism) are two runs: the stored
    request body, which identifies a run, keeps both and reads them back."""
    body = {
        "workload": {
            "kind": "train", "model": "llama-3.1-8b", "quant": "BF16", "full_finetune": True,
            "parallelism": "fsdp", "mode": "refined", "offload": "parameters",
            "tensor_parallel": 2,
        },
        "hardware": {"gpu": "A100 80G", "gpu_count": 4, "cpu": "EPYC 7763", "ram_gb": 512},
    }  # fmt: skip
    request = parse_request(body)
    stored = train_request_to_json(request)
    assert stored["workload"]["offload"] == "parameters"
    assert stored["workload"]["tensor_parallel"] == 2
    again = parse_request(stored)
    assert again.workload.offload == OFFLOAD_PARAMETERS
    assert again.workload.tensor_parallel == 2
    plain = train_request_to_json(parse_request({**body, "workload": {
        k: v for k, v in body["workload"].items() if k not in ("offload", "tensor_parallel")
    }}))  # fmt: skip
    assert "offload" not in plain["workload"]
    assert "tensor_parallel" not in plain["workload"]

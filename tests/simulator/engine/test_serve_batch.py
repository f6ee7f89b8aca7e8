"""`best_placements` answers for many machines what `placement_search` answers for each one:
the same winning result, bit for bit, and the same placements tried with the same reasons."""

from typing import Any

import pytest

from simulator.engine import best_placements, parse_hardware, placement_search

GPU_24 = {"name": "RTX 4090"}
GPU_8 = {"name": "small", "vram_gb": 8, "bf16_tflops": 50, "pcie_gbps": 16, "mem_gbps": 300}
CPU = "EPYC 9124"
MACHINES: list[dict[str, Any]] = [
    {"gpu": GPU_24},  # GPU only
    {"gpu": GPU_24, "cpu": CPU, "ram_gb": 256},  # GPU, CPU and RAM: every placement
    {"gpu": GPU_8, "cpu": CPU, "ram_gb": 256},  # a small GPU: hybrid offloads most experts
    {"gpu": GPU_24, "gpu_count": 4, "cpu": CPU, "ram_gb": 64},
    {"cpu": CPU, "ram_gb": 512},  # CPU only
    {"cpu": CPU, "ram_gb": 8},  # nothing fits
    {"unified": "Mac Studio M4 Max 128GB"},
    {"gpu": GPU_8, "cpu": CPU, "ram_gb": 4, "link_gbps": 8},  # neither share fits
]
WORKLOADS = {
    "moe": {"model": "glm-4.7-flash", "quant": "Q4_K_M", "context": 32768},
    "dense": {"model": "llama-3.1-8b", "quant": "Q8_0", "context": 4096},
    "fixed-offload": {"model": "glm-4.7-flash", "quant": "Q4_K_M", "offload_from_layer": 30},
    "long-batch": {"model": "glm-4.7-flash", "quant": "Q8_0", "context": 131072, "batch": 4},
    # larger than every GPU here: `gpu` keeps as many whole layers as fit
    "dense-split": {"model": "llama-3.1-70b", "quant": "Q4_K_M", "context": 8192},
    "fixed-split": {"model": "llama-3.1-70b", "quant": "Q4_K_M", "gpu_layers": 20},
}


@pytest.mark.parametrize("workload", WORKLOADS.values(), ids=WORKLOADS.keys())
@pytest.mark.parametrize("only", [None, "gpu", "hybrid", "cpu"])
def test_many_machines_get_what_each_gets_alone(workload: dict[str, Any], only: str | None) -> None:
    hardware = [parse_hardware(machine, kind="infer") for machine in MACHINES]

    batch = best_placements(workload, hardware, only=only)

    alone = [placement_search(workload=workload, hardware=m, only=only) for m in MACHINES]
    assert [b.tried for b in batch] == [a.tried for a in alone]
    assert [b.best for b in batch] == [a.best for a in alone]


def test_the_machines_cover_every_placement_and_refusals() -> None:
    hardware = [parse_hardware(machine, kind="infer") for machine in MACHINES]
    searches = best_placements(WORKLOADS["moe"], hardware)
    winners = {s.best.placement.name for s in searches if s.best is not None}
    assert winners >= {"gpu", "hybrid", "cpu", "unified"}
    assert any(s.best is None for s in searches)


def test_a_dense_model_larger_than_the_gpus_keeps_as_many_layers_as_fit() -> None:
    """Llama 3.1 70B Q4_K_M (about 40 GB) on one 24 GB card with a CPU: `gpu` keeps the most
    whole layers that fit beside their cache, the rest in host RAM; one more would not fit."""
    machine = {"gpu": GPU_24, "cpu": CPU, "ram_gb": 256}
    search = placement_search(workload=WORKLOADS["dense-split"], hardware=machine, only="gpu")
    assert search.best is not None
    placement = search.best.placement
    assert 0 < placement.cpu_layers < 80
    on_gpu = 80 - placement.cpu_layers
    more = {**WORKLOADS["dense-split"], "gpu_layers": on_gpu + 1, "placement": "gpu"}
    refused = placement_search(workload=more, hardware=machine, only="gpu")
    assert refused.best is None
    assert "gpu memory" in str(refused.tried["gpu"])


def test_a_fixed_split_is_the_gpu_placements_and_the_others_run_without_it() -> None:
    """`gpu_layers` splits the `gpu` placement; CPU only, searched beside it, still runs."""
    machine = {"gpu": GPU_24, "cpu": CPU, "ram_gb": 256}
    search = placement_search(workload=WORKLOADS["fixed-split"], hardware=machine)
    assert isinstance(search.tried["gpu"], float)
    assert isinstance(search.tried["cpu"], float)
    assert search.best is not None
    assert search.best.placement.cpu_layers == 60

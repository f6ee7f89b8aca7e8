"""The vectorized sweep gives the scalar reference's answers, config for config."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from simulator.engine.hardware import GpuSpec, Hardware
from simulator.engine.train.reference import optimal_split, reference_costs, reference_curve
from simulator.engine.train.sweep import HardwareBatch, sweep, sweep_curves

from .seed_setups import glm_workload, rig

SAMPLE = 300
EXACT = 0.0  # same operations in the same order: the floats agree bit for bit


def random_batch(n: int, seed: int) -> HardwareBatch:
    rng = np.random.default_rng(seed)
    return HardwareBatch(
        vram_gib=rng.uniform(6, 192, n),
        bf16_tflops=rng.uniform(20, 2500, n),
        pcie_gbps=rng.choice([5.5, 11.0, 22.0, 44.0, 64.0], n),
        nvme_gbps=rng.uniform(0.5, 60, n),
        pinned_gib=rng.choice([0.0, 26.0, 56.0, 120.0, 500.0], n),
        gpu_count=rng.choice([1, 2, 3, 4, 8, 16], n).astype(np.int64),
    )


def hardware_at(batch: HardwareBatch, i: int) -> Hardware:
    gpu = GpuSpec(
        name="x",
        vram_gib=float(batch.vram_gib[i]),
        bf16_tflops=float(batch.bf16_tflops[i]),
        pcie_gbps=float(batch.pcie_gbps[i]),
    )
    return Hardware(
        gpu=gpu,
        gpu_count=int(batch.gpu_count[i]),
        nvme_gbps=float(batch.nvme_gbps[i]),
        pinned_gib=float(batch.pinned_gib[i]),
    )


@pytest.mark.parametrize("quant", ["NF4d+NF2e", "NVFP4", "BF16"])
def test_sweep_equals_the_scalar_reference_on_a_random_sample(quant):
    workload, batch = glm_workload(quant), random_batch(SAMPLE, seed=7)
    result, costs = sweep(batch, workload, chunk=64), reference_costs(workload)
    for i in range(SAMPLE):
        expected = optimal_split(reference_curve(costs, workload, hardware_at(batch, i)))
        assert result.row(i) == expected, i


def test_pruning_never_changes_an_answer():
    workload, batch = glm_workload(), random_batch(2000, seed=11)
    pruned, full = sweep(batch, workload), sweep(batch, workload, prune=False)
    assert_array_equal(pruned.resident_layers, full.resident_layers)
    assert_allclose(pruned.tokens_per_s, full.tokens_per_s, rtol=EXACT)


def test_chunk_size_never_changes_an_answer():
    workload, batch = glm_workload(), random_batch(1000, seed=3)
    small, large = sweep(batch, workload, chunk=7), sweep(batch, workload, chunk=100_000)
    assert_array_equal(small.micro_batch, large.micro_batch)
    assert_allclose(small.step_s, large.step_s, rtol=EXACT)


def test_a_config_where_nothing_fits_is_marked_infeasible():
    tiny = HardwareBatch.from_hardware(
        [
            rig("RTX 4090"),
            Hardware(gpu=GpuSpec(name="8G", vram_gib=8, bf16_tflops=100, pcie_gbps=22)),
        ]
    )
    result = sweep(tiny, glm_workload())
    assert_array_equal(result.feasible, [True, False])
    assert np.isnan(result.tokens_per_s[1])
    assert result.row(1) is None


def test_sweep_finds_the_seeds_277_for_one_rtx_4090():
    result = sweep(HardwareBatch.from_hardware([rig("RTX 4090")]), glm_workload())
    assert_allclose(result.tokens_per_s, [277], rtol=0.01)


def test_curves_on_demand_hold_every_resident_count():
    curves = sweep_curves(HardwareBatch.from_hardware([rig("RTX 4090")]), glm_workload())
    assert curves["tokens_per_s"].shape == (1, 93)  # R = 0..92
    assert_array_equal(curves["batch"][0, :9], [58, 51, 44, 37, 31, 24, 17, 10, 3])

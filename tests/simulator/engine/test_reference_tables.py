"""Seed 000's result tables: single GPU, NF3 vs NF2, multi-GPU and AM5 x8/x8."""

import pytest
from numpy.testing import assert_allclose

from .seed_setups import (
    GEN4_RAID0_X4,
    GEN4_X1,
    GEN5_AIC_X4,
    TIME_RTOL,
    TOKENS_PER_S_RTOL,
    best_for,
    rig,
    row_at,
)

# "Single-GPU throughput (NF4d+NF2e)": GPU, B, Res, Str, compute s, transfer s, tok/s.
SINGLE_GPU = [
    ("RTX 4090", 51, 1, 91, 189, 31, 277),
    ("RTX 5090", 89, 2, 90, 260, 31, 351),
    ("A100 80G", 155, 32, 60, 303, 21, 524),
    ("H100 80G", 19, 52, 40, 15, 14, 1269),
    ("RTX PRO 6000", 35, 63, 29, 71, 10, 503),
]
# "Multi-GPU with pipeline parallelism": (label, gpu, G, quant, NVMe GB/s) and the seed's
# B, Res, Str, compute s, transfer s, tok/s. The transfer column pins each row's storage:
# 4090s and H100s on Gen4x1 (7 GB/s), the NVFP4 5090 alone on the Gen5 AIC x4 array and the
# 5090 pair on a Gen4 RAID0 x4 (28 GB/s), reference-model.md §8.
MULTI_GPU = [
    ("1x4090", "RTX 4090", 1, "NF4d+NF2e", GEN4_X1, (51, 1, 91, 189, 31, 277)),
    ("2x4090", "RTX 4090", 2, "NF4d+NF2e", GEN4_X1, (82, 0, 46, 607, 127, 443)),
    ("4x4090", "RTX 4090", 4, "NF4d+NF2e", GEN4_X1, (81, 2, 21, 599, 232, 805)),
    ("1x5090fp4", "RTX 5090", 1, "NVFP4", GEN5_AIC_X4, (82, 1, 91, 87, 8.5, 961)),
    ("2x5090fp4", "RTX 5090", 2, "NVFP4", GEN4_RAID0_X4, (37, 7, 39, 79, 46, 1538)),
    ("1xH100", "H100 80G", 1, "NF4d+NF2e", GEN4_X1, (19, 52, 40, 15, 14, 1269)),
    ("4xH100", "H100 80G", 4, "NF4d+NF2e", GEN4_X1, (256, 0, 23, 413, 254, 3691)),
]
# "Consumer AM5 x8/x8": label, gpu, PCIe GB/s per GPU, quant, tok/s.
AM5 = [
    ("4090 x16/x16", "RTX 4090", 22, "NF4d+NF2e", 443),
    ("4090 x8/x8", "RTX 4090", 11, "NF4d+NF2e", 443),
    ("5090 x8/x8", "RTX 5090", 22, "NF4d+NF2e", 561),
    ("5090 x8/x8 NVFP4", "RTX 5090", 22, "NVFP4", 1538),
]


def assert_table_row(row, seed, *, time_atol=0.0):
    batch, resident, streamed, compute, transfer, tokens_per_s = seed
    assert (row.micro_batch, row.resident_layers, row.streamed_layers) == (
        batch, resident, streamed)  # fmt: skip
    # times are printed to whole seconds: allow the 2 % or half a printed unit
    for got, want in ((row.compute_s, compute), (row.transfer_s, transfer)):
        assert_allclose(got, want, rtol=TIME_RTOL, atol=time_atol)
    assert_allclose(row.tokens_per_s, tokens_per_s, rtol=TOKENS_PER_S_RTOL)


@pytest.mark.parametrize("seed", SINGLE_GPU, ids=lambda s: s[0])
def test_single_gpu_row_matches_the_seed_at_its_resident_count(seed):
    gpu, *numbers = seed
    row = row_at(rig(gpu), numbers[1])
    assert_table_row(row, numbers, time_atol=0.5)


@pytest.mark.parametrize("seed", SINGLE_GPU, ids=lambda s: s[0])
def test_single_gpu_optimum_reaches_the_seeds_tokens_per_s(seed):
    assert_allclose(best_for(rig(seed[0])).tokens_per_s, seed[-1], rtol=TOKENS_PER_S_RTOL)


@pytest.mark.parametrize("gpu", ["RTX 4090", "RTX 5090", "H100 80G"])
def test_nf3_experts_cost_no_throughput_against_nf2(gpu):
    nf2, nf3 = best_for(rig(gpu), "NF4d+NF2e"), best_for(rig(gpu), "NF4d+NF3e")
    assert_allclose(nf3.tokens_per_s, nf2.tokens_per_s, rtol=1e-9)


@pytest.mark.parametrize("nvme", [GEN5_AIC_X4, GEN4_X1], ids=["gen5-aic-x4", "gen4-x1"])
def test_nvfp4_5090_reaches_961_on_either_drive(nvme):
    best = best_for(rig("RTX 5090", nvme_gbps=nvme), "NVFP4")
    assert_allclose(best.tokens_per_s, 961, rtol=TOKENS_PER_S_RTOL)


@pytest.mark.parametrize("case", MULTI_GPU, ids=lambda c: c[0])
def test_multi_gpu_row_matches_the_seed_at_its_resident_count(case):
    _, gpu, gpus, quant, nvme, seed = case
    row = row_at(rig(gpu, gpus=gpus, nvme_gbps=nvme), seed[1], quant)
    assert_table_row(row, seed, time_atol=0.5)


@pytest.mark.parametrize("case", MULTI_GPU, ids=lambda c: c[0])
def test_multi_gpu_optimum_reaches_the_seeds_tokens_per_s(case):
    _, gpu, gpus, quant, nvme, seed = case
    best = best_for(rig(gpu, gpus=gpus, nvme_gbps=nvme), quant)
    assert_allclose(best.tokens_per_s, seed[-1], rtol=TOKENS_PER_S_RTOL)


def test_multi_gpu_steps_use_max_2g_4_micro_batches():
    assert row_at(rig("RTX 4090", gpus=2), 0).micro_batches == 4  # max(2·2, 4)
    assert row_at(rig("RTX 4090", gpus=4), 2).micro_batches == 8  # max(2·4, 4)


@pytest.mark.parametrize("case", AM5, ids=lambda c: c[0])
def test_am5_x8_x8_row_matches_the_seed(case):
    _, gpu, pcie, quant, tokens_per_s = case
    best = best_for(
        rig(gpu, gpus=2, nvme_gbps=GEN4_RAID0_X4 if gpu == "RTX 5090" else GEN4_X1, pcie_gbps=pcie),
        quant,
    )
    assert_allclose(best.tokens_per_s, tokens_per_s, rtol=TOKENS_PER_S_RTOL)

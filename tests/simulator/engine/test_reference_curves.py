"""Seed 000's trade-off curves, row by row (reference-model.md §4–§8)."""

import pytest
from numpy.testing import assert_allclose

from simulator.engine.train.reference import greedy_split

from .seed_setups import (
    GEN4_X1,
    GEN5_AIC_X4,
    TIME_RTOL,
    TOKENS_PER_S_RTOL,
    best_for,
    costs_for,
    glm_workload,
    rig,
    row_at,
)

# "1x RTX 4090 | NF4d+NF2e | Gen4x1, 32G RAM":
# Res, Str, Free GB, B, compute s, transfer s, step s, OH %, tok/s
RTX_4090_CURVE = [
    (0, 92, 10.4, 58, 214.5, 31.8, 214.5, 0, 277),
    (1, 91, 9.2, 51, 188.6, 31.4, 188.6, 0, 277),
    (2, 90, 8.0, 44, 162.7, 31.1, 162.7, 0, 277),
    (3, 89, 6.7, 37, 136.8, 30.7, 136.8, 0, 277),
    (4, 88, 5.5, 31, 114.6, 30.4, 114.6, 0, 277),
    (5, 87, 4.3, 24, 88.8, 30.0, 88.8, 0, 277),
    (6, 86, 3.1, 17, 62.9, 29.7, 62.9, 0, 277),
    (7, 85, 1.9, 10, 37.0, 29.3, 37.0, 0, 277),
    (8, 84, 0.7, 3, 11.1, 29.0, 29.0, 161, 106),
]
# "NVFP4 trade-off curve on RTX 5090" (the rows the seed shows); transfer 8.6 s at R = 0 is
# PCIe Gen5 x16 (44 GB/s) behind the Gen5 AIC x4 array.
RTX_5090_NVFP4_CURVE = [
    (0, 92, 16.7, 93, 99.1, 8.6, 99.1, 0, 961),
    (1, 91, 14.6, 82, 87.4, 8.5, 87.4, 0, 961),
    (7, 85, 2.3, 13, 13.9, 7.9, 13.9, 0, 961),
    (8, 84, 0.3, 1, 1.1, 7.8, 7.8, 635, 131),
]


def assert_row_matches(row, seed_row):
    res, streamed, free, batch, compute, transfer, step, overhead, tokens_per_s = seed_row
    assert (row.resident_layers, row.streamed_layers, row.micro_batch) == (res, streamed, batch)
    assert_allclose(row.free_vram_gib, free, atol=0.05)  # printed to 0.1 GB
    # times within 2 %, or within half the printed 0.1 s (1.07 s prints as "1.1s")
    assert_allclose(
        [row.compute_s, row.transfer_s, row.step_s],
        [compute, transfer, step],
        rtol=TIME_RTOL,
        atol=0.05,
    )
    assert_allclose(row.overhead_pct, overhead, atol=0.5)  # printed as a whole percent
    assert_allclose(row.tokens_per_s, tokens_per_s, rtol=TOKENS_PER_S_RTOL)


@pytest.mark.parametrize("seed_row", RTX_4090_CURVE, ids=lambda r: f"R{r[0]}")
def test_rtx_4090_curve_row_matches_the_seed(seed_row):
    assert_row_matches(row_at(rig("RTX 4090"), seed_row[0]), seed_row)


@pytest.mark.parametrize("seed_row", RTX_5090_NVFP4_CURVE, ids=lambda r: f"R{r[0]}")
def test_rtx_5090_nvfp4_curve_row_matches_the_seed(seed_row):
    hardware = rig("RTX 5090", nvme_gbps=GEN5_AIC_X4)
    assert_row_matches(row_at(hardware, seed_row[0], "NVFP4"), seed_row)


def test_rtx_4090_optimum_is_a_277_tokens_per_s_tie():
    best = best_for(rig("RTX 4090"))
    assert_allclose(best.tokens_per_s, 277, rtol=TOKENS_PER_S_RTOL)
    assert best.resident_layers in range(0, 8)  # the flat region the seed describes


def test_ties_go_to_the_fewest_resident_layers():
    assert best_for(rig("RTX 4090")).resident_layers == 0


def test_rtx_4090_greedy_keeps_8_layers_and_is_2_6x_slower():
    greedy = greedy_split(costs_for(), glm_workload(), rig("RTX 4090"))
    assert greedy is not None
    assert (greedy.resident_layers, greedy.micro_batch) == (8, 3)
    assert_allclose(best_for(rig("RTX 4090")).tokens_per_s / greedy.tokens_per_s, 2.6, atol=0.05)


def test_rtx_5090_nvfp4_greedy_falls_off_the_cliff_at_batch_1():
    hardware = rig("RTX 5090", nvme_gbps=GEN5_AIC_X4)
    greedy = greedy_split(costs_for("NVFP4"), glm_workload("NVFP4"), hardware)
    assert greedy is not None
    assert (greedy.resident_layers, greedy.micro_batch) == (8, 1)


def test_a_gen4_x1_drive_leaves_the_nvfp4_5090_at_961():
    best = best_for(rig("RTX 5090", nvme_gbps=GEN4_X1), "NVFP4")
    assert_allclose(best.tokens_per_s, 961, rtol=TOKENS_PER_S_RTOL)

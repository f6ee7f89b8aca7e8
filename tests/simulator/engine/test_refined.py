"""Refined mode: each refinement alone, and the reference recovered with all of them off."""

import pytest
from numpy.testing import assert_allclose

from simulator.engine import parse_request, result_to_json
from simulator.engine.formats.training import NF4_BITS
from simulator.engine.model.layers import dense_layer, total_params
from simulator.engine.model.registry import load_model
from simulator.engine.simulate import simulate
from simulator.engine.train.reference import optimal_split, reference_costs, reference_curve
from simulator.engine.train.refined import (
    ALL_REFINEMENTS,
    NO_REFINEMENTS,
    build_timeline,
    only,
    refined_curve,
    refined_timeline,
    stage_layers,
)
from simulator.engine.train.utilization import utilization_factor

from .seed_setups import GEN4_RAID0_X4, glm_workload, rig
from .test_request import with_value

ROUNDING = 1e-12  # the refined code sums per layer; the reference multiplies by L


@pytest.mark.parametrize(
    ("gpu", "gpus", "quant", "nvme"),
    [("RTX 4090", 1, "NF4d+NF2e", 7.0), ("RTX 4090", 4, "NF4d+NF2e", 7.0),
     ("RTX 5090", 2, "NVFP4", GEN4_RAID0_X4)],
)  # fmt: skip
def test_with_every_refinement_off_it_is_the_reference(gpu, gpus, quant, nvme):
    workload, hardware = glm_workload(quant), rig(gpu, gpus=gpus, nvme_gbps=nvme)
    reference = reference_curve(reference_costs(workload), workload, hardware)
    refined = refined_curve(workload, hardware, NO_REFINEMENTS)
    assert [r.micro_batch for r in refined] == [r.micro_batch for r in reference]
    assert_allclose([r.step_s for r in refined], [r.step_s for r in reference], rtol=ROUNDING)


def test_dense_layers_are_sized_as_dense():
    plans = stage_layers(glm_workload("NF4"), 1, only("layer_shapes"))
    dense = dense_layer(load_model("glm-4.7"))
    expected_gib = total_params(dense) * NF4_BITS / 8 / 2**30  # params × bits → GiB
    assert [p.dense for p in plans[:4]] == [True, True, True, False]
    assert_allclose(plans[0].gib, expected_gib)
    assert_allclose(plans[3].gib * 1024, 2250)  # MoE layers keep the seed's measured size


def test_utilization_follows_the_seeds_nf4_table():
    # seed: 81.3 % at one 1024-token sequence, 96.6 % from 16 sequences on
    assert_allclose(utilization_factor(1024), 0.813 / 0.966)
    assert_allclose(utilization_factor(16 * 1024), 1.0)
    assert_allclose(utilization_factor(10**6), 1.0)


def test_partial_ram_caching_shortens_transfer_when_ram_holds_some_layers():
    workload, hardware = glm_workload(), rig("RTX 4090")
    reference = refined_curve(workload, hardware, NO_REFINEMENTS)[0]
    cached = refined_curve(workload, hardware, only("partial_ram"))[0]
    # 21 of 92 layers (26 GiB ÷ 1.21 GiB) come over PCIe at 22 GB/s, the rest at 7 GB/s
    layer_gib = 1237 / 1024
    expected = 2 * (21 * layer_gib / 22 + 71 * layer_gib / 7)
    assert_allclose(cached.transfer_s, expected, rtol=ROUNDING)
    assert cached.transfer_s < reference.transfer_s


def test_a_double_buffer_prefetches_only_one_layer_ahead():
    # two streamed layers computing 1 s each, loads of 3 s: the second load waits for the link
    timeline = build_timeline([1.0, 1.0], {0: 3.0, 1: 3.0})
    first, second = timeline.events[0], timeline.events[1]
    assert (first.transfer_end_s, first.compute_start_s) == (3.0, 3.0)
    assert (second.transfer_start_s, second.compute_start_s) == (3.0, 6.0)
    # backward of layer 1 needs buffer 0 back: free once layer 0's forward ends at 4 s,
    # but the link is busy until 6 s
    assert timeline.events[2].transfer_start_s == 6.0


def test_resident_layers_give_the_link_slack():
    streamed_only = build_timeline([1.0] * 4, dict.fromkeys(range(4), 1.5))
    with_resident = build_timeline([1.0] * 4, {0: 1.5, 2: 1.5, 3: 1.5})
    assert with_resident.stall_s < streamed_only.stall_s


def test_the_timeline_never_finishes_before_its_compute():
    timeline = refined_timeline(glm_workload(), rig("RTX 4090"), 8)
    assert timeline is not None
    # summed in another order than the timeline adds them: equal up to rounding
    assert timeline.micro_batch_s >= timeline.compute_busy_s * (1 - 1e-12)
    assert len(timeline.events) == 2 * 92  # forward and backward of every layer


def test_one_f_one_b_hides_the_bubble_behind_streaming():
    workload, hardware = glm_workload(), rig("RTX 4090", gpus=4)
    plain = refined_curve(workload, hardware, NO_REFINEMENTS)
    overlapped = refined_curve(workload, hardware, only("one_f_one_b"))
    assert all(b.step_s <= a.step_s for a, b in zip(plain, overlapped, strict=True))


def test_refined_mode_returns_the_timeline_as_data():
    body = result_to_json(simulate(parse_request(with_value("workload.mode", "refined"))))
    event = body["timeline"]["events"][0]
    assert {"compute_start_s", "compute_end_s", "transfer_start_s", "transfer_end_s"} <= set(event)
    assert body["refinements"] == list(ALL_REFINEMENTS.names())


def test_refined_mode_is_faster_than_the_reference_for_glm_on_a_4090():
    # transformers' shared expert is 1536 wide, not 12288: less compute per token
    workload, hardware = glm_workload(), rig("RTX 4090")
    reference = optimal_split(refined_curve(workload, hardware, NO_REFINEMENTS))
    refined = optimal_split(refined_curve(workload, hardware, ALL_REFINEMENTS))
    assert reference is not None
    assert refined is not None
    assert refined.tokens_per_s > reference.tokens_per_s

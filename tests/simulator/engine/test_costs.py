"""Costs add and scale; each workload's cost is the sum of its registered rules; pipeline
schedules are rules too. Expected values are derived from named quantities."""

import numpy as np
import pytest

from simulator.engine.costs import ZERO, Cost, CostRules
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.model.layers import reference_layer
from simulator.engine.model.registry import load_model
from simulator.engine.serve.decode import DECODE_RULES, DecodeInputs, ShareStep
from simulator.engine.serve.placement import model_parts, place
from simulator.engine.serve.prefill import CPU_PREFILL_RULES, PREFILL_RULES, PrefillInputs
from simulator.engine.train.compute import (
    BACKWARD_PASSES_FULL,
    BACKWARD_RULES,
    LayerPass,
    backward_flops_per_sequence,
    forward_flops_per_sequence,
)
from simulator.engine.train.schedules import FILL_DRAIN, ONE_F_ONE_B, SCHEDULES, pipeline_step

RTOL = 1e-12


def test_costs_add_field_by_field_and_scale_by_a_number():
    a = Cost(weight_bytes=1.0, kv_bytes=2.0, flops=3.0, layer_visits=4.0, link_bytes=5.0)
    b = Cost(weight_bytes=10.0, flops=30.0)
    assert a + b == Cost(
        weight_bytes=11.0, kv_bytes=2.0, flops=33.0, layer_visits=4.0, link_bytes=5.0
    )
    assert 2 * a == a * 2 == a + a
    assert a + ZERO == a
    assert a.memory_bytes == 3.0


def test_a_registry_sums_its_rules_and_lists_what_each_gave():
    rules: CostRules[int] = CostRules("test")
    rules.register("reads")(lambda n: Cost(weight_bytes=float(n)))
    rules.register("math")(lambda n: Cost(flops=2.0 * n))
    assert list(rules) == ["reads", "math"]
    assert rules.total(3) == Cost(weight_bytes=3.0, flops=6.0)
    assert rules.breakdown(3) == {"reads": Cost(weight_bytes=3.0), "math": Cost(flops=6.0)}


def test_a_rule_name_is_registered_once():
    rules: CostRules[int] = CostRules("test")
    rules.register("reads")(lambda n: ZERO)
    with pytest.raises(ValueError, match="already registered"):
        rules.register("reads")(lambda n: ZERO)


def _hybrid_decode(batch: int) -> tuple[ShareStep, ShareStep]:
    model = load_model("glm-4.7-flash")
    placement = place(model_parts(model), weight_scheme("Q4_K_M"), "hybrid")
    inputs = DecodeInputs(
        placement=placement, model=model, kv_bytes_per_token=1000.0,
        context=4096, batch=batch,
    )  # fmt: skip
    gpu, cpu = placement.shares
    return ShareStep(share=gpu, inputs=inputs), ShareStep(share=cpu, inputs=inputs)


def test_decode_rules_put_the_kv_cache_on_its_home_and_the_link_on_the_offloaded_experts():
    gpu, cpu = _hybrid_decode(batch=1)
    assert DECODE_RULES.breakdown(gpu)["kv_cache"].kv_bytes == 1000.0 * 4096  # per token × ctx
    assert DECODE_RULES.breakdown(cpu)["kv_cache"] == ZERO
    parts = cpu.inputs.placement.parts
    crossings = 2 * cpu.inputs.placement.offloaded_expert_layers  # there and back, each layer
    f32 = 4
    assert DECODE_RULES.total(cpu).link_bytes == crossings * parts.hidden_size * f32
    assert DECODE_RULES.total(gpu).link_bytes == 0.0


def test_decode_weight_flops_scale_with_the_batch():
    one, four = _hybrid_decode(batch=1)[0], _hybrid_decode(batch=4)[0]
    dense_one = DECODE_RULES.breakdown(one)["dense_weights"]
    dense_four = DECODE_RULES.breakdown(four)["dense_weights"]
    assert dense_four.flops == pytest.approx(4 * dense_one.flops, rel=RTOL)
    assert dense_four.weight_bytes == dense_one.weight_bytes  # weights read once per step


def test_prefill_with_experts_on_the_cpu_moves_their_flops_not_adds_them():
    model = load_model("glm-4.7-flash")
    placement = place(model_parts(model), weight_scheme("Q4_K_M"), "hybrid")

    def inputs(on_cpu: bool) -> PrefillInputs:
        return PrefillInputs(
            placement=placement, model=model, tokens=2048, micro_batches=4,
            experts_compute_on_cpu=on_cpu,
        )  # fmt: skip

    copied, kept = inputs(False), inputs(True)
    total = PREFILL_RULES.total(copied).flops
    moved = CPU_PREFILL_RULES.total(kept).flops
    assert moved > 0
    assert CPU_PREFILL_RULES.total(copied) == ZERO
    np.testing.assert_allclose(PREFILL_RULES.total(kept).flops + moved, total, rtol=RTOL)
    assert PREFILL_RULES.total(copied).link_bytes == 4 * placement.shares[1].stored_bytes
    assert PREFILL_RULES.total(kept).link_bytes == 0.0


@pytest.mark.parametrize("checkpointing", [True, False])
def test_without_lora_the_backward_rules_give_section_5s_passes(checkpointing):
    layer, seq_len = reference_layer(load_model("glm-4.7")), 1024
    passes = BACKWARD_PASSES_FULL + int(checkpointing)  # §5: 2 × forward, + 1 × to recompute
    expected = passes * forward_flops_per_sequence(layer, seq_len)
    got = backward_flops_per_sequence(layer, seq_len, lora_params=None, checkpointing=checkpointing)
    np.testing.assert_allclose(got, expected, rtol=RTOL)


def test_lora_trains_only_the_adapters_weights():
    layer, seq_len, adapters = reference_layer(load_model("glm-4.7")), 1024, 1_000_000
    x = LayerPass(layer=layer, seq_len=seq_len, lora_params=adapters, checkpointing=False)
    weight_grads = BACKWARD_RULES.breakdown(x)["weight_grads"].flops
    flop_overhead, flops_per_weight = 1.05, 2  # §5's overhead; one multiply-add per weight
    np.testing.assert_allclose(
        weight_grads, flop_overhead * flops_per_weight * seq_len * adapters, rtol=RTOL
    )
    assert BACKWARD_RULES.breakdown(x)["checkpoint_recompute"] == ZERO


def test_both_schedules_are_registered():
    assert {FILL_DRAIN, ONE_F_ONE_B} <= set(SCHEDULES)


def test_fill_drain_charges_the_bubble_on_top_of_the_micro_batches():
    m, g, makespan, compute = 8, 4, 3.0, 2.0
    step, bubble = pipeline_step(
        FILL_DRAIN, makespan_s=makespan, compute_s=compute, micro_batches=m, stages=g
    )
    assert bubble == (g - 1) * compute
    assert step == m * makespan + bubble


def test_one_f_one_b_streams_through_the_bubble():
    m, g, makespan, compute = 8, 4, 3.0, 2.0
    step, bubble = pipeline_step(
        ONE_F_ONE_B, makespan_s=makespan, compute_s=compute, micro_batches=m, stages=g
    )
    assert step == max(m * makespan, (m + g - 1) * compute)  # 24 against 22: streaming bound
    assert bubble == step - m * makespan == 0.0


def test_schedules_take_arrays_as_they_take_floats():
    makespan, compute = np.array([3.0, 1.0]), np.array([2.0, 1.0])
    steps, _ = pipeline_step(
        ONE_F_ONE_B, makespan_s=makespan, compute_s=compute, micro_batches=8, stages=4
    )
    for i in range(2):
        one, _ = pipeline_step(
            ONE_F_ONE_B, makespan_s=makespan[i], compute_s=compute[i], micro_batches=8, stages=4
        )
        assert steps[i] == one


def _hybrid_prefill(repacked: bool) -> tuple[float, float]:
    from simulator.engine.serve.inference import simulate_inference
    from simulator.engine.serve.workload import InferWorkload
    from simulator.engine.workload import SimulationRequest
    from tests.simulator.engine.test_inference_seeds import SEED_003_HARDWARE

    workload = InferWorkload(
        model=load_model("glm-4.7-flash"), quant=weight_scheme("Q4_K_M"), placement="hybrid",
        prompt_tokens=4096, ubatch=2048, runtime="ik_llama.cpp", repacked_experts=repacked,
    )  # fmt: skip
    result = simulate_inference(SimulationRequest(workload=workload, hardware=SEED_003_HARDWARE))
    return result.prefill.link_bytes, result.prefill.compute_s


def test_repacked_experts_are_multiplied_on_the_cpu_not_copied_to_the_gpu():
    """ik_llama.cpp's -rtr / _R4 layouts have no GPU kernels: a prompt's offloaded expert
    GEMMs stay on the CPU (no per-micro-batch copies), as KTransformers' do."""
    copied_bytes, _ = _hybrid_prefill(repacked=False)
    kept_bytes, _ = _hybrid_prefill(repacked=True)
    model = load_model("glm-4.7-flash")
    placement = place(model_parts(model), weight_scheme("Q4_K_M"), "hybrid")
    offloaded = placement.shares[1].stored_bytes
    assert copied_bytes - kept_bytes == pytest.approx(2 * offloaded)  # 4096 / 2048 micro-batches

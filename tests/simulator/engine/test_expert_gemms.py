"""Routed experts' prefill GEMMs with few rows per expert run below the dense GEMMs'
efficiency, by an m½ of each runtime's kernels on each device class (serve/prefill.py,
expert_gemm_underfill; docs/model.md, "Prefill")."""

import pytest

from simulator.engine.calibration import (
    efficiency_from_json,
    efficiency_to_json,
    load_corpus,
    load_efficiency,
)
from simulator.engine.calibration.efficiency import Efficiency, RuntimeConstants
from simulator.engine.calibration.fit import (
    EXPERT_GEMM_GRID,
    depends_on_expert_gemms,
)
from simulator.engine.calibration.setups import InferSetup, row_setup
from simulator.engine.costs import Cost
from simulator.engine.errors import EngineInputError
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.model.registry import load_model
from simulator.engine.serve.decode import FLOPS_PER_MAC
from simulator.engine.serve.hardware import GPU, UNIFIED
from simulator.engine.serve.placement import model_parts, place
from simulator.engine.serve.prefill import PREFILL_RULES, PrefillInputs, rows_per_expert
from tests.simulator.engine.gpu_compute import compute_s

QWEN3_MOE = load_model("qwen3-30b-a3b")  # 128 routed experts, 8 per token, 48 layers
LLAMA = load_model("llama-3.1-8b")


def _rules(model, placement="gpu", *, tokens=2048, ubatch=512):
    placed = place(model_parts(model), weight_scheme("Q4_0"), placement)
    inputs = PrefillInputs(
        placement=placed, model=model, tokens=tokens, micro_batches=-(-tokens // ubatch),
        experts_compute_on_cpu=False, ubatch=ubatch,
    )  # fmt: skip
    return placed.parts, PREFILL_RULES.breakdown(inputs)


def test_each_expert_gets_ubatch_times_k_over_e_rows():
    """A 512-token micro-batch of Qwen3-30B-A3B: each token picks 8 of 128 experts, so an
    expert's GEMM gets 512·8/128 = 32 rows; a prompt shorter than the micro-batch gives
    fewer."""
    assert (QWEN3_MOE.num_experts, QWEN3_MOE.experts_per_token) == (128, 8)
    assert rows_per_expert(2048, 512, 128, 8) == 32.0
    assert rows_per_expert(128, 512, 128, 8) == 8.0
    assert rows_per_expert(2048, 0, 128, 8) == 128.0  # no micro-batches: the whole prompt


def test_the_underfill_counts_the_expert_flops_over_m():
    """At m = 32 the rule counts the routed experts' FLOPs (2 per weight per token) over 32:
    the device multiplies them by its m½. A larger micro-batch fills the tiles better:
    2,048-token micro-batches give m = 128."""
    parts, rules = _rules(QWEN3_MOE)
    expert_flops = FLOPS_PER_MAC * parts.moe_layers * 8 * parts.expert * 2048
    assert rules["expert_gemm_underfill"].underfill_flops == pytest.approx(expert_flops / 32)
    assert rules["expert_gemm_underfill"].flops == 0.0  # idle lanes, not work
    _, big = _rules(QWEN3_MOE, ubatch=2048)
    assert big["expert_gemm_underfill"].underfill_flops == pytest.approx(expert_flops / 128)
    # The weight GEMMs themselves are counted once, whatever m.
    assert big["weight_gemms"] == rules["weight_gemms"]


def test_no_underfill_for_dense_models_or_on_cpus():
    assert _rules(LLAMA)[1]["expert_gemm_underfill"] == Cost()
    assert _rules(QWEN3_MOE, "cpu")[1]["expert_gemm_underfill"] == Cost()


def test_the_device_costs_the_underfill_at_its_runtimes_half_rows():
    """At m = 32 and m½ = 38 the experts' GEMMs take (1 + 38/32) times their FLOPs' time;
    with no m½ (the prior) the underfill costs nothing."""
    parts, rules = _rules(QWEN3_MOE)
    expert_flops = FLOPS_PER_MAC * parts.moe_layers * 8 * parts.expert * 2048
    experts = Cost(flops=expert_flops) + rules["expert_gemm_underfill"]
    assert compute_s(experts, 38.0) == pytest.approx(
        compute_s(Cost(flops=expert_flops), 38.0) * (1 + 38 / 32)
    )
    assert compute_s(experts, 0.0) == compute_s(Cost(flops=expert_flops), 0.0)


def test_an_entrys_own_half_rows_stand_before_the_pooled_value():
    """A runtime whose MoE prompts pinned an m½ of its own computes with it; one without
    takes the table's pooled value."""
    own = RuntimeConstants(
        runtime="mlx", device_class=UNIFIED, bandwidth_efficiency=0.7, flops_efficiency=0.5,
        layer_overhead_s=1e-4, expert_gemm_half_rows=6.0,
    )  # fmt: skip
    table = Efficiency(entries=(own,), expert_gemm_half_rows=40.0)
    assert table.device_class("mlx", UNIFIED).expert_gemm_half_rows == 6.0
    assert table.device_class("llama.cpp", GPU).expert_gemm_half_rows == 40.0


def test_half_rows_are_fitted_on_moe_prefill_rows_computed_on_gpus_only():
    _, rows = load_corpus()
    shipped = load_efficiency()
    assert shipped.expert_gemm_half_rows in EXPERT_GEMM_GRID
    assert shipped.expert_gemm_half_rows > 0
    by_id = {row.id: row for row in rows}
    for row_id in shipped.expert_gemm_fitted_on:
        setup = row_setup(by_id[row_id])
        assert depends_on_expert_gemms(setup)
        assert isinstance(setup, InferSetup)
        w = setup.request.workload
        assert setup.phase == "prefill"
        assert w.model.is_moe
        assert w.placement != "cpu"


def test_apple_kernels_underfill_less_than_cudas():
    """The shipped fit gives each runtime with MoE prompts from two sources its own m½: Apple
    GPUs, whose FLOPS are small beside their bandwidth, lose less to few rows per expert than
    CUDA's tensor-core tiles (docs/model.md, "Prefill")."""
    shipped = load_efficiency()
    metal = shipped.get("llama.cpp-metal", UNIFIED).expert_gemm_half_rows
    cuda = shipped.get("llama.cpp", GPU).expert_gemm_half_rows
    assert metal is not None
    assert cuda is not None
    assert metal < cuda
    for entry in shipped.entries:
        if entry.expert_gemm_half_rows is not None:
            assert entry.expert_gemm_half_rows in EXPERT_GEMM_GRID
            assert entry.device_class in (GPU, UNIFIED)


@pytest.mark.parametrize("value", [-1, 2048, "38"])
def test_a_bad_half_rows_value_is_rejected(value):
    body = efficiency_to_json(load_efficiency())
    body["expert_gemm_half_rows"] = value
    with pytest.raises(EngineInputError) as error:
        efficiency_from_json(body)
    assert error.value.field == "efficiency.expert_gemm_half_rows"


def test_a_table_without_half_rows_has_no_underfill():
    body = efficiency_to_json(load_efficiency())
    del body["expert_gemm_half_rows"]
    assert efficiency_from_json(body).expert_gemm_half_rows == 0.0


@pytest.mark.parametrize("value", [-1, 2048, "38"])
def test_a_bad_half_rows_value_of_an_entry_is_rejected(value):
    body = efficiency_to_json(load_efficiency())
    body["entries"][0]["expert_gemm_half_rows"] = value
    with pytest.raises(EngineInputError) as error:
        efficiency_from_json(body)
    assert error.value.field == "efficiency.entries[0].expert_gemm_half_rows"

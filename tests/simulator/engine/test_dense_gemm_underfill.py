"""A prompt's dense GEMMs in micro-batches shorter than the 512 rows the FLOPS efficiencies are
fitted at pay the GEMM tile's underfill at their runtime's m½ (serve/prefill.py,
dense_gemm_underfill; docs/model.md, "Prefill")."""

import pytest

from simulator.engine.costs import Cost
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.model.registry import load_model
from simulator.engine.serve.decode import FLOPS_PER_MAC
from simulator.engine.serve.placement import model_parts, place
from simulator.engine.serve.prefill import (
    FULL_MICRO_BATCH_ROWS,
    MATVEC_MAX_ROWS,
    PREFILL_RULES,
    PrefillInputs,
    dense_rows,
)
from tests.simulator.engine.gpu_compute import compute_s

LLAMA = load_model("llama-3.1-8b")


def _inputs(tokens, *, placement="gpu", ubatch=512, sequences=1):
    placed = place(model_parts(LLAMA), weight_scheme("Q4_0"), placement)
    micro_batches = -(-tokens // ubatch) if ubatch else 1
    return PrefillInputs(
        placement=placed, model=LLAMA, tokens=tokens, micro_batches=micro_batches,
        experts_compute_on_cpu=False, ubatch=ubatch, sequences=sequences,
    )  # fmt: skip


def _underfill(tokens, **kwargs):
    return PREFILL_RULES.breakdown(_inputs(tokens, **kwargs))["dense_gemm_underfill"]


def test_the_rows_are_every_prompts_tokens_up_to_the_micro_batch():
    assert dense_rows(_inputs(128)) == 128
    assert dense_rows(_inputs(2048)) == 512
    assert dense_rows(_inputs(128, sequences=3)) == 384
    assert dense_rows(_inputs(128, sequences=8)) == 512
    assert dense_rows(_inputs(300, ubatch=0)) == 300  # no micro-batches: the whole prompt


def test_a_128_row_prompt_counts_its_dense_flops_times_the_missing_fill():
    """pp128: m = 128, so the rule counts the dense FLOPs (2 per attention and FFN weight per
    token) times 1/128 − 1/512; the device multiplies them by its m½."""
    parts = _inputs(128).placement.parts
    dense_flops = FLOPS_PER_MAC * (parts.attention + parts.dense) * 128
    cost = _underfill(128)
    assert cost.underfill_flops == pytest.approx(dense_flops * (1 / 128 - 1 / 512))
    assert cost.flops == 0.0  # idle lanes, not work


@pytest.mark.parametrize(
    ("tokens", "kwargs"),
    [
        (512, {}),  # the micro-batch the efficiencies are fitted at
        (4096, {}),
        (128, {"sequences": 4}),  # four prompts fill 512 rows together
        (MATVEC_MAX_ROWS, {}),  # matrix-vector kernels stream the weights
        (128, {"placement": "cpu"}),  # a CPU computes a row at a time
    ],
)
def test_no_underfill_at_a_full_micro_batch_a_matrix_vector_batch_or_on_a_cpu(tokens, kwargs):
    assert FULL_MICRO_BATCH_ROWS == 512
    assert _underfill(tokens, **kwargs) == Cost()


def test_at_half_rows_64_a_128_row_prompts_dense_gemms_take_1_375_times_as_long():
    """m½ = 64, m = 128: (1 + 64/128)/(1 + 64/512) = 1 + 64·(1/128 − 1/512) = 1.375; with no
    m½ (the prior) nothing changes."""
    parts = _inputs(128).placement.parts
    dense = Cost(flops=FLOPS_PER_MAC * (parts.attention + parts.dense) * 128)
    with_underfill = dense + _underfill(128)

    assert compute_s(with_underfill, 64.0) == pytest.approx(compute_s(dense, 64.0) * 1.375)
    assert compute_s(with_underfill, 0.0) == compute_s(dense, 0.0)

"""A weight file whose per-tensor mix is not published is its base type scaled to the file's
stated size (serve/file_size.py; calibration/setups._weights)."""

from typing import Any

import pytest

from simulator.engine.calibration.predict import predict_row
from simulator.engine.calibration.setups import InferSetup, _mix_base, row_setup
from simulator.engine.formats.weights import weight_scheme
from simulator.engine.model.registry import load_model
from simulator.engine.serve.file_size import scaled_to_file, stored_bytes
from simulator.engine.serve.placement import model_parts, place
from simulator.engine.units import GIB
from tests.simulator.engine.corpus_rows import corpus_row

QWEN3_MOE = load_model("qwen3-30b-a3b")


def test_every_part_is_scaled_by_the_file_over_the_base_types_bytes():
    parts = model_parts(QWEN3_MOE)
    base = weight_scheme("Q4_K")
    scaled = scaled_to_file(base, parts, 17.28 * GIB)
    factor = 17.28 * GIB / stored_bytes(parts, base)
    assert stored_bytes(parts, scaled) == pytest.approx(17.28 * GIB)
    for part in ("attention", "dense", "experts", "embeddings", "output"):
        assert scaled.bytes_per_weight(part) == pytest.approx(base.bytes_per_weight(part) * factor)
    assert scaled.experts.name == "Q4_K"  # the kernels stay the base type's
    # What the placements store is the file.
    stored = sum(s.stored_bytes for s in place(parts, scaled, "gpu").shares)
    assert stored == pytest.approx(17.28 * GIB)


@pytest.mark.parametrize(
    ("quant", "base"),
    [("UD-Q4_K_XL (16.45 GiB)", "Q4_K"), ("UD-Q2_K_XL (unsloth, 211.03 GiB)", "Q2_K"),
     ("mix-IQ3_K (ubergarm)", "IQ3_K"), ("Q2_K_R4 (ubergarm custom, 238.69 GiB)", "Q2_K"),
     ("Q3_K_M (48.19 GiB)", "Q3_K"), ("UD-Q8_K_XL (llama-bench: Q8_0, 33.31 GiB)", "Q8_0"),
     ("custom mix reported by llama-bench as Q8_0 (307.20 GiB)", "Q8_0"),
     # Q8_K is no file type: the type llama-bench prints beside the name is
     ("UD-Q8_K_XL (Q8_0, 12.07 GiB)", "Q8_0"), ("UD-Q8_K_XL (12.07 GiB)", "Q8_K"),
     ("Q4_K_M", None), ("Q4_0", None), ("IQ4_K_R4", None)],
)  # fmt: skip
def test_a_mix_is_read_by_its_base_type_a_published_type_as_itself(quant: str, base: Any) -> None:
    assert _mix_base(quant) == base


def _row(quant: str) -> Any:
    return corpus_row(category="inference_moe_gpu", model="Qwen3-30B-A3B", quant=quant)


def test_a_mix_row_reads_the_stated_file_and_is_not_modeled_without_one():
    setup = row_setup(_row("UD-Q4_K_XL (Q4_K - Medium, 17.28 GiB)"))
    assert isinstance(setup, InferSetup)
    parts = model_parts(QWEN3_MOE)
    assert stored_bytes(parts, setup.request.workload.quant) == pytest.approx(17.28 * GIB)
    unsized = predict_row(_row("UD-Q4_K_XL"))
    assert not unsized.modeled
    assert "file's size" in unsized.reason


@pytest.mark.parametrize(
    ("file_size", "file_bytes"),
    [("17709692928 B", 17709692928.0), ("17.679 GiB", 17.679 * GIB), ("73.0 GB", 73.0e9)],
)
def test_a_size_printed_apart_from_the_quant_is_read_from_file_size(
    file_size: str, file_bytes: float
) -> None:
    """llama-bench's JSON prints `model_size` in bytes; a load log prints GiB."""
    row = corpus_row(
        category="inference_moe_gpu", model="Qwen3-30B-A3B", quant="UD-Q4_K_XL",
        file_size=file_size,
    )  # fmt: skip
    setup = row_setup(row)
    assert isinstance(setup, InferSetup)
    parts = model_parts(QWEN3_MOE)
    assert stored_bytes(parts, setup.request.workload.quant) == pytest.approx(file_bytes)


@pytest.mark.parametrize("file_size", ["", "about 17 gigs", "17709692928 bytes of RAM", "30.5 B"])
def test_a_file_size_that_is_not_one_leaves_the_mix_unmodeled(file_size: str) -> None:
    row = corpus_row(
        category="inference_moe_gpu", model="Qwen3-30B-A3B", quant="UD-Q4_K_XL",
        file_size=file_size,
    )  # fmt: skip
    prediction = predict_row(row)
    assert not prediction.modeled
    assert "file's size" in prediction.reason

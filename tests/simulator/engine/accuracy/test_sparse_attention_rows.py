"""How corpus rows of sparse-attention models (GLM-5, DeepSeek-V3.2) and the setups they come
with are read: a runtime's dense fallback, decode rows stating their requests in flight,
several GPUs with no stated split, clusters of machines, MLX's mixed-bit quants and depths
that are labels rather than counts."""

from typing import Any

import pytest

from simulator.engine.calibration.predict import predict_row
from simulator.engine.calibration.setups import InferSetup, row_setup
from simulator.engine.model.layers import model_params
from simulator.engine.model.registry import load_model
from simulator.engine.serve.file_size import stored_bytes
from simulator.engine.serve.placement import model_parts
from tests.simulator.engine.corpus_rows import corpus_row

SGLANG_GLM5 = {
    "engine": "SGLang, --tensor-parallel-size 8",
    "hardware": {"gpu": "NVIDIA RTX PRO 6000 Blackwell", "gpu_count": 8},
    "model": "GLM-5",
    "quant": "NVFP4",
    "category": "inference_moe_gpu",
}


def _setup(**changes: Any) -> InferSetup:
    setup = row_setup(corpus_row(**changes))
    assert isinstance(setup, InferSetup)
    return setup


def test_a_row_that_says_its_sparse_runtime_ran_dense_attention_is_simulated_dense() -> None:
    workload = {"phase": "decode", "context_depth": 65536, "batch": 1}
    sparse = _setup(**SGLANG_GLM5, workload=workload)
    dense = _setup(
        **SGLANG_GLM5,
        workload=workload,
        caveats="Attention runs as dense MLA (SGLang bypasses DSA backends on SM120).",
    )

    assert sparse.request.workload.reads_top_k
    assert not dense.request.workload.reads_top_k
    assert dense.request.workload.sparse_attention is False
    # past the indexer's top-k the dense attention reads every cached token: slower
    fast = predict_row(corpus_row(**SGLANG_GLM5, workload=workload)).predicted
    slow = predict_row(
        corpus_row(**SGLANG_GLM5, workload=workload, caveats="bypasses DSA backends")
    ).predicted
    assert fast is not None
    assert slow is not None
    assert slow < fast


def test_a_decode_row_stating_its_requests_in_flight_decodes_them_as_one_batch() -> None:
    setup = _setup(**SGLANG_GLM5, workload={"phase": "decode", "concurrency": 64})
    assert setup.request.workload.batch == 64


def test_a_depth_that_is_a_label_not_a_count_is_not_modeled_with_the_label() -> None:
    prediction = predict_row(
        corpus_row(**SGLANG_GLM5, workload={"phase": "decode", "context_depth": "128k"})
    )
    assert not prediction.modeled
    assert "context depth is not a count of tokens: '128k'" in prediction.reason


def test_several_gpus_under_sglang_with_no_stated_split_are_not_modeled() -> None:
    serving = {"phase": "serving", "prompt_tokens": 8192, "gen_tokens": 1024, "concurrency": 32}
    prediction = predict_row(corpus_row(**{**SGLANG_GLM5, "engine": "SGLang"}, workload=serving))
    assert not prediction.modeled
    assert "does not say how its GPUs split the model" in prediction.reason
    # the same row stating its tensor-parallel size is read
    stated = {**SGLANG_GLM5, "engine": "SGLang --tp 8"}
    assert predict_row(corpus_row(**stated, workload=serving)).modeled


def test_a_cluster_of_machines_is_not_modeled_as_one() -> None:
    prediction = predict_row(
        corpus_row(
            engine="exo (MLX backend, tensor parallel over Thunderbolt 5)",
            hardware={"system": "2 x Mac Studio M3 Ultra 512 GB (1024 GB total) cluster"},
            model="GLM-5",
            quant="MLX 8-bit",
        )
    )
    assert not prediction.modeled
    assert "cluster of several machines" in prediction.reason


MLX_GLM51 = {
    "engine": "mlx-lm (mlx_lm.benchmark)",
    "hardware": {"system": "Apple Mac Studio M3 Ultra 512GB"},
    "model": "GLM-5.1",
    "category": "inference_apple_silicon",
}


def test_an_mlx_mixed_bit_quant_reads_its_stated_bits_per_weight() -> None:
    setup = _setup(
        **MLX_GLM51, quant="MLX mixed-precision 2.9 bit (2.906 bpw, base memory 251.702 GB)"
    )
    glm = load_model("glm-5")
    scheme = setup.request.workload.quant
    # the whole bits' affine type ("2.9 bit" is neither 9-bit nor 2-bit's bytes) ...
    assert scheme.experts.name == "MLX2"
    # ... at the bytes 2.906 bits per weight give
    assert stored_bytes(model_parts(glm), scheme) == pytest.approx(2.906 / 8 * model_params(glm))


def test_a_mixed_bit_mlx_quant_without_its_bits_per_weight_is_not_modeled() -> None:
    prediction = predict_row(corpus_row(**MLX_GLM51, quant="MLX mixed-precision 4.5 bit"))
    assert not prediction.modeled
    assert "bits per weight" in prediction.reason

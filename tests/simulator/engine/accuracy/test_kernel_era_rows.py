"""Rows whose kernels or inputs the fitted constants do not describe are listed as not modeled
with the reason: llama.cpp ROCm prompts on CDNA before its MMQ kernels used matrix cores, and
training over documents packed with variable-length attention."""

from typing import Any

import pytest

from simulator.engine.calibration.predict import predict_row
from simulator.engine.calibration.setups import LAST_BUILD_BEFORE_CDNA_MATRIX_CORES
from tests.simulator.engine.corpus_rows import corpus_row

CDNA_REASON = "CDNA's matrix cores"
VARLEN_REASON = "variable-length attention"


def _llama_2_rocm(gpu: str, engine: str, phase: str, where: str = "") -> Any:
    workload = (
        {"phase": "prefill", "test": "pp512", "prompt_tokens": 512, "batch": 1}
        if phase == "prefill"
        else {"phase": "decode", "test": "tg128", "gen_tokens": 128, "batch": 1}
    )
    return corpus_row(
        engine=engine,
        hardware={"gpu": gpu, "gpu_count": 1},
        model="Llama 2 7B",
        quant="Q4_0 (3.56 GiB)",
        params_total_b=6.74,
        workload=workload,
        source={"url": "https://example.org/rocm", "where": where},
    )


@pytest.mark.parametrize(
    ("gpu", "build", "phase", "where", "refused"),
    [
        # lhl's MI300X page: a 2024 build's pp512 reads 20x below the matrix-core peak's figure
        ("AMD Instinct MI300X", "d5cb8684 (3891)", "prefill", "", True),
        (
            "AMD Instinct MI300X",
            f"abc ({LAST_BUILD_BEFORE_CDNA_MATRIX_CORES})",
            "prefill",
            "",
            True,
        ),
        # after the MFMA MMQ kernels, the same GPU's prompts are the constants' kernels
        ("AMD Instinct MI300X", "c81de6e1 (6092)", "prefill", "", False),
        # decode multiplies matrices by vectors, which never ran on the matrix cores
        ("AMD Instinct MI300X", "d5cb8684 (3891)", "decode", "", False),
        # RDNA's matrix peak is about its vector int8 rate: the fitted constants cover it
        ("AMD Radeon RX 7900 XTX", "d5cb8684 (3891)", "prefill", "", False),
        # no build counter printed: the pointer's date decides
        ("AMD Instinct MI300X", "", "prefill", "comment by a on 2024-10-02", True),
        ("AMD Instinct MI300X", "", "prefill", "comment by a on 2025-09-02", False),
        ("AMD Instinct MI300X", "", "prefill", "table (no date)", False),
    ],
)
def test_a_cdna_prompt_before_llama_cpps_matrix_core_kernels_is_not_modeled(
    gpu: str, build: str, phase: str, where: str, refused: bool
) -> None:
    engine = f"llama.cpp ROCm (build {build}), -ngl 99" if build else "llama.cpp ROCm, -ngl 99"
    prediction = predict_row(_llama_2_rocm(gpu, engine, phase, where))
    assert (CDNA_REASON in prediction.reason) is refused
    assert prediction.modeled is not refused
    assert prediction.predicted is None or prediction.predicted > 0


def _packed_training(engine: str) -> Any:
    return corpus_row(
        category="training_multi_gpu",
        engine=engine,
        hardware={"gpu": "NVIDIA A100-SXM4-80GB", "gpu_count": 8},
        model="Llama2-7B",
        quant="not stated (16-bit training)",
        metric="training throughput",
        value=3593.0,
        unit="tokens per second (per GPU, TGS)",
        workload={
            "phase": "train",
            "method": "full",
            "seq_len": 8192,
            "packing": True,
            "batch_size": 1,
            "grad_accum": 1,
            "parallelism": "8 GPUs; data-parallel strategy not stated",
        },
    )


def test_training_over_varlen_packed_documents_is_not_modeled_for_its_unstated_lengths() -> None:
    refused = predict_row(
        _packed_training("XTuner (full fine-tune, varlen attention); PyTorch 1.13")
    )
    assert not refused.modeled
    assert VARLEN_REASON in refused.reason
    # the same row without variable-length attention is not refused for it
    plain = predict_row(_packed_training("XTuner (full fine-tune); PyTorch 1.13"))
    assert plain.modeled
    assert VARLEN_REASON not in plain.reason

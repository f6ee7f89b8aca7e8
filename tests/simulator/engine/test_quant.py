"""Seed 000 "Quantization Formats": layer sizes, totals and implied bits/param."""

import pytest
from numpy.testing import assert_allclose

from simulator.engine.errors import EngineInputError
from simulator.engine.formats.training import (
    NF2_BITS,
    NF4_BITS,
    QUANT_FORMATS,
    implied_bits_per_param,
    layer_gib,
    nvfp4_effective_speedup,
    quant_format,
    require_supported,
)
from simulator.engine.model.layers import dense_params, expert_params, reference_layer, total_params
from simulator.engine.model.registry import load_model
from simulator.engine.train.compute import score_flops_fraction

GLM_LAYERS = 92
SEED_TABLE = {  # format: (MB per layer, GB for 92 layers), as printed
    "NF4": (2250, 202),
    "NF3": (1640, 147),
    "NF2": (1150, 103),
    "NF4d+NF2e": (1237, 111),
    "NF4d+NF3e": (1690, 152),
    "NVFP4": (2100, 189),
}


def glm_layer():
    return reference_layer(load_model("glm-4.7"))


@pytest.mark.parametrize(("name", "sizes"), SEED_TABLE.items())
def test_glm_layer_sizes_and_totals_match_the_seed_table(name, sizes):
    mib_per_layer, total_gib = sizes
    size = layer_gib(glm_layer(), quant_format(name), model_slug="glm-4.7")
    assert_allclose(size * 1024, mib_per_layer, rtol=0)  # measured override, MiB
    assert_allclose(size * GLM_LAYERS, total_gib, atol=0.5)  # printed rounded to 1 GB


def test_nf4_at_2250_mb_implies_4_60_bits_per_param():
    assert_allclose(implied_bits_per_param(2250, total_params(glm_layer())), 4.60, atol=0.005)


def test_mixed_format_from_component_bits_predicts_1237_mb():
    layer = glm_layer()
    # dense params at the NF4 rate plus expert params at the NF2 rate, bits → MiB
    predicted_mib = (dense_params(layer) * NF4_BITS + expert_params(layer) * NF2_BITS) / 8 / 2**20
    assert_allclose(predicted_mib, 1237, rtol=1e-3)


def test_models_without_measurements_use_bit_arithmetic():
    layer = reference_layer(load_model("llama-3.1-8b"))
    expected_gib = total_params(layer) * 16 / 8 / 2**30  # BF16: 16 bits per param
    assert_allclose(layer_gib(layer, quant_format("BF16"), model_slug="llama-3.1-8b"), expected_gib)


def test_every_format_has_positive_bit_rates():
    assert all(q.dense_bits > 0 and q.expert_bits > 0 for q in QUANT_FORMATS.values())


def test_it_looks_up_formats_case_insensitively():
    assert quant_format("nf4d+nf2e").name == "NF4d+NF2e"


def test_it_rejects_an_unknown_format_naming_the_field():
    with pytest.raises(EngineInputError) as error:
        quant_format("NF1")
    assert error.value.field == "workload.quant"


def test_it_rejects_nvfp4_without_fp4_cores():
    with pytest.raises(EngineInputError, match="FP4 tensor cores"):
        require_supported(quant_format("NVFP4"), gpu_name="RTX 4090", gpu_has_fp4=False)


def test_nvfp4_is_accepted_on_fp4_cores():
    require_supported(quant_format("NVFP4"), gpu_name="RTX 5090", gpu_has_fp4=True)


def test_nvfp4_effective_speedup_is_the_seeds_2_74_at_s_1024():
    # attention scores (4.7 % of FLOPs) stay BF16; the rest runs 3× faster
    fraction = score_flops_fraction(glm_layer(), 1024)
    assert_allclose(fraction, 0.047, atol=5e-4)
    assert_allclose(nvfp4_effective_speedup(fraction), 2.74, atol=0.005)

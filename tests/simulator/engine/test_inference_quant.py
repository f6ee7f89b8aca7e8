"""Weight formats for inference: bits per weight from block layouts, and per-part mixes."""

import pytest

from simulator.engine.errors import EngineInputError
from simulator.engine.formats.weights import WEIGHT_TYPES, weight_scheme, weight_type

QK_K = 256  # weights per ggml k-quant super-block
QK8_0 = 32  # weights per q8_0 block
F16_BYTES = 2


@pytest.mark.parametrize(
    ("name", "block_bytes", "block_weights"),
    [
        ("Q8_0", QK8_0 + F16_BYTES, QK8_0),  # 32 int8 + f16 scale
        ("Q6_K", 128 + 64 + 16 + F16_BYTES, QK_K),  # ql, qh, int8 scales, f16 d
        ("Q4_K", 2 * F16_BYTES + 12 + 128, QK_K),  # d, dmin, 6-bit scales/mins, nibbles
        ("IQ4_XS", F16_BYTES + 2 + 4 + 128, QK_K),  # d, scales_h, scales_l, nibbles
        ("IQ2_XXS", F16_BYTES + 64, QK_K),  # d + 32 uint16 grid indices with signs
        ("IQ1_KT", 8 + 32 + 16, QK_K),  # sh, ql, qh (trellis)
    ],
)
def test_bits_per_weight_follow_the_block_layout(name, block_bytes, block_weights):
    assert weight_type(name).bits_per_weight == pytest.approx(8 * block_bytes / block_weights)


def test_microscaling_fp4_adds_its_shared_scale():
    e2m1_bits, scale_bits = 4, 8
    assert weight_type("MXFP4").bits_per_weight == e2m1_bits + scale_bits / 32
    assert weight_type("NVFP4").bits_per_weight == e2m1_bits + scale_bits / 16


def test_every_type_names_its_source():
    assert all(t.source for t in WEIGHT_TYPES.values())


def test_names_are_case_insensitive():
    assert weight_type("q4_k_m") is WEIGHT_TYPES["Q4_K_M"]


def test_a_plus_mix_puts_the_second_type_on_the_routed_experts_only():
    scheme = weight_scheme("Q8_0+IQ2_XXS")
    assert scheme.attention.name == scheme.dense.name == scheme.output.name == "Q8_0"
    assert scheme.experts.name == "IQ2_XXS"


def test_a_per_part_object_overrides_the_default():
    scheme = weight_scheme({"default": "Q8_0", "experts": "IQ4_XS", "output": "Q6_K"})
    assert (scheme.attention.name, scheme.experts.name, scheme.output.name) == (
        "Q8_0",
        "IQ4_XS",
        "Q6_K",
    )
    assert scheme.bytes_per_weight("experts") == pytest.approx(4.25 / 8)


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ("Q3_Z", "workload.quant"),
        ({"experts": "Q4_K"}, "workload.quant.default"),
        ({"default": "Q8_0", "experts": "nope"}, "workload.quant.experts"),
        ({"default": "Q8_0", "mlp": "Q4_K"}, "workload.quant.mlp"),
        (4, "workload.quant"),
    ],
)
def test_it_names_the_bad_quant_field(spec, field):
    with pytest.raises(EngineInputError) as error:
        weight_scheme(spec)
    assert error.value.field == field

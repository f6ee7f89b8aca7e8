"""Weight formats of the engines people serve with, as bits per weight, and per-tensor mixes.

Each type's bits per weight (bpw) include its block scales; the source names the block layout
or the table the figure comes from. A `WeightScheme` gives each part of the model its own type,
as llama.cpp's `--override-tensor`/`--custom-q` recipes do (e.g. experts below attention).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from simulator.engine.errors import EngineInputError

BITS_PER_BYTE = 8
PARTS = ("attention", "dense", "experts", "embeddings", "output")
"""`dense`: every always-on MLP (dense layers, shared experts) and the router."""
MIX_SEPARATOR = "+"  # "Q8_0+IQ4_XS": the first type everywhere, the second for routed experts


# llama-quantize's mixes put some tensors at higher types; their bpw is the whole-file average
# that table prints for Llama 3.1 8B (embeddings and output included).
MIX_TABLE = (
    "llama.cpp tools/quantize/README.md (commit 311c2c9), Llama-3.1-8B table, whole-file bpw"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class WeightType:
    name: str
    bits_per_weight: float
    source: str


WEIGHT_TYPES: dict[str, WeightType] = {
    t.name: t
    for t in (
        WeightType(name="BF16", bits_per_weight=16.0, source="bfloat16, 2 bytes"),
        WeightType(name="F16", bits_per_weight=16.0, source="IEEE half, 2 bytes"),
        WeightType(
            name="FP8",
            bits_per_weight=8.0,
            source="E4M3, 1 byte; per-tensor or 128×128 block scales add < 0.01 bit",
        ),
        WeightType(
            name="Q8_0", bits_per_weight=8.5, source="ggml block_q8_0: 32 int8 + f16 scale = 34 B"
        ),
        WeightType(
            name="Q6_K", bits_per_weight=6.5625, source="ggml block_q6_K: 210 B per 256 weights"
        ),
        WeightType(
            name="Q4_1",
            bits_per_weight=5.0,
            source="ggml block_q4_1: 2 f16 + 16 B = 20 B per 32 weights",
        ),
        WeightType(
            name="Q5_0",
            bits_per_weight=5.5,
            source="ggml block_q5_0: f16 + 4 B high bits + 16 B = 22 B per 32 weights",
        ),
        WeightType(
            name="Q5_1",
            bits_per_weight=6.0,
            source="ggml block_q5_1: 2 f16 + 4 B + 16 B = 24 B per 32 weights",
        ),
        WeightType(
            name="Q3_K",
            bits_per_weight=3.4375,
            source="ggml block_q3_K: 32 + 64 + 12 B + f16 = 110 B per 256 weights",
        ),
        WeightType(
            name="IQ2_XS",
            bits_per_weight=2.3125,
            source="ggml block_iq2_xs: f16 + 64 + 8 B = 74 B per 256 weights",
        ),
        WeightType(
            name="IQ2_S",
            bits_per_weight=2.5625,
            source="ggml block_iq2_s: f16 + 64 + 8 + 8 B = 82 B per 256 weights",
        ),
        WeightType(
            name="IQ3_XXS",
            bits_per_weight=3.0625,
            source="ggml block_iq3_xxs: f16 + 64 + 32 B = 98 B per 256 weights",
        ),
        WeightType(
            name="IQ3_S",
            bits_per_weight=3.4375,
            source="ggml block_iq3_s: f16 + 64 + 8 + 32 + 4 B = 110 B per 256 weights",
        ),
        WeightType(
            name="IQ1_S",
            bits_per_weight=1.5625,
            source="ggml block_iq1_s: f16 + 32 + 16 B = 50 B per 256 weights",
        ),
        WeightType(
            name="IQ1_M",
            bits_per_weight=1.75,
            source="ggml block_iq1_m: 32 + 16 + 8 B = 56 B per 256 weights",
        ),
        WeightType(
            name="IQ4_NL",
            bits_per_weight=4.5,
            source="ggml block_iq4_nl: f16 + 16 B = 18 B per 32 weights",
        ),
        WeightType(name="F32", bits_per_weight=32.0, source="IEEE single, 4 bytes"),
        *(
            WeightType(
                name=f"MLX{bits}",
                bits_per_weight=bits + 0.5,
                source=f"MLX affine quantization, {bits} bits: a 16-bit scale and bias per group "
                "of 64 weights, MLX's default group size (mlx.core.quantize docs)",
            )
            for bits in (2, 3, 4, 5, 6, 8)
        ),
        WeightType(name="Q2_K", bits_per_weight=3.1593, source=MIX_TABLE),
        WeightType(name="Q2_K_S", bits_per_weight=2.9697, source=MIX_TABLE),
        WeightType(name="Q3_K_S", bits_per_weight=3.6429, source=MIX_TABLE),
        WeightType(name="Q3_K_L", bits_per_weight=4.2979, source=MIX_TABLE),
        WeightType(name="Q4_K_S", bits_per_weight=4.6672, source=MIX_TABLE),
        WeightType(name="Q5_K_S", bits_per_weight=5.5704, source=MIX_TABLE),
        WeightType(name="IQ2_M", bits_per_weight=2.9294, source=MIX_TABLE),
        WeightType(name="IQ3_XS", bits_per_weight=3.4977, source=MIX_TABLE),
        WeightType(name="IQ3_M", bits_per_weight=3.7628, source=MIX_TABLE),
        WeightType(
            name="Q5_K_M",
            bits_per_weight=5.68,
            source="llama.cpp tools/quantize/README.md, Llama-2-7B table (Q5_K/Q6_K mix)",
        ),
        WeightType(
            name="Q5_K", bits_per_weight=5.5, source="ggml block_q5_K: 176 B per 256 weights"
        ),
        WeightType(
            name="Q4_K_M",
            bits_per_weight=4.84,
            source="llama.cpp tools/quantize/README.md, Llama-2-7B table (Q4_K/Q6_K mix)",
        ),
        WeightType(
            name="Q4_K", bits_per_weight=4.5, source="ggml block_q4_K: 144 B per 256 weights"
        ),
        WeightType(
            name="Q4_0", bits_per_weight=4.5, source="ggml block_q4_0: 32 nibbles + f16 = 18 B"
        ),
        WeightType(
            name="IQ6_K", bits_per_weight=6.625, source="ik_llama.cpp iqk block_iq6_k (PR #14)"
        ),
        WeightType(
            name="IQ5_K",
            bits_per_weight=5.5,
            source="ik_llama.cpp block_iq5_k: 176 B per 256 weights (PR #8)",
        ),
        *(
            WeightType(
                name=name,
                bits_per_weight=bits,
                source=f"ik_llama.cpp ggml-common.h {block}"
                + (", repacked 4 rows at a time (block_*_r4 = 4 blocks)" if "R4" in name else ""),
            )
            for names, bits, block in (
                (("IQ2_K", "IQ2_K_R4"), 2.375, "block_iq2_k: 2 + 2 + 8 + 64 = 76 B per 256"),
                (
                    ("IQ3_K", "IQ3_K_R4"),
                    3.4375,
                    "block_iq3_k: 2 + 2 + 2 + 8 + 64 + 32 = 110 B per 256",
                ),
                (("IQ4_K", "IQ4_K_R4"), 4.5, "block_iq4_k: 2 + 2 + 4 + 8 + 128 = 144 B per 256"),
                (("IQ5_K_R4",), 5.5, "block_iq5_k: 176 B per 256"),
                (("Q6_0", "Q6_0_R4"), 6.5, "block_q6_0: 2 + 8 + 16 = 26 B per 32"),
            )
            for name in names
        ),
        WeightType(
            name="IQ4_XS",
            bits_per_weight=4.25,
            source="ggml block_iq4_xs: 136 B per 256 weights",
        ),
        # ik_llama.cpp's row-interleaved repacks keep their base type's bytes: 4 rows' blocks
        # stored together
        WeightType(
            name="IQ4_XS_R4",
            bits_per_weight=4.25,
            source="ik_llama.cpp block_iq4_xs_r4: 4 block_iq4_xs rows interleaved, 544 B per 1024",
        ),
        WeightType(
            name="IQ2_XXS",
            bits_per_weight=2.0625,
            source="ggml block_iq2_xxs: f16 + 64 uint16 = 66 B per 256 weights",
        ),
        WeightType(
            name="IQ4_KT",
            bits_per_weight=4.0,
            source="ik_llama.cpp trellis block_iq4_kt: 128 B per 256 weights",
        ),
        WeightType(
            name="IQ3_KT",
            bits_per_weight=3.125,
            source="ik_llama.cpp trellis block_iq3_kt: 100 B per 256 weights",
        ),
        WeightType(
            name="IQ2_KT",
            bits_per_weight=2.125,
            source="ik_llama.cpp trellis block_iq2_kt: 68 B per 256 weights",
        ),
        WeightType(
            name="IQ1_KT",
            bits_per_weight=1.75,
            source="ik_llama.cpp trellis block_iq1_kt: 8 + 32 + 16 = 56 B per 256 weights",
        ),
        WeightType(
            name="TRELLIS3",
            bits_per_weight=3.0,
            source="seed 001: Metal Marlin trellis 3-bit (3bpw), packed uint8 in memory",
        ),
        WeightType(
            name="MXFP4",
            bits_per_weight=4.25,
            source="OCP Microscaling spec v1.0: 32 × E2M1 + one E8M0 scale",
        ),
        WeightType(
            name="NVFP4",
            bits_per_weight=4.5,
            source="NVIDIA Blackwell NVFP4: 16 × E2M1 + one E4M3 scale",
        ),
        WeightType(
            name="AWQ",
            bits_per_weight=4.15625,
            source="AutoAWQ int4, group 128: f16 scale + 4-bit zero per group",
        ),
        WeightType(
            name="GPTQ",
            bits_per_weight=4.15625,
            source="AutoGPTQ int4, group 128: f16 scale + packed 4-bit zero per group",
        ),
    )
}


@dataclass(frozen=True, slots=True, kw_only=True)
class WeightScheme:
    """One weight type per part of the model; `name` is how the request spelled it."""

    name: str
    attention: WeightType
    dense: WeightType
    experts: WeightType
    embeddings: WeightType
    output: WeightType

    def bytes_per_weight(self, part: str) -> float:
        """Bytes per weight of `part`, one of `PARTS`."""
        weight_type: WeightType = getattr(self, part)
        return weight_type.bits_per_weight / BITS_PER_BYTE


# ik_llama.cpp's row-interleaved repacks ("IQ4_NL_R4", "Q4_0_R8", "Q8_0_R8"): N rows' blocks
# of the base type stored together for its CPU GEMM kernels (ik_llama.cpp ggml-common.h,
# block_iq4_nl_r4 = 4 × block_iq4_nl, block_q8_0_r8 = 8 × block_q8_0), so the base type's bytes.
REPACKED = re.compile(r"^(?P<base>\w+?)_R(?:4|8|16)$", re.IGNORECASE)


def weight_type(name: str, *, field: str = "workload.quant") -> WeightType:
    """The type called `name` (case-insensitive), a repack of a known type (`REPACKED`) as
    its base; `EngineInputError` on `field` if unknown."""
    for key, value in WEIGHT_TYPES.items():
        if key.lower() == name.lower():
            return value
    repacked = REPACKED.match(name)
    if repacked and repacked["base"].lower() in {key.lower() for key in WEIGHT_TYPES}:
        base = weight_type(repacked["base"], field=field)
        source = f"{base.source}; repacked rows interleaved (ik_llama.cpp), the same bytes"
        return WeightType(name=name.upper(), bits_per_weight=base.bits_per_weight, source=source)
    known = ", ".join(WEIGHT_TYPES)
    raise EngineInputError(field=field, message=f"unknown weight type {name!r}; known: {known}")


def uniform_scheme(name: str) -> WeightScheme:
    """`name` everywhere; `"A+B"`: type A everywhere but the routed experts, which get B."""
    base, _, experts = name.partition(MIX_SEPARATOR)
    everywhere = weight_type(base.strip())
    expert_type = weight_type(experts.strip()) if experts else everywhere
    return WeightScheme(
        name=name,
        attention=everywhere,
        dense=everywhere,
        experts=expert_type,
        embeddings=everywhere,
        output=everywhere,
    )


def mixed_scheme(parts: Mapping[str, object]) -> WeightScheme:
    """`{"default": "Q8_0", "experts": "IQ2_XXS", ...}`: a type per part, `default` elsewhere."""
    unknown = set(parts) - {*PARTS, "default"}
    if unknown:
        raise EngineInputError(
            field=f"workload.quant.{sorted(unknown)[0]}",
            message=f"is not a part; parts: default, {', '.join(PARTS)}",
        )
    names = dict(parts)
    if not all(isinstance(value, str) for value in names.values()) or "default" not in names:
        raise EngineInputError(
            field="workload.quant.default", message="is required, and every part names a type"
        )
    types = {
        part: weight_type(str(names.get(part, names["default"])), field=f"workload.quant.{part}")
        for part in PARTS
    }
    label = ",".join(f"{part}={types[part].name}" for part in PARTS)
    return WeightScheme(name=label, **types)


def weight_scheme(spec: object) -> WeightScheme:
    """A scheme from the request's `quant`: a type name, `"A+B"`, or a per-part object."""
    if isinstance(spec, str):
        return uniform_scheme(spec)
    if isinstance(spec, Mapping):
        return mixed_scheme(spec)
    raise EngineInputError(
        field="workload.quant", message="must be a weight type name or an object of parts"
    )

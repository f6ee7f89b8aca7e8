"""Quantization formats as bits per parameter for the dense and the routed-expert parts.

A mixed format stores dense params (attention, shared/dense MLP, router) at the dense rate
and routed experts at the expert rate (reference-model.md §2). For GLM-4.7 the seed's
measured layer sizes override the bit arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulator.engine.errors import EngineInputError
from simulator.engine.formats.weights import WEIGHT_TYPES
from simulator.engine.model.layers import LayerShape, dense_params, expert_params

BITS_PER_BYTE = 8
MIB = 1024**2
GIB = 1024**3

# Implied bits/param of the seed's measured GLM-4.7 layer sizes over 4.10 B params/layer
# (seed 000 "Quantization Formats", reference-model.md §2).
NF4_BITS = 4.60  # 2250 MiB/layer
NF3_BITS = 3.355  # 1640 MiB/layer
NF2_BITS = 2.35  # 1150 MiB/layer; the seed's cross-check uses 2.35 for experts
# NVFP4 is one format for training and serving: the weight-type table's definition (16 E2M1
# values and one E4M3 scale, 4.5 bits); GLM-4.7's NVFP4 layers keep the seed's measured size.
NVFP4_BITS = WEIGHT_TYPES["NVFP4"].bits_per_weight
BF16_BITS = 16.0
INT8_BITS = 8.0  # LLM.int8: one fp32 absmax per row adds < 0.01 bit at h ≥ 2048
NVFP4_EFFECTIVE_SPEEDUP = 2.74  # seed 000 "NVFP4 on Blackwell": 3x kernels, attention in BF16
NVFP4_KERNEL_SPEEDUP = 3.0  # seed 000: raw FP4 kernel speedup the 2.74 was derived from
FP8_NAME = "FP8"

# Seed 000's measured layer sizes for GLM-4.7 (MiB per layer, "Quantization Formats" table).
MEASURED_LAYER_MIB: dict[tuple[str, str], float] = {
    ("glm-4.7", "NF4"): 2250.0,
    ("glm-4.7", "NF3"): 1640.0,
    ("glm-4.7", "NF2"): 1150.0,
    ("glm-4.7", "NF4d+NF2e"): 1237.0,
    ("glm-4.7", "NF4d+NF3e"): 1690.0,
    ("glm-4.7", "NVFP4"): 2100.0,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class QuantFormat:
    name: str
    dense_bits: float
    expert_bits: float
    compute_speedup: float = 1.0
    requires_fp4: bool = False
    # The linear layers' GEMMs run on FP8 tensor cores (Transformer Engine, torchao float8):
    # the speedup is the GPU's FP8/BF16 peak ratio on those FLOPs (train/precision.py), set
    # per request because it depends on the GPU.
    fp8_gemms: bool = False
    description: str = ""

    @property
    def dequantized_per_use(self) -> bool:
        """Stored below BF16 and computed in BF16 (bitsandbytes NF*, LLM.int8): every matmul
        dequantizes its weight first. NVFP4 computes in FP4 natively; BF16 is computed as
        stored."""
        return self.dense_bits < 16 and self.compute_speedup == 1.0 and not self.requires_fp4


QUANT_FORMATS: dict[str, QuantFormat] = {
    q.name: q
    for q in (
        QuantFormat(
            name="NF4",
            dense_bits=NF4_BITS,
            expert_bits=NF4_BITS,
            description="Standard 4-bit NormalFloat",
        ),
        QuantFormat(
            name="NF3", dense_bits=NF3_BITS, expert_bits=NF3_BITS, description="3-bit NormalFloat"
        ),
        QuantFormat(
            name="NF2", dense_bits=NF2_BITS, expert_bits=NF2_BITS, description="2-bit NormalFloat"
        ),
        QuantFormat(
            name="NF4d+NF2e",
            dense_bits=NF4_BITS,
            expert_bits=NF2_BITS,
            description="NF4 dense + NF2 experts (best size/quality)",
        ),
        QuantFormat(
            name="NF4d+NF3e",
            dense_bits=NF4_BITS,
            expert_bits=NF3_BITS,
            description="NF4 dense + NF3 experts (better quality)",
        ),
        QuantFormat(
            name="NVFP4",
            dense_bits=NVFP4_BITS,
            expert_bits=NVFP4_BITS,
            compute_speedup=NVFP4_EFFECTIVE_SPEEDUP,
            requires_fp4=True,
            description="Blackwell HW FP4 (MXFP4, 4.25 bpp)",
        ),
        QuantFormat(
            name="BF16",
            dense_bits=BF16_BITS,
            expert_bits=BF16_BITS,
            description="Unquantized bfloat16",
        ),
        QuantFormat(
            name="INT8", dense_bits=INT8_BITS, expert_bits=INT8_BITS, description="LLM.int8 8-bit"
        ),
        QuantFormat(
            name=FP8_NAME,
            dense_bits=BF16_BITS,
            expert_bits=BF16_BITS,
            fp8_gemms=True,
            description="BF16 weights, FP8 GEMMs (Transformer Engine, torchao float8; Ada+)",
        ),
    )
}


def quant_format(name: str) -> QuantFormat:
    """The format called `name` (case-insensitive); `EngineInputError` on `workload.quant`."""
    for key, fmt in QUANT_FORMATS.items():
        if key.lower() == name.lower():
            return fmt
    known = ", ".join(QUANT_FORMATS)
    message = f"unknown format {name!r}; known: {known}"
    raise EngineInputError(field="workload.quant", message=message)


def require_supported(quant: QuantFormat, *, gpu_name: str, gpu_has_fp4: bool) -> None:
    """NVFP4 runs only on FP4 tensor cores; never fall back silently to another format."""
    if quant.requires_fp4 and not gpu_has_fp4:
        raise EngineInputError(
            field="workload.quant",
            message=f"{quant.name} needs FP4 tensor cores (Blackwell); {gpu_name} has none",
        )


def layer_bits(layer: LayerShape, quant: QuantFormat) -> float:
    return dense_params(layer) * quant.dense_bits + expert_params(layer) * quant.expert_bits


def layer_gib(layer: LayerShape, quant: QuantFormat, *, model_slug: str = "") -> float:
    """Stored size of one layer: the seed's measurement where there is one, else bit arithmetic."""
    measured = MEASURED_LAYER_MIB.get((model_slug, quant.name))
    if measured is not None:
        return measured / 1024  # reference-model.md §2: layer_gb = MB / 1024
    return layer_bits(layer, quant) / BITS_PER_BYTE / GIB


def implied_bits_per_param(layer_mib: float, params: int) -> float:
    return layer_mib * MIB * BITS_PER_BYTE / params


def low_precision_speedup(unchanged_share: float, kernel_speedup: float) -> float:
    """Amdahl (seed 000, "NVFP4 on Blackwell"): the linear layers' GEMMs run
    `kernel_speedup`× faster, the `unchanged_share` of the work (attention scores in BF16,
    and for FP8 training whatever of the step is not a GEMM) at its old pace."""
    return 1.0 / (unchanged_share + (1.0 - unchanged_share) / kernel_speedup)


def nvfp4_effective_speedup(score_flops_fraction: float) -> float:
    return low_precision_speedup(score_flops_fraction, NVFP4_KERNEL_SPEEDUP)

"""The assumption checks of seed 000 (`streaming_sim.py --validate-only`), as data.

Run by `python manage.py simulate --validate`; a failed check makes the command exit non-zero.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulator.engine.formats.training import (
    MEASURED_LAYER_MIB,
    NVFP4_EFFECTIVE_SPEEDUP,
    QUANT_FORMATS,
    implied_bits_per_param,
    layer_bits,
    nvfp4_effective_speedup,
)
from simulator.engine.model.layers import (
    dense_params,
    expert_params,
    model_params,
    reference_layer,
    total_params,
)
from simulator.engine.model.lora import LoraConfig, lora_bytes_per_layer, lora_params_per_layer
from simulator.engine.model.registry import load_model, model_slugs
from simulator.engine.train.compute import score_flops_fraction
from simulator.engine.train.memory import (
    MAX_MICRO_BATCH,
    activation_bytes,
    activation_bytes_per_sequence,
)

CARD_RTOL = 0.03  # refined totals (embeddings + MTP) within 3 % of each model card
REFERENCE_CARD_RTOL = 0.10  # the seed accepts 377 B against the card's 355 B (+6.3 %)
BITS_ABOVE_NOMINAL = (0.0, 1.0)  # block scales add up to one bit over the nominal width
NOMINAL_BITS = {"NF4": 4, "NF3": 3, "NF2": 2, "NVFP4": 4}
MIXED_RTOL = 0.01  # seed: component bits predict the mixed size "exactly"
LORA_SEED = (6.36e6, 101.7e6)  # seed 000 "LoRA Configuration": params, bytes per layer
LORA_RTOL = 0.005
LINEARITY_RTOL = 1e-12
SPEEDUP_RTOL = 0.01
SEED_SEQ_LEN = 1024
SEED_EXPERT_FRACTION = 0.921  # seed 000 "Model Architecture"


@dataclass(frozen=True, slots=True, kw_only=True)
class Check:
    name: str
    passed: bool
    detail: str


def _close(got: float, want: float, rtol: float) -> bool:
    return abs(got - want) <= rtol * abs(want)


def param_total_checks() -> list[Check]:
    checks = []
    for slug in model_slugs():
        model = load_model(slug)
        if model.card_params_b is None:
            continue
        got = model_params(model, include_mtp=True) / 1e9
        ok = _close(got, model.card_params_b, CARD_RTOL)
        detail = f"{got:.1f} B vs card {model.card_params_b:g} B"
        checks.append(Check(name=f"param total {slug}", passed=ok, detail=detail))
    glm = load_model("glm-4.7")
    ref = glm.num_layers * total_params(reference_layer(glm)) / 1e9
    ok = _close(ref, glm.card_params_b or 0.0, REFERENCE_CARD_RTOL)
    checks.append(Check(name="reference total glm-4.7", passed=ok, detail=f"{ref:.0f} B vs 355 B"))
    return checks


def implied_bits_checks() -> list[Check]:
    layer = reference_layer(load_model("glm-4.7"))
    checks = []
    for (_, name), mib in MEASURED_LAYER_MIB.items():
        bits = implied_bits_per_param(mib, total_params(layer))
        if name in NOMINAL_BITS:
            low = NOMINAL_BITS[name] + BITS_ABOVE_NOMINAL[0]
            ok = low <= bits <= NOMINAL_BITS[name] + BITS_ABOVE_NOMINAL[1]
            checks.append(Check(name=f"implied bits {name}", passed=ok, detail=f"{bits:.2f}"))
        else:
            predicted = layer_bits(layer, QUANT_FORMATS[name]) / 8 / 2**20
            ok = _close(predicted, mib, MIXED_RTOL)
            detail = f"components predict {predicted:.0f} MB vs measured {mib:.0f} MB"
            checks.append(Check(name=f"mixed size {name}", passed=ok, detail=detail))
    share = expert_params(layer) / (expert_params(layer) + dense_params(layer))
    ok = _close(share, SEED_EXPERT_FRACTION, 0.001)
    checks.append(Check(name="expert fraction", passed=ok, detail=f"{share * 100:.1f} %"))
    return checks


def lora_checks() -> list[Check]:
    layer = reference_layer(load_model("glm-4.7"))
    params = lora_params_per_layer(layer, LoraConfig())
    size = lora_bytes_per_layer(layer, LoraConfig())
    ok = _close(params, LORA_SEED[0], LORA_RTOL) and _close(size, LORA_SEED[1], LORA_RTOL)
    detail = f"{params / 1e6:.2f} M params, {size / 1e6:.1f} MB per layer"
    return [Check(name="LoRA size glm-4.7", passed=ok, detail=detail)]


def linearity_checks() -> list[Check]:
    checks = []
    for slug in model_slugs():
        layer = reference_layer(load_model(slug))
        one = activation_bytes_per_sequence(layer, SEED_SEQ_LEN)
        worst = max(
            abs(activation_bytes(layer, b, SEED_SEQ_LEN) - b * one) / (b * one)
            for b in range(1, MAX_MICRO_BATCH + 1)
        )
        name, detail = f"activation linear in B {slug}", f"max rel. error {worst:.1e}"
        checks.append(Check(name=name, passed=worst <= LINEARITY_RTOL, detail=detail))
    return checks


def speedup_checks() -> list[Check]:
    layer = reference_layer(load_model("glm-4.7"))
    derived = nvfp4_effective_speedup(score_flops_fraction(layer, SEED_SEQ_LEN))
    ok = _close(derived, NVFP4_EFFECTIVE_SPEEDUP, SPEEDUP_RTOL)
    return [Check(name="NVFP4 effective speedup", passed=ok, detail=f"derived {derived:.2f}x")]


def run_checks() -> list[Check]:
    return [
        *param_total_checks(),
        *implied_bits_checks(),
        *lora_checks(),
        *linearity_checks(),
        *speedup_checks(),
    ]

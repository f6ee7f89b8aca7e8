"""A weight file whose mix of types is not published (Unsloth's dynamic "UD-…_XL" quants,
ubergarm's "mix-IQ…" and other custom mixes): every part is taken at the named base type
and then scaled so that the model's stored bytes equal the file's stated size. The file size
is what a decode step reads, which is what bounds it; which tensors got the extra bits is
not stated, so every part gets the same share of them (docs/model.md, "Weights").
"""

from __future__ import annotations

from dataclasses import replace

from simulator.engine.errors import EngineInputError
from simulator.engine.formats.weights import PARTS, WeightScheme
from simulator.engine.serve.placement import ModelParts


def stored_bytes(parts: ModelParts, scheme: WeightScheme) -> float:
    """Bytes of the whole model in `scheme` as the placements store it (a tied LM head once)."""
    bpw = scheme.bytes_per_weight
    output = 0.0 if parts.tied else parts.output * bpw("output")
    experts = parts.moe_layers * parts.num_experts * parts.expert * bpw("experts")
    return (
        parts.attention * bpw("attention")
        + parts.dense * bpw("dense")
        + parts.embeddings * bpw("embeddings")
        + output
        + experts
    )


def scaled_to_file(scheme: WeightScheme, parts: ModelParts, file_bytes: float) -> WeightScheme:
    """`scheme` with every part's bits per weight times file_bytes / the scheme's bytes; the
    type names stay (the kernels are the base type's)."""
    if file_bytes <= 0:
        raise EngineInputError(field="workload.file_bytes", message="must be positive")
    factor = file_bytes / stored_bytes(parts, scheme)
    changes = {}
    for part in PARTS:
        base = getattr(scheme, part)
        changes[part] = replace(
            base,
            bits_per_weight=base.bits_per_weight * factor,
            source=f"{base.name} scaled ×{factor:.3f} to the stated file size",
        )
    return replace(scheme, name=f"{scheme.name} (file size)", **changes)

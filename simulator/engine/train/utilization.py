"""Small-batch GPU efficiency from seed 000's NF4 dequant + matmul benchmark (RTX 4090).

The seed's flat 70 % is an end-to-end figure for large batches; the benchmark shows isolated
NF4 matmuls at 81.3 % for one 1024-token sequence rising to 96.6 % at 16. Refined mode scales
the request's utilization by measured(T) / measured(plateau), T = B·S tokens per micro-batch.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

# seed 000 "NF4 dequant + matmul benchmark": tokens per matmul (B × 1024) → utilization.
MEASURED_TOKENS = (1024.0, 4096.0, 8192.0, 16384.0)
MEASURED_NF4_UTILIZATION = (0.813, 0.938, 0.956, 0.966)
PLATEAU = MEASURED_NF4_UTILIZATION[-1]


def utilization_factors(tokens: NDArray[np.float64]) -> NDArray[np.float64]:
    """measured(T) / plateau, elementwise, linear in log2 T between the seed's points, 1
    beyond the last and held at the first point's value below it (no data under 1024
    tokens)."""
    x = np.log2(np.clip(tokens, MEASURED_TOKENS[0], MEASURED_TOKENS[-1]))
    measured = np.interp(x, np.log2(MEASURED_TOKENS), MEASURED_NF4_UTILIZATION)
    factors: NDArray[np.float64] = measured / PLATEAU
    return factors


def utilization_factor(tokens: float) -> float:
    """`utilization_factors` of one micro-batch of `tokens` tokens."""
    return float(utilization_factors(np.asarray(tokens, dtype=np.float64)))

"""Costs that add and scale, and registries of the small rules that produce them.

A `Cost` counts what a piece of work asks of the place that runs it, independent of how fast
that place is: bytes read from its memory (weights and KV cache apart), FLOPs, fixed per-layer
costs (kernel launches, thread barriers) and bytes crossing the host link. Costs add with `+`
and scale with `*` (a step of B tokens is B times some terms), so a step's cost is the sum of
its rules' costs; the device then turns counts into seconds in one place (decode.py,
prefill.py). This is the shape of jax's `experimental/roofline` (a `RooflineResult` per
primitive, summed over a program).

A `CostRules` registry holds a workload's rules by name, in registration order: a new effect
(another attention kind, a parallelism strategy, a runtime's kernel path) is a new rule, and a
result can list what each rule contributed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

Inputs = TypeVar("Inputs")


@dataclass(frozen=True, slots=True, kw_only=True)
class Cost:
    weight_bytes: float = 0.0  # weights read from the place's memory
    kv_bytes: float = 0.0  # KV cache read
    flops: float = 0.0  # matrix products with the weights (GEMMs, GEMVs)
    # QKᵀ and score·V against the KV cache: attention kernels, which reach their own fraction
    # of peak (the device class's attention_efficiency), not the GEMMs' one.
    attention_flops: float = 0.0
    # Decode's one query per sequence against the cache: matrix–vector work at the GEMMs'
    # efficiency, but on the activations' datapath (never a CPU's int8 weight path).
    cache_flops: float = 0.0
    # A routed expert's GEMM with few rows runs below the dense efficiency (prefill.py,
    # "expert_gemm_underfill"): its FLOPs over the rows m each expert gets, which the device
    # multiplies by its runtime's m½ (a kernel's tile, so the device's and the runtime's).
    # Idle tensor-core lanes, not work: not in `all_flops`.
    underfill_flops: float = 0.0
    layer_visits: float = 0.0  # per-layer fixed costs, × the device class's layer_overhead_s
    # Layers whose FFN is routed experts: the router, top-k, expert gather and combine kernels
    # a dense FFN does not run, × the class's moe_layer_extra per-layer costs each.
    moe_layer_visits: float = 0.0
    link_bytes: float = 0.0  # bytes over the CPU–GPU link

    @property
    def memory_bytes(self) -> float:
        return self.weight_bytes + self.kv_bytes

    @property
    def all_flops(self) -> float:
        return self.flops + self.attention_flops + self.cache_flops

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            weight_bytes=self.weight_bytes + other.weight_bytes,
            kv_bytes=self.kv_bytes + other.kv_bytes,
            flops=self.flops + other.flops,
            attention_flops=self.attention_flops + other.attention_flops,
            cache_flops=self.cache_flops + other.cache_flops,
            underfill_flops=self.underfill_flops + other.underfill_flops,
            layer_visits=self.layer_visits + other.layer_visits,
            moe_layer_visits=self.moe_layer_visits + other.moe_layer_visits,
            link_bytes=self.link_bytes + other.link_bytes,
        )

    def __mul__(self, factor: float) -> Cost:
        return Cost(
            weight_bytes=self.weight_bytes * factor,
            kv_bytes=self.kv_bytes * factor,
            flops=self.flops * factor,
            attention_flops=self.attention_flops * factor,
            cache_flops=self.cache_flops * factor,
            underfill_flops=self.underfill_flops * factor,
            layer_visits=self.layer_visits * factor,
            moe_layer_visits=self.moe_layer_visits * factor,
            link_bytes=self.link_bytes * factor,
        )

    __rmul__ = __mul__


ZERO = Cost()
Rule = Callable[[Inputs], Cost]


class CostRules(Generic[Inputs]):
    """Named cost rules of one kind of work; `total` is their sum."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._rules: dict[str, Rule[Inputs]] = {}

    def register(self, name: str) -> Callable[[Rule[Inputs]], Rule[Inputs]]:
        """Decorator: add a rule under `name` (each name once)."""

        def add(rule: Rule[Inputs]) -> Rule[Inputs]:
            if name in self._rules:
                raise ValueError(f"{self.name}: rule {name!r} is already registered")
            self._rules[name] = rule
            return rule

        return add

    def __iter__(self) -> Iterator[str]:
        return iter(self._rules)

    def breakdown(self, inputs: Inputs) -> dict[str, Cost]:
        """What each rule contributes, by name, in registration order."""
        return {name: rule(inputs) for name, rule in self._rules.items()}

    def total(self, inputs: Inputs) -> Cost:
        total = ZERO
        for rule in self._rules.values():
            total = total + rule(inputs)
        return total

"""Reference vs refined for seed 000's headline configurations, as Markdown tables.

    python -m simulator.engine.checks.compare

Each refinement is shown alone (all others off) and all together, for the optimal split and
for the greedy split (the transfer-bound corner where the timeline and caching matter).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from simulator.engine.formats.training import quant_format
from simulator.engine.hardware import (
    NVME_GEN4_RAID0_X4_GBPS,
    NVME_GEN4_X1_GBPS,
    NVME_GEN5_AIC_X4_GBPS,
    Hardware,
    seed_gpu,
)
from simulator.engine.model.registry import load_model
from simulator.engine.train.reference import optimal_split
from simulator.engine.train.refined import (
    ALL_REFINEMENTS,
    NO_REFINEMENTS,
    Refinements,
    only,
    refined_curve,
    refined_greedy,
)
from simulator.engine.train.workload import TrainWorkload


@dataclass(frozen=True, slots=True, kw_only=True)
class Headline:
    label: str
    gpu: str
    gpus: int
    quant: str
    nvme_gbps: float
    ram_gib: float = 32.0
    pinned_gib: float = 26.0


# Seed 000's single-GPU, NVFP4 and multi-GPU tables, with the storage each row used
# (reference-model.md §8; see tests/simulator/engine/test_reference_tables.py).
HEADLINES = (
    Headline(label="1x RTX 4090", gpu="RTX 4090", gpus=1, quant="NF4d+NF2e",
             nvme_gbps=NVME_GEN4_X1_GBPS),
    Headline(label="1x RTX 5090", gpu="RTX 5090", gpus=1, quant="NF4d+NF2e",
             nvme_gbps=NVME_GEN4_X1_GBPS),
    Headline(label="1x A100 80G", gpu="A100 80G", gpus=1, quant="NF4d+NF2e",
             nvme_gbps=NVME_GEN4_X1_GBPS),
    Headline(label="1x H100 80G", gpu="H100 80G", gpus=1, quant="NF4d+NF2e",
             nvme_gbps=NVME_GEN4_X1_GBPS),
    Headline(label="1x RTX PRO 6000", gpu="RTX PRO 6000", gpus=1, quant="NF4d+NF2e",
             nvme_gbps=NVME_GEN4_X1_GBPS),
    Headline(label="1x RTX 5090 NVFP4", gpu="RTX 5090", gpus=1, quant="NVFP4",
             nvme_gbps=NVME_GEN5_AIC_X4_GBPS),
    Headline(label="2x RTX 4090", gpu="RTX 4090", gpus=2, quant="NF4d+NF2e",
             nvme_gbps=NVME_GEN4_X1_GBPS),
    Headline(label="4x RTX 4090", gpu="RTX 4090", gpus=4, quant="NF4d+NF2e",
             nvme_gbps=NVME_GEN4_X1_GBPS),
    Headline(label="2x RTX 5090 NVFP4", gpu="RTX 5090", gpus=2, quant="NVFP4",
             nvme_gbps=NVME_GEN4_RAID0_X4_GBPS),
    Headline(label="4x H100 80G", gpu="H100 80G", gpus=4, quant="NF4d+NF2e",
             nvme_gbps=NVME_GEN4_X1_GBPS),
)  # fmt: skip
SETTINGS: tuple[tuple[str, Refinements], ...] = (
    ("reference", NO_REFINEMENTS),
    *((f"+{name}", only(name)) for name in ALL_REFINEMENTS.names()),
    ("refined (all)", ALL_REFINEMENTS),
)


def _setup(h: Headline) -> tuple[TrainWorkload, Hardware]:
    workload = TrainWorkload(model=load_model("glm-4.7"), quant=quant_format(h.quant))
    hardware = Hardware(gpu=seed_gpu(h.gpu), gpu_count=h.gpus, nvme_gbps=h.nvme_gbps,
                        ram_gib=h.ram_gib, pinned_gib=h.pinned_gib)  # fmt: skip
    return workload, hardware


def _cell(row_tokens: float | None, base: float | None) -> str:
    if row_tokens is None:
        return "—"
    if base is None or row_tokens == base:
        return f"{row_tokens:,.0f}"
    return f"{row_tokens:,.0f} ({(row_tokens / base - 1) * 100:+.0f} %)"


def table(*, greedy: bool, headlines: tuple[Headline, ...] = HEADLINES) -> str:
    lines = ["| config | " + " | ".join(name for name, _ in SETTINGS) + " |",
             "|---" + "|---:" * len(SETTINGS) + "|"]  # fmt: skip
    for h in headlines:
        workload, hardware = _setup(h)
        cells, base = [], None
        for _, refine in SETTINGS:
            if greedy:
                row = refined_greedy(workload, hardware, refine)
            else:
                row = optimal_split(refined_curve(workload, hardware, refine))
            tokens = None if row is None else row.tokens_per_s
            base = tokens if base is None else base
            cells.append(_cell(tokens, base))
        lines.append(f"| {h.label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    print("Optimal split, tokens/s (GLM-4.7, S = 1024, 32 GB RAM / 26 GB pinned):\n")
    print(table(greedy=False))
    print("\nGreedy split (most layers resident), tokens/s:\n")
    print(table(greedy=True))
    ram = tuple(replace(h, ram_gib=128.0, pinned_gib=120.0) for h in HEADLINES[6:8])
    print("\nOptimal split with 128 GB RAM (120 GB pinned), multi-GPU rows:\n")
    print(table(greedy=False, headlines=ram))


if __name__ == "__main__":
    main()

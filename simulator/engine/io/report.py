"""Seed-style text tables for a `TrainResult` (the layout of seed 000's trade-off curves)."""

from __future__ import annotations

from simulator.engine.train.reference import SplitResult
from simulator.engine.train.result import TrainResult

CURVE_HEADER = " Res  Str  Free    B   Compute  Transfer     Step    OH%    tok/s"


def _row(row: SplitResult) -> str:
    return (
        f"{row.resident_layers:4d} {row.streamed_layers:4d} {row.free_vram_gib:5.1f}G "
        f"{row.micro_batch:4d} {row.compute_s:8.1f}s {row.transfer_s:8.1f}s {row.step_s:7.1f}s "
        f"{row.overhead_pct:5.0f}% {row.tokens_per_s:8.0f}"
    )


def _summary(label: str, row: SplitResult) -> str:
    return (
        f"  {label:8s} Res={row.resident_layers}, Str={row.streamed_layers}, "
        f"B={row.micro_batch:<4d} -> compute={row.compute_s:.0f}s, "
        f"transfer={row.transfer_s:.0f}s -> {row.overhead_pct:3.0f}% OH, "
        f"{row.tokens_per_s:.0f} tok/s"
    )


def _marker(row: SplitResult, result: TrainResult) -> str:
    marks = []
    if row == result.best:
        marks.append("OPTIMAL")
    if row == result.greedy:
        slower = result.best.tokens_per_s / row.tokens_per_s
        marks.append(f"GREEDY ({slower:.1f}x slower)" if slower >= 1.05 else "GREEDY")
    return f"  <- {' / '.join(marks)}" if marks else ""


def _title(result: TrainResult) -> str:
    w, hw = result.request.workload, result.request.hardware
    return (
        f"{w.model.display_name} | {hw.gpu_count}x {hw.require_gpu().name} | {w.quant.name} | "
        f"NVMe {hw.nvme_gbps:g} GB/s, {hw.ram_gib:g}G RAM ({hw.pinned_gib:g}G pinned) | "
        f"S={w.seq_len} | {w.mode} mode"
    )


def _facts(result: TrainResult) -> list[str]:
    f = result.facts
    active_m = f.active_params_per_layer / 1e6
    return [
        f"Params/layer {f.params_per_layer / 1e9:.2f}B, active {active_m:.0f}M,"
        f" experts {f.expert_fraction * 100:.1f}% | layer {f.layer_gib * 1024:.0f} MB |"
        f" LoRA {f.lora_params_per_layer / 1e6:.2f}M params, {f.lora_bytes_per_layer / 1e6:.1f} MB"
        f"/layer | {f.layers_per_gpu} layers per GPU"
    ]


def format_train_report(result: TrainResult) -> str:
    """The trade-off curve with OPTIMAL and GREEDY marked, then the seed's two summary lines."""
    lines = [_title(result), *_facts(result), "", CURVE_HEADER]
    lines += [_row(row) + _marker(row, result) for row in result.curve]
    lines.append("")
    if result.greedy is not None:
        lines.append(_summary("Greedy:", result.greedy))
    lines.append(_summary("Optimal:", result.best))
    best = result.best
    lines.append(
        f"  Bottleneck: {best.bottleneck}; streamed layers come from: {best.transfer_source}"
    )
    lines.append(f"  Tie rule: {result.tie_rule}")
    for name in result.refinements:
        lines.append(f"  Refinement: {name}")
    hours = result.hours_for_tokens
    if hours is not None and result.request.workload.tokens is not None:
        lines.append(f"  Time for {result.request.workload.tokens:,} tokens: {hours:.1f} h")
    return "\n".join(lines)

"""Chart data and plain-words explanations derived from one simulation result (the engine's
JSON). Pure functions: every number comes from the result; the formulas are in
docs/pages.md."""

from collections.abc import Iterable
from datetime import date
from typing import Any

from catalog.models import Currency, PartKind, PriceObservation
from catalog.selectors import RateTable

# The engine's VRAM breakdown (result["vram_breakdown_gb"]) in the words of the page.
VRAM_LABELS = {
    "resident_weights": "resident weights",
    "stream_buffer": "stream buffer",
    "lora": "LoRA weights, grads, optimizer",
    "cuda_context": "CUDA context",
    "activations_and_headroom": "activations (and headroom)",
}
# A split's transfer counts as "close" to compute within this fraction.
CLOSE_FRACTION = 0.8

Result = dict[str, Any]


def memory_breakdown(result: Result) -> dict[str, Any]:
    """Where one GPU's VRAM goes at the optimal split, in GB (GiB, as the engine), as the
    engine reports it; none for a result stored before it reported one."""
    vram = float(result["hardware"]["gpu"]["vram_gb"])
    parts = result.get("vram_breakdown_gb") or {}
    return {
        "vram_gb": vram,
        "segments": [
            {"label": label, "gb": round(max(0.0, float(parts[key])), 3)}
            for key, label in VRAM_LABELS.items()
            if key in parts
        ],
    }


def curve_chart(result: Result) -> dict[str, Any]:
    """The resident/batch trade-off curve with the optimal and greedy splits marked."""
    best_r = result["best"]["resident_layers"]
    # None where the greedy rule leaves no VRAM for one sequence (the engine's greedy: null).
    greedy_r = result["greedy"]["resident_layers"] if result["greedy"] else None
    rows = [
        {**row, "is_best": row["resident_layers"] == best_r,
         "is_greedy": row["resident_layers"] == greedy_r}
        for row in result["curve"]
    ]  # fmt: skip
    return {"rows": rows, "best_r": best_r, "greedy_r": greedy_r}


def curve_points(result: Result) -> dict[str, Any]:
    """The curve as chart series (resident layers on x)."""
    curve = result["curve"]
    return {
        "resident": [row["resident_layers"] for row in curve],
        "tokens_per_s": [round(row["tokens_per_s"], 2) for row in curve],
        "micro_batch": [row["micro_batch"] for row in curve],
        "best": [result["best"]["resident_layers"], round(result["best"]["tokens_per_s"], 2)],
        "greedy": [
            result["greedy"]["resident_layers"],
            round(result["greedy"]["tokens_per_s"], 2),
        ]
        if result["greedy"]
        else None,
    }


def step_chart(result: Result) -> dict[str, Any]:
    """Compute and transfer seconds per step for the optimal and the greedy split."""
    splits = [("optimal", result["best"])]
    if result["greedy"]:
        splits.append(("greedy", result["greedy"]))
    return {
        "labels": [
            f"{name} (R={s['resident_layers']}, B={s['micro_batch']})" for name, s in splits
        ],
        "compute_s": [round(s["compute_s"], 3) for _, s in splits],
        "transfer_s": [round(s["transfer_s"], 3) for _, s in splits],
        "step_s": [round(s["step_s"], 3) for _, s in splits],
    }


def timeline_chart(result: Result) -> dict[str, Any] | None:
    """Per-layer transfer and compute intervals of one micro-batch (refined mode only)."""
    timeline = result.get("timeline")
    if not timeline:
        return None
    transfers, computes = [], []
    for event in timeline["events"]:
        label = f"layer {event['layer']}"
        start, end = event.get("transfer_start_s"), event.get("transfer_end_s")
        # A resident layer loads nothing: its transfer times are null.
        if start is not None and end is not None and end > start:
            span = [round(start, 4), round(end, 4)]
            transfers.append({"y": label, "x": span, "phase": event["phase"]})
        span = [round(event["compute_start_s"], 4), round(event["compute_end_s"], 4)]
        computes.append({"y": label, "x": span, "phase": event["phase"]})
    layers = sorted({e["layer"] for e in timeline["events"]})
    return {
        "layers": [f"layer {n}" for n in layers],
        "transfers": transfers,
        "computes": computes,
        "micro_batch_s": timeline["micro_batch_s"],
        "stall_s": timeline["stall_s"],
        "compute_busy_s": timeline["compute_busy_s"],
        "transfer_busy_s": timeline["transfer_busy_s"],
    }


def _bottleneck_sentence(best: dict[str, Any], hardware: dict[str, Any]) -> str:
    compute, transfer = best["compute_s"], best["transfer_s"]
    if best["transfer_source"] == "none":
        return ("Every layer stays in VRAM: nothing streams, so storage and PCIe do not "
                "matter; only a faster GPU (more TFLOPS) or more GPUs would help.")  # fmt: skip
    if best["bottleneck"] == "compute":
        return (
            f"Compute-bound: each step computes for {compute:,.1f} s and transfers for "
            f"{transfer:,.1f} s, so the transfer is hidden behind compute. A faster NVMe or "
            "more PCIe bandwidth would not help; a GPU with more TFLOPS would."
        )
    link = "NVMe" if best["bottleneck"] == "nvme" else "PCIe link"
    return (
        f"{link}-bound: each step transfers for {transfer:,.1f} s but computes for only "
        f"{compute:,.1f} s, so the GPU waits ({best['overhead_pct']:,.0f} % overhead). "
        f"A faster {link} (now {_link_gbps(best, hardware):g} GB/s) would raise tokens/s."
    )


def _link_gbps(best: dict[str, Any], hardware: dict[str, Any]) -> float:
    if best["bottleneck"] == "nvme":
        return float(hardware["nvme_gbps"])
    return float(hardware["gpu"]["pcie_gbps"])


def _source_sentence(result: Result) -> str | None:
    best, hardware = result["best"], result["hardware"]
    streamed_gb = best["streamed_layers"] * result["model_facts"]["layer_gb"]
    if best["transfer_source"] == "ram":
        return (f"The {streamed_gb:,.0f} GB of streamed layers fit in pinned RAM "
                f"({hardware['pinned_gb']:g} GB), so they stream over PCIe from RAM.")  # fmt: skip
    if best["transfer_source"] == "nvme":
        return (
            f"The {streamed_gb:,.0f} GB of streamed layers do not fit in pinned RAM "
            f"({hardware['pinned_gb']:g} GB), so they are read from NVMe "
            f"({hardware['nvme_gbps']:g} GB/s"
            + (f", shared by {hardware['gpu_count']} GPUs)." if hardware["gpu_count"] > 1 else ").")
        )
    return None


def _greedy_sentence(result: Result) -> str | None:
    best, greedy = result["best"], result["greedy"]
    if greedy is None:
        return (
            "Keeping as many layers resident as fit (the greedy rule) would leave no VRAM for "
            f"one sequence's activations: the optimal split keeps {best['resident_layers']} "
            f"resident and runs a micro-batch of {best['micro_batch']}."
        )
    if greedy["resident_layers"] == best["resident_layers"]:
        return None
    ratio = best["tokens_per_s"] / greedy["tokens_per_s"] if greedy["tokens_per_s"] else 0
    return (
        f"Keeping the most layers resident (greedy: {greedy['resident_layers']} resident, "
        f"micro-batch {greedy['micro_batch']}) would give {greedy['tokens_per_s']:,.0f} tokens/s"
        + (f", {ratio:,.1f}× slower" if ratio >= 1.05 else "")
        + f": the optimal split keeps {best['resident_layers']} resident and spends the VRAM on "
        f"a micro-batch of {best['micro_batch']}, so compute covers the transfers."
    )


def explanation(result: Result) -> list[str]:
    """Why the build lands where it does, in a few sentences derived from the numbers."""
    best, hardware = result["best"], result["hardware"]
    sentences = [_bottleneck_sentence(best, hardware)]
    sentences += [s for s in (_source_sentence(result), _greedy_sentence(result)) if s]
    if best.get("bubble_s"):
        sentences.append(
            f"Pipeline bubble: {hardware['gpu_count']} GPUs in a pipeline add "
            f"{best['bubble_s']:,.1f} s of idle compute per step."
        )
    if best["bottleneck"] == "compute" and best["transfer_s"] > CLOSE_FRACTION * best["compute_s"]:
        sentences.append(
            "Transfer is within 20 % of compute: storage slower than its rating would start "
            "to show."
        )
    return sentences


def headline(result: Result) -> dict[str, Any]:
    """The numbers at the top of a result: speed, hours, price and cost per speed."""
    build = result.get("build") or {}
    return {
        "tokens_per_s": result["best"]["tokens_per_s"],
        "hours_for_tokens": result.get("hours_for_tokens"),
        "price_usd": build.get("price_usd"),
        "usd_per_tokens_per_s": build.get("usd_per_tokens_per_s"),
        "bottleneck": result["best"]["bottleneck"],
    }


# Rows of the comparison: (label, how to read it from a result, which way is better).
_COMPARE_ROWS: tuple[tuple[str, str, str], ...] = (
    ("price (USD)", "build.price_usd", "low"),
    ("tokens/s", "best.tokens_per_s", "high"),
    ("$ per tokens/s", "build.usd_per_tokens_per_s", "low"),
    ("hours for the target", "hours_for_tokens", "low"),
    ("bottleneck", "best.bottleneck", ""),
    ("transfer from", "best.transfer_source", ""),
    ("resident layers", "best.resident_layers", ""),
    ("micro-batch", "best.micro_batch", ""),
    ("compute per step (s)", "best.compute_s", ""),
    ("transfer per step (s)", "best.transfer_s", ""),
    ("GPU", "hardware.gpu.name", ""),
    ("GPUs", "hardware.gpu_count", ""),
    ("VRAM per GPU (GB)", "hardware.gpu.vram_gb", "high"),
    ("PCIe per GPU (GB/s)", "hardware.gpu.pcie_gbps", "high"),
    ("NVMe read (GB/s)", "hardware.nvme_gbps", "high"),
    ("RAM (GB)", "hardware.ram_gb", "high"),
)


def _dig(result: Result, path: str) -> Any:
    value: Any = result
    for key in path.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def comparison(results: list[Result]) -> dict[str, Any]:
    """Builds side by side: one row per figure, marked where the builds differ and with the
    best value where one direction is better."""
    rows = []
    for label, path, better in _COMPARE_ROWS:
        values = [_dig(r, path) for r in results]
        numbers = [v for v in values if isinstance(v, int | float)]
        best = None
        if better and len(numbers) == len(values) and len(set(values)) > 1:
            best = min(numbers) if better == "low" else max(numbers)
        cells = [{"value": v, "best": best is not None and v == best} for v in values]
        rows.append({"label": label, "cells": cells, "differs": len({str(v) for v in values}) > 1})
    names = [build_label(r) for r in results]
    parts = _part_rows(results)
    return {"names": names, "rows": rows, "parts": parts}


# The part kinds that tell ranked candidates apart, in the order a ranking row names them.
LABEL_KINDS = ("system", "gpu", "motherboard", "ram_kit")


def build_label(result: Result) -> str:
    """A catalog build's name, or a candidate's parts in a ranking row's words (its GPUs,
    board and RAM): what a compare column is headed with."""
    build = result.get("build") or {}
    if build.get("build_id") is not None or not build.get("parts"):
        return str(build.get("name") or "build")
    lines = [
        f"{p['quantity']}x {p['name']}" if p["kind"] in ("gpu", "ram_kit") else p["name"]
        for kind in LABEL_KINDS
        for p in build["parts"]
        if p["kind"] == kind
    ]
    return " | ".join(lines) or str(build.get("name") or "build")


def _part_rows(results: list[Result]) -> list[dict[str, Any]]:
    """One row per part kind: each build's part (quantity × name) there."""
    kinds: list[str] = []
    for r in results:
        kinds += [
            p["kind"] for p in (r.get("build") or {}).get("parts", []) if p["kind"] not in kinds
        ]
    rows = []
    for kind in kinds:
        cells = []
        for r in results:
            parts = [p for p in (r.get("build") or {}).get("parts", []) if p["kind"] == kind]
            cells.append(", ".join(f"{p['quantity']}× {p['name']}" for p in parts) or "—")
        rows.append({"label": PartKind(kind).label, "cells": cells, "differs": len(set(cells)) > 1})
    return rows


# --- accuracy (issue 9) ---------------------------------------------------------------------
# Axis margins of the predicted-vs-measured chart: a factor below and above the data.
ACCURACY_AXIS_MARGIN = 1.5


def accuracy_chart(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Points (measured, predicted) of the modeled rows, one series per category, and the
    range the log axes span (both axes alike, so parity is the diagonal)."""
    categories: dict[str, dict[str, Any]] = {}
    values: list[float] = []
    for row in rows:
        if not row["modeled"] or row["predicted"] is None:
            continue
        series = categories.setdefault(
            row["category"], {"label": row["category_label"], "points": []}
        )
        series["points"].append(
            {"x": row["measured"], "y": row["predicted"], "id": row["id"], "unit": row["unit"]}
        )
        values += [row["measured"], row["predicted"]]
    low = min(values, default=1.0) / ACCURACY_AXIS_MARGIN
    high = max(values, default=10.0) * ACCURACY_AXIS_MARGIN
    return {"categories": list(categories.values()), "min": low, "max": high}


# --- price history (part pages) -------------------------------------------------------------
def price_chart(
    observations: Iterable[PriceObservation], *, rates: RateTable, today: date
) -> dict[str, Any]:
    """The valid observations in US dollars, oldest first, one series per condition (a used
    price is not a step of the new price's line), each point with its vendor and, for a
    price published in another currency, its published amount; other currencies are
    converted with the rate table, as the current price and the rankings read them
    (`catalog.selectors.RateTable.to_usd`); the time axis runs to `today`. Withdrawn
    observations and currencies the table cannot convert are listed on the page, not drawn."""
    series: dict[str, dict[str, Any]] = {}
    for obs in sorted(observations, key=lambda o: (o.observed_on, o.pk or 0)):
        amount_usd = None if obs.withdrawn else rates.to_usd(obs.amount, obs.currency)
        if amount_usd is None:
            continue
        line = series.setdefault(obs.condition, {"label": obs.get_condition_display(),
                                                 "points": []})  # fmt: skip
        point = {"x": obs.observed_on.isoformat(), "y": float(amount_usd), "vendor": obs.vendor}
        if obs.currency != Currency.USD:
            point["published"] = f"{obs.amount} {obs.currency}"
        line["points"].append(point)
    return {"series": list(series.values()), "today": today.isoformat()}

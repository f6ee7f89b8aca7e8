"""Reads the pages need, shaped for templates, over the catalog and simulator selectors and
the engine. Nothing here writes."""

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urlencode
from uuid import UUID

from django.db.models import Max
from django.shortcuts import get_object_or_404

from catalog.generator import GPU_COUNTS
from catalog.models import Build, Gpu
from catalog.selectors import build_list
from frontend.custom_models import custom_model_get
from frontend.models import CustomModel
from simulator.engine import (
    DEFAULT_MODE,
    MODE_REFERENCE,
    MODE_REFINED,
    REFINEMENT_EFFECTS,
    EngineInputError,
    layer_gib,
    load_model,
    model_slugs,
    parse_request,
    quant_format,
    reference_layer,
    shipped_mode_comparison,
    simulate,
    workload_model,
)
from simulator.models import SimulationRun
from simulator.ranking import DEFAULT_SORT, SORT_FIELDS
from simulator.services.accuracy import accuracy_view_get, category_label, ranking_rows_banded
from simulator.services.ranking_filters import RankingFilters
from simulator.services.ranking_views import ranking_view

# Fitting does not depend on link speeds; any figure does.
_FIT_PROBE_PCIE_GBPS = 22.0
ALL_ROWS = 10**6


# --- models -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class ModelChoice:
    slug: str
    name: str
    params_b: float | None
    weights_gb: float
    fits: bool

    @property
    def label(self) -> str:
        size = f"{self.params_b:g} B params, " if self.params_b else ""
        size += f"{self.weights_gb:,.0f} GB" if math.isfinite(self.weights_gb) else "size unknown"
        fit = "fits a catalog build" if self.fits else "fits no catalog GPU"
        return f"{self.name} — {size} — {fit}"


def largest_catalog_gpu_vram_gb() -> float | None:
    vram: int | None = Gpu.objects.aggregate(vram=Max("vram_gb"))["vram"]
    return None if vram is None else float(vram)


def _trains(workload: dict[str, Any], vram_gb: float) -> bool:
    """Whether the workload trains on the largest GPU at the most GPUs a candidate has."""
    gpu = {"name": "probe", "vram_gb": vram_gb, "bf16_tflops": 100,
           "pcie_gbps": _FIT_PROBE_PCIE_GBPS, "fp4": True}  # fmt: skip
    body = {"workload": workload, "hardware": {"gpu": gpu, "gpu_count": max(GPU_COUNTS)}}
    try:
        simulate(parse_request(body))
    except (EngineInputError, ArithmeticError, StopIteration):
        # A config.json brought by a user can be too large to compute (the services answer
        # the same inputs with a 400): it fits nowhere.
        return False
    return True


@lru_cache(maxsize=512)
def _fits(slug: str, quant: str, seq_len: int, vram_gb: float) -> bool:
    return _trains({"model": slug, "quant": quant, "seq_len": seq_len}, vram_gb)


@lru_cache(maxsize=32)
def _custom_fits(slug: str, model_config_json: str, quant: str, seq_len: int, vram: float) -> bool:
    """A stored custom model's fit (its slug names its config: the cache stays small)."""
    workload = {"model": slug, "model_config": json.loads(model_config_json), "quant": quant,
                "seq_len": seq_len}  # fmt: skip
    return _trains(workload, vram)


def _custom_choice(
    stored: CustomModel, quant: str, seq_len: int, vram: float | None
) -> ModelChoice:
    """A stored custom model as a choice, sized like a shipped one. One the engine cannot
    read (a stricter engine than the one that stored it) is still listed, unsized: the
    simulation then names the key it refuses."""
    name, fmt = f"{stored.name} (yours)", quant_format(quant)
    try:
        model = workload_model({"model": stored.slug, "model_config": stored.config})
        weights_gb = layer_gib(reference_layer(model), fmt, model_slug=stored.slug)
        weights_gb *= model.num_layers
    except (EngineInputError, ArithmeticError):
        return ModelChoice(slug=stored.slug, name=name, params_b=None, weights_gb=math.nan,
                           fits=False)  # fmt: skip
    config_json = json.dumps(stored.config, sort_keys=True)
    fits = vram is not None and _custom_fits(stored.slug, config_json, fmt.name, seq_len, vram)
    return ModelChoice(slug=stored.slug, name=name, params_b=model.card_params_b,
                       weights_gb=weights_gb, fits=fits)  # fmt: skip


def model_choice_list(*, quant: str, seq_len: int, custom: str = "") -> list[ModelChoice]:
    """Every shipped model with its size in `quant` and whether any catalog build runs it;
    then the stored custom model the slug `custom` names (`custom:<16 hex>`), if any."""
    try:
        fmt = quant_format(quant)
    except EngineInputError:
        fmt = quant_format("NF4")
    seq_len = seq_len if 0 < seq_len <= 131072 else 1024
    vram = largest_catalog_gpu_vram_gb()
    choices = []
    for slug in model_slugs():
        model = load_model(slug)
        layer_gb = layer_gib(reference_layer(model), fmt, model_slug=slug)
        fits = vram is not None and _fits(slug, fmt.name, seq_len, vram)
        choices.append(
            ModelChoice(
                slug=slug,
                name=model.display_name,
                params_b=model.card_params_b,
                weights_gb=layer_gb * model.num_layers,
                fits=fits,
            )
        )
    stored = custom_model_get(slug=custom) if custom else None
    if stored is not None:
        choices.append(_custom_choice(stored, fmt.name, seq_len, vram))
    return choices


# --- rankings ---------------------------------------------------------------------------
def _table_sort(rows: list[dict[str, Any]], sort: str) -> list[dict[str, Any]]:
    if sort == "tokens_per_s":
        return sorted(rows, key=lambda r: (-r["tokens_per_s"], r["price_usd"]))
    if sort == "bottleneck":
        return sorted(rows, key=lambda r: (r["bottleneck"], r["usd_per_tokens_per_s"]))
    return rows


def ranking_page(
    *,
    run: SimulationRun,
    budget_usd: float | None,
    sort: str,
    limit: int,
    filters: RankingFilters | None = None,
) -> dict[str, Any]:
    """The ranking within the budget, sorted for the table, and every row for the chart;
    `filters` say which prices count and which builds the buyer can take (by default
    published prices, stale ones marked, no limits)."""
    service_sort = sort if sort in SORT_FIELDS else DEFAULT_SORT
    view = ranking_view(
        run=run,
        budget_usd=budget_usd,
        sort=service_sort,
        limit=ALL_ROWS,
        filters=filters or RankingFilters(),
    )
    rows = _table_sort(view["rows"], sort)
    points = [
        {"x": r["price_usd"], "y": r["tokens_per_s"], "name": r["name"], "pareto": r["pareto"]}
        for r in rows
    ]
    workload = view["workload"]
    table = [
        {**row, "rank": i, "parts_query": parts_query(row["parts"])}
        for i, row in enumerate(ranking_rows_banded(rows[:limit], workload=workload), start=1)
    ]
    keys = ("model", "quant", "seq_len", "tokens", "mode")
    workload_query = urlencode({k: workload[k] for k in keys if workload.get(k) is not None})
    return {**view, "sort": sort, "rows": table, "points": points, "shown": len(table),
            "workload_query": workload_query}  # fmt: skip


def parts_query(parts: list[dict[str, Any]]) -> str:
    """A candidate's parts as `id:quantity,…`, the candidate page's `parts` parameter."""
    return ",".join(f"{p['part_id']}:{p['quantity']}" for p in parts)


def simulation_run_get(*, run_id: UUID) -> SimulationRun:
    return get_object_or_404(SimulationRun, pk=run_id)


# --- builds -----------------------------------------------------------------------------
def build_get(*, slug: str) -> Build:
    return get_object_or_404(build_list(), slug=slug)


def build_choice_list() -> list[tuple[str, str]]:
    return [(build.slug, build.name) for build in build_list().order_by("name")]


# --- accuracy -----------------------------------------------------------------------------
def accuracy_page() -> dict[str, Any]:
    """The accuracy report shaped for the page: overall figures (cross-validated first,
    in-sample second), categories, runtimes and rows (`predicted` is cross-validated)."""
    view = accuracy_view_get()
    rows = [
        {"id": m.row_id, "category": m.category, "category_label": category_label(m.category),
         "hardware": m.hardware, "model": m.model, "quant": m.quant, "engine": m.engine,
         "workload": m.workload, "measured": m.value, "predicted": m.cv_predicted,
         "signed_error": m.cv_signed_error, "in_sample_predicted": m.predicted,
         "in_sample_signed_error": m.signed_error, "runtime": m.runtime,
         "unit": m.unit, "modeled": m.modeled,
         "reason": m.reason, "source_url": m.source_url, "origin": m.origin,
         # the planner's own runs cite their results file in the repository, not a page
         "source_path": "" if m.source_url else str((m.source or {}).get("path", ""))}
        for m in view.rows
    ]  # fmt: skip
    categories = [
        {"stats": stats, "label": category_label(stats.category)} for stats in view.categories
    ]
    return {"view": view, "report": view.report, "in_sample": view.in_sample,
            "holdout": view.holdout, "rows": rows, "categories": categories,
            "runtimes": view.report.runtimes}  # fmt: skip


# --- training modes -------------------------------------------------------------------------
def training_modes_view(
    *, result: dict[str, Any], comparison: dict[str, Any] | None, refused: str
) -> dict[str, Any]:
    """The headline's mode beside the other one, with why they differ and how each scores on
    the corpus's fine-tuning rows, cross-validated (which one is the default and why)."""
    scores = shipped_mode_comparison()
    common = scores.common
    cv = [
        {"mode": mode, "median_abs_error": score.median_abs_error(common),
         "expressed": len(score.errors), "refused": len(score.refused)}
        for mode, score in scores.scores.items()
    ]  # fmt: skip
    other = None
    if comparison is not None:
        other = {
            "mode": comparison["mode"],
            "tokens_per_s": comparison["best"]["tokens_per_s"],
            "hours_for_tokens": comparison.get("hours_for_tokens"),
        }
    return {
        "mode": result["mode"],
        "default": DEFAULT_MODE,
        "better": scores.better,
        "other": other,
        "refused": refused,
        "effects": sorted(REFINEMENT_EFFECTS.items()),
        "cv": cv,
        "common_rows": len(common),
        "rows": len({*scores.scores[MODE_REFINED].errors, *scores.scores[MODE_REFERENCE].errors,
                     *scores.scores[MODE_REFERENCE].refused}),
    }  # fmt: skip

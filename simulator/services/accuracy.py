"""The accuracy report (issue 9) over the accepted measurements, and the error band each
figure of the planner carries: the median |error| of the corpus rows of its category.

The report is built by the engine (`accuracy_report`) from the stored predictions and cached
under a key that changes whenever any measurement row changes (count, last update) or the
engine or its efficiency constants do, so accepting a row shows on the next request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Max, Q, QuerySet

from simulator.engine import (
    MIN_ROWS_FOR_CATEGORY_BAND,
    AccuracyReport,
    CategoryStats,
    Prediction,
    accuracy_report,
    band_category,
    error_band,
    load_model,
    model_slugs,
)
from simulator.models import Measurement, MeasurementStatus
from simulator.services.measurements import (
    corpus_data,
    measurements_predict,
    prediction_version,
)

CACHE_PREFIX = "accuracy-report"
# Names of the corpus categories in the pages and bands ("… for this class (dense GPU …)").
CATEGORY_LABELS = {
    "inference_gpu_dense": "dense GPU inference",
    "inference_multi_gpu_layer_split": "multi-GPU layer split",
    "inference_kv_offload": "KV cache offload",
    "inference_apple_silicon": "Apple Silicon inference",
    "inference_unified_memory_moe": "unified-memory MoE inference",
    "inference_moe_gpu": "MoE inference on GPU",
    "inference_moe_offload": "MoE expert offload",
    "inference_weight_streaming_pcie": "weight streaming over PCIe",
    "inference_nvme_streaming": "NVMe expert streaming",
    "serving_batched": "batched serving",
    "training_finetune": "fine-tuning throughput",
    "training_moe_offload": "MoE fine-tuning with offload",
    "memory_capacity_training": "trainable context",
    "inference_cpu": "CPU-only inference",
}
CACHE_TIMEOUT_S = 24 * 3600


@dataclass(frozen=True, slots=True, kw_only=True)
class AccuracyView:
    """What the accuracy page and API show: the corpus, the engine's report and its rows."""

    title: str
    assembled: str
    report: AccuracyReport
    rows: list[Measurement]

    @property
    def categories(self) -> tuple[CategoryStats, ...]:
        return self.report.categories


def category_label(category: str) -> str:
    return CATEGORY_LABELS.get(category, category.replace("_", " "))


def measurement_accepted_list() -> QuerySet[Measurement]:
    return Measurement.objects.filter(status=MeasurementStatus.ACCEPTED).order_by("row_id")


def _prediction(measurement: Measurement) -> Prediction:
    return Prediction(
        row_id=measurement.row_id,
        category=measurement.category,
        modeled=measurement.modeled,
        measured=measurement.value,
        unit=measurement.unit,
        predicted=measurement.predicted,
        signed_error=measurement.signed_error,
        reason=measurement.reason,
    )


def _report_state(version: str) -> tuple[str, int]:
    """The report's cache key (any row added, changed or removed changes it) and how many
    accepted rows lack a prediction of this engine version: one query for both."""
    state = Measurement.objects.aggregate(
        n=Count("pk"),
        last=Max("updated_at"),
        stale=Count(
            "pk",
            filter=Q(status=MeasurementStatus.ACCEPTED) & ~Q(prediction_version=version),
        ),
    )
    last = state["last"].isoformat() if state["last"] else "-"
    return f"{CACHE_PREFIX}:{version}:{state['n']}:{last}", state["stale"]


# The report this process read last, under its key. A report never changes under its key, so
# every figure's error band costs the key's query alone, not a cache read and the unpickling
# of every row (2.4 -> 1.0 ms a band; docs/benchmarks.md, Load, "Third round").
_last_report: tuple[str, AccuracyReport] | None = None


def accuracy_report_forget() -> None:
    """Drop this process's copy (the cache was cleared: tests start from nothing)."""
    global _last_report
    _last_report = None


def accuracy_report_get() -> AccuracyReport:
    """The engine's report over the accepted rows, predicting stale rows first."""
    global _last_report
    version = prediction_version()
    key, stale = _report_state(version)
    if stale:
        measurements_predict()
        key, _ = _report_state(version)
    last = _last_report  # one read: another thread may replace it meanwhile
    if last is not None and last[0] == key:
        return last[1]
    report: AccuracyReport | None = cache.get(key)
    if report is None:
        report = accuracy_report(tuple(_prediction(m) for m in measurement_accepted_list()))
        cache.set(key, report, CACHE_TIMEOUT_S)
    _last_report = (key, report)
    return report


def accuracy_view_get() -> AccuracyView:
    report = accuracy_report_get()
    corpus = corpus_data()
    return AccuracyView(
        title=str(corpus.get("title", "")),
        assembled=str(corpus.get("assembled", "")),
        report=report,
        rows=list(measurement_accepted_list()),
    )


# --- error bands --------------------------------------------------------------------------
def _is_moe(model_slug: str | None) -> bool:
    if model_slug is None or model_slug not in model_slugs():
        return False
    return bool(load_model(model_slug).is_moe)


def error_band_for(
    *,
    kind: str,
    placement: str | None,
    gpu_count: int,
    model: str | None,
    report: AccuracyReport | None = None,
) -> dict[str, Any]:
    """The error band of a figure: its category, the typical |error| there (a fraction: the
    engine's `error_band`, None when nothing is modeled) and what that is based on."""
    report = accuracy_report_get() if report is None else report
    category = band_category(kind, placement, gpu_count, _is_moe(model))
    return {
        "category": category,
        "category_label": category_label(category),
        "typical_abs_error": error_band(category, report),
        "basis": _band_basis(category, report),
    }


def _band_basis(category: str, report: AccuracyReport) -> str:
    """What the band is: the category's own median, or the overall one standing in."""
    stats = report.category(category)
    own = stats.modeled if stats is not None else 0
    if own >= MIN_ROWS_FOR_CATEGORY_BAND:
        return f"median |error| of {own} corpus rows of this category"
    overall = sum(1 for p in report.predictions if p.modeled)
    if not overall:
        return "no modeled corpus row yet"
    return (
        f"overall median |error| of {overall} corpus rows "
        f"(this category has {own} modeled; {MIN_ROWS_FOR_CATEGORY_BAND} needed)"
    )


def ranking_rows_banded(
    rows: list[dict[str, Any]], *, workload: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Ranking rows, each with the error band of its speed figure."""
    report = accuracy_report_get()
    kind = str(workload.get("kind", "train"))
    bands: dict[tuple[Any, ...], dict[str, Any]] = {}
    banded = []
    for row in rows:
        key = (row.get("placement"), row.get("gpu_count") or 0, row.get("system_name"))
        if key not in bands:
            bands[key] = error_band_for(
                kind=kind,
                placement=_row_placement(row),
                gpu_count=int(row.get("gpu_count") or 0),
                model=workload.get("model"),
                report=report,
            )
        banded.append({**row, "error_band": bands[key]})
    return banded


def _row_placement(row: Mapping[str, Any]) -> str | None:
    placement = row.get("placement")
    return None if placement is None else str(placement)


def result_error_band(result: Mapping[str, Any]) -> dict[str, Any]:
    """The error band of a single simulation result's headline speed."""
    workload = result.get("workload") or {}
    hardware = result.get("hardware") or {}
    kind = str(result.get("kind") or workload.get("kind") or "train")
    placement = result.get("placement") or workload.get("placement") if kind != "train" else None
    return error_band_for(
        kind=kind,
        placement=None if placement is None else str(placement),
        gpu_count=int(hardware.get("gpu_count") or (1 if hardware.get("gpu") else 0)),
        model=workload.get("model"),
    )


def simulation_result_banded(result: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A stored run's result as the API shows it: a single build's result with the band
    of its speed (`error_band`), a ranking's rows each with theirs."""
    if result is None:
        return None
    if isinstance(result.get("rows"), list):
        workload = result.get("workload") or {}
        return {**result, "rows": ranking_rows_banded(result["rows"], workload=workload)}
    return {**result, "error_band": result_error_band(result)}

"""The accuracy report over the accepted measurements, and the error band each figure of the
planner carries: the errors of the corpus rows of its category.

The headline report is cross-validated: each row predicted with constants fitted without any
row of its source (the engine's leave-one-source-out fits), scored against issue 15's
targets; the in-sample report (constants fitted on the rows scored) comes second. Error
bands come from the cross-validated report.

The report is built by the engine (`accuracy_report`) from the stored predictions and cached
under a key that changes whenever any measurement row changes (count, last update) or the
engine or its efficiency constants do, so accepting a row shows on the next request.

The hold-out report scores the shipped constants on public rows gathered after the fit and
never fitted (`data/measurements/holdout.json`): the planner's error on measurements it was
not fitted to, third beside the two."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Max, Q, QuerySet

from simulator.engine import (
    CROSS_VALIDATED_TARGETS,
    DEFAULT_RUNTIME,
    GPU,
    HOLDOUT_PATH,
    IN_SAMPLE_TARGETS,
    MIN_ROWS_FOR_CATEGORY_BAND,
    UNIFIED,
    AccuracyReport,
    CategoryStats,
    EngineInputError,
    Prediction,
    accuracy_report,
    band_category,
    band_range,
    error_band,
    load_efficiency,
    predict_all,
    read_corpus_file,
    rows_from_corpus,
    workload_model,
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
    report: AccuracyReport  # cross-validated: the headline
    in_sample: AccuracyReport
    holdout: AccuracyReport  # rows gathered after the fit, never fitted
    rows: list[Measurement]

    @property
    def categories(self) -> tuple[CategoryStats, ...]:
        return self.report.categories

    @property
    def holdout_rows(self) -> int:
        return len(self.holdout.predictions)


def category_label(category: str) -> str:
    return CATEGORY_LABELS.get(category, category.replace("_", " "))


def measurement_accepted_list() -> QuerySet[Measurement]:
    return Measurement.objects.filter(status=MeasurementStatus.ACCEPTED).order_by("row_id")


def _prediction(measurement: Measurement, *, held_out: bool) -> Prediction:
    """The stored prediction: with the constants fitted without the row's source
    (`held_out`), or with the shipped ones."""
    return Prediction(
        row_id=measurement.row_id,
        category=measurement.category,
        modeled=measurement.modeled,
        measured=measurement.value,
        unit=measurement.unit,
        predicted=measurement.cv_predicted if held_out else measurement.predicted,
        signed_error=measurement.cv_signed_error if held_out else measurement.signed_error,
        reason=measurement.cv_reason if held_out else measurement.reason,
        runtime=measurement.runtime,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class AccuracyReports:
    cross_validated: AccuracyReport
    in_sample: AccuracyReport


def _reports(measurements: list[Measurement]) -> AccuracyReports:
    return AccuracyReports(
        cross_validated=accuracy_report(
            [_prediction(m, held_out=True) for m in measurements], CROSS_VALIDATED_TARGETS
        ),
        in_sample=accuracy_report(
            [_prediction(m, held_out=False) for m in measurements], IN_SAMPLE_TARGETS
        ),
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
_last_report: tuple[str, AccuracyReports] | None = None


def accuracy_report_forget() -> None:
    """Drop this process's copy (the cache was cleared: tests start from nothing)."""
    global _last_report
    _last_report = None


def accuracy_report_get() -> AccuracyReport:
    """The cross-validated report over the accepted rows (the headline; error bands)."""
    return accuracy_reports_get().cross_validated


def accuracy_reports_get() -> AccuracyReports:
    """The engine's reports over the accepted rows, predicting stale rows first."""
    global _last_report
    version = prediction_version()
    key, stale = _report_state(version)
    if stale:
        measurements_predict()
        key, _ = _report_state(version)
    last = _last_report  # one read: another thread may replace it meanwhile
    if last is not None and last[0] == key:
        return last[1]
    reports: AccuracyReports | None = cache.get(key)
    if reports is None:
        reports = _reports(list(measurement_accepted_list()))
        cache.set(key, reports, CACHE_TIMEOUT_S)
    _last_report = (key, reports)
    return reports


def holdout_report_key() -> str:
    return f"{CACHE_PREFIX}:holdout:{prediction_version()}"


def holdout_report_forget() -> None:
    """Drop the cached hold-out report: new engine code or hold-out rows may keep the engine's
    version (`manage.py measurements_load` calls it after every deploy)."""
    cache.delete(holdout_report_key())


def holdout_report_get() -> AccuracyReport:
    """The shipped constants scored on the hold-out rows, against the cross-validated targets
    (no fit saw them); cached per engine version and constants."""
    key = holdout_report_key()
    report: AccuracyReport | None = cache.get(key)
    if report is None:
        rows = rows_from_corpus(read_corpus_file(HOLDOUT_PATH))
        report = accuracy_report(predict_all(rows, load_efficiency()), CROSS_VALIDATED_TARGETS)
        cache.set(key, report, CACHE_TIMEOUT_S)
    return report


def accuracy_view_get() -> AccuracyView:
    reports = accuracy_reports_get()
    corpus = corpus_data()
    return AccuracyView(
        title=str(corpus.get("title", "")),
        assembled=str(corpus.get("assembled", "")),
        report=reports.cross_validated,
        in_sample=reports.in_sample,
        holdout=holdout_report_get(),
        rows=list(measurement_accepted_list()),
    )


# --- error bands --------------------------------------------------------------------------
def _is_moe(workload: Mapping[str, Any]) -> bool:
    """Whether the workload's model, shipped or given inline as model_config, is an MoE."""
    try:
        return bool(workload_model(workload).is_moe)
    except EngineInputError:  # no model the engine can read: banded as dense
        return False


# The figures a band turns into ranges: speeds scale with the band's speed factors; times
# and costs per unit of speed inversely.
SPEED_FIELDS = ("tokens_per_s", "decode_tokens_per_s", "prefill_tokens_per_s")
INVERSE_FIELDS = ("usd_per_tokens_per_s", "usd_per_decode_tokens_per_s", "hours_for_tokens")


def _figure_runtime(kind: str, placement: str | None, runtime: str | None) -> str | None:
    """The runtime whose constants predict the figure (training: its category alone)."""
    if kind == "train":
        return None
    if runtime:
        return runtime
    return DEFAULT_RUNTIME.get(UNIFIED if placement == UNIFIED else GPU)


def error_band_for(
    *,
    kind: str,
    placement: str | None,
    gpu_count: int,
    workload: Mapping[str, Any],
    report: AccuracyReport | None = None,
    runtime: str | None = None,
    machines: int = 1,
) -> dict[str, Any]:
    """The error band of a figure: its category, the typical |error| there (a fraction: the
    engine's `error_band`, None when nothing is modeled), what that is based on, and the
    range the measured value likely lies in (cross-validated 10th–90th percentile of the
    signed errors, `speed_factor_low`/`_high` multiplying a predicted speed)."""
    report = accuracy_report_get() if report is None else report
    category = band_category(kind, placement, gpu_count, _is_moe(workload), machines)
    return _category_band(category, report, _figure_runtime(kind, placement, runtime))


def _category_band(category: str, report: AccuracyReport, runtime: str | None) -> dict[str, Any]:
    span = band_range(category, report, runtime)
    factors = (None, None) if span is None else span.speed_factors
    return {
        "category": category,
        "category_label": category_label(category),
        "typical_abs_error": error_band(category, report),
        "basis": _band_basis(category, report),
        "signed_error_low": None if span is None else span.signed_error_low,
        "signed_error_high": None if span is None else span.signed_error_high,
        "speed_factor_low": factors[0],
        "speed_factor_high": factors[1],
        "range_basis": None if span is None else span.basis,
    }


def figure_ranges(
    figures: Mapping[str, Any],
    band: Mapping[str, Any],
    speeds: tuple[str, ...] = SPEED_FIELDS,
    inverses: tuple[str, ...] = INVERSE_FIELDS,
) -> dict[str, Any]:
    """`<field>_range: [low, high]` for each speed (× the band's factors) and each time and
    cost (÷ them) present: where the measured value likely lies given the band (none when
    the band has no range)."""
    low, high = band.get("speed_factor_low"), band.get("speed_factor_high")
    if low is None or high is None:
        return {}
    ranges: dict[str, Any] = {}
    for name in speeds:
        value = figures.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            ranges[f"{name}_range"] = [value * low, value * high]
    for name in inverses:
        value = figures.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            ranges[f"{name}_range"] = [value / high, value / low]
    return ranges


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
        machines = int(row.get("machines") or 1)
        key = (row.get("placement"), row.get("gpu_count") or 0, row.get("system_name"), machines)
        if key not in bands:
            bands[key] = error_band_for(
                kind=kind,
                placement=_row_placement(row),
                gpu_count=int(row.get("gpu_count") or 0),
                workload=workload,
                report=report,
                runtime=workload.get("runtime"),
                machines=machines,
            )
        banded.append({**row, "error_band": bands[key], **figure_ranges(row, bands[key])})
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
    band = error_band_for(
        kind=kind,
        placement=None if placement is None else str(placement),
        gpu_count=int(hardware.get("gpu_count") or (1 if hardware.get("gpu") else 0)),
        workload=workload,
        runtime=workload.get("runtime"),
        machines=int(hardware.get("machines") or 1),
    )
    best = result.get("best") if isinstance(result.get("best"), Mapping) else {}
    figures = {**result, **(best or {})}
    banded = {**band, **figure_ranges(figures, band)}
    run = result.get("serving_run")
    if isinstance(run, Mapping):  # a serving run's figures carry the batched serving rows'
        runtime = _figure_runtime(kind, None if placement is None else str(placement),
                                  workload.get("runtime"))  # fmt: skip
        run_band = _category_band("serving_batched", accuracy_report_get(), runtime)
        rate = workload.get("request_rate_per_s")
        banded["serving_run"] = {**run_band, **serving_run_ranges(run, run_band, rate)}
    return banded


SERVING_RUN_RATES = ("requests_per_s", "output_tokens_per_s", "total_tokens_per_s")
SERVING_RUN_TIMES = ("request_latency_s", "duration_s")


def serving_run_ranges(
    run: Mapping[str, Any], band: Mapping[str, Any], rate_per_s: float | None = None
) -> dict[str, Any]:
    """A serving run's `figure_ranges`, its rates as speeds and its times as inverses.
    Requests sent at `rate_per_s` complete no faster than they arrive, however fast the
    server: a rate's range stops there (as many tokens a second as that many requests hold)."""
    ranges = figure_ranges(run, band, SERVING_RUN_RATES, SERVING_RUN_TIMES)
    if rate_per_s is None or not ranges:
        return ranges
    for name in SERVING_RUN_RATES:
        per_request = run[name] / run["requests_per_s"]
        low, high = ranges[f"{name}_range"]
        ranges[f"{name}_range"] = [low, min(high, max(run[name], rate_per_s * per_request))]
    return ranges


def simulation_result_banded(result: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A stored run's result as the API shows it: a single build's result with the band
    of its speed (`error_band`), a ranking's rows each with theirs."""
    if result is None:
        return None
    if isinstance(result.get("rows"), list):
        workload = result.get("workload") or {}
        return {**result, "rows": ranking_rows_banded(result["rows"], workload=workload)}
    return {**result, "error_band": result_error_band(result)}

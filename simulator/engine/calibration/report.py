"""The accuracy report: per-category and overall error statistics, issue 9's targets, and
the error band a planner figure carries."""

from __future__ import annotations

import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from simulator.engine.calibration.predict import Prediction

# Issue 9's targets on the corpus.
TARGET_MEDIAN_ABS_ERROR = 0.15
TARGET_CATEGORY_MEDIAN_ABS_ERROR = 0.25
TARGET_WORST_RATIO = 2.0
REQUIRED_CATEGORIES = (
    "inference_gpu_dense",
    "inference_multi_gpu_layer_split",
    "inference_moe_offload",
    "inference_moe_gpu",
    "inference_apple_silicon",
    "inference_unified_memory_moe",
    "training_finetune",
)
# A category's own median |error| is its band only with at least this many modeled rows;
# below it the overall median stands in (one or two rows say little about a class).
MIN_ROWS_FOR_CATEGORY_BAND = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class CategoryStats:
    category: str
    modeled: int
    not_modeled: int
    median_abs_error: float | None
    worst_abs_error: float | None
    worst_row_id: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class AccuracyReport:
    predictions: tuple[Prediction, ...]
    categories: tuple[CategoryStats, ...]
    median_abs_error: float | None
    worst_ratio: (
        float | None
    )  # max over modeled rows of max(predicted/measured, measured/predicted)
    targets_met: bool
    misses: tuple[str, ...]  # human-readable target misses

    def category(self, name: str) -> CategoryStats | None:
        return next((c for c in self.categories if c.category == name), None)


def _abs_error(p: Prediction) -> float:
    assert p.signed_error is not None
    return abs(p.signed_error)


def ratio(p: Prediction) -> float:
    """How many times off a modeled prediction is (≥ 1)."""
    assert p.predicted is not None
    return max(p.predicted / p.measured, p.measured / p.predicted)


def category_stats(category: str, predictions: Sequence[Prediction]) -> CategoryStats:
    mine = [p for p in predictions if p.category == category]
    modeled = [p for p in mine if p.modeled]
    worst = max(modeled, key=_abs_error, default=None)
    return CategoryStats(
        category=category,
        modeled=len(modeled),
        not_modeled=len(mine) - len(modeled),
        median_abs_error=statistics.median(map(_abs_error, modeled)) if modeled else None,
        worst_abs_error=_abs_error(worst) if worst else None,
        worst_row_id=worst.row_id if worst else None,
    )


def _misses(
    categories: Sequence[CategoryStats], median: float | None, worst: float | None
) -> tuple[str, ...]:
    misses = []
    if median is None or median > TARGET_MEDIAN_ABS_ERROR:
        shown = "nothing modeled" if median is None else f"{median:.1%}"
        misses.append(f"overall median |error| {shown} > {TARGET_MEDIAN_ABS_ERROR:.0%}")
    for c in categories:
        if c.median_abs_error is not None and c.median_abs_error > TARGET_CATEGORY_MEDIAN_ABS_ERROR:
            misses.append(
                f"{c.category}: median |error| {c.median_abs_error:.1%} > "
                f"{TARGET_CATEGORY_MEDIAN_ABS_ERROR:.0%}"
            )
    if worst is not None and worst > TARGET_WORST_RATIO:
        misses.append(f"a modeled row is off by {worst:.2f}x > {TARGET_WORST_RATIO:g}x")
    modeled = {c.category for c in categories if c.modeled}
    misses += [
        f"{name}: required but not modeled" for name in REQUIRED_CATEGORIES if name not in modeled
    ]
    return tuple(misses)


def accuracy_report(predictions: Sequence[Prediction]) -> AccuracyReport:
    names = sorted({p.category for p in predictions})
    categories = tuple(category_stats(name, predictions) for name in names)
    modeled = [p for p in predictions if p.modeled]
    median = statistics.median(map(_abs_error, modeled)) if modeled else None
    worst = max(map(ratio, modeled), default=None)
    misses = _misses(categories, median, worst)
    return AccuracyReport(
        predictions=tuple(predictions),
        categories=categories,
        median_abs_error=median,
        worst_ratio=worst,
        targets_met=not misses,
        misses=misses,
    )


def band_category(kind: str, placement: str | None, gpu_count: int, moe: bool) -> str:
    """The corpus category whose accuracy a planner figure carries. Training is the
    fine-tuning category (the planner's training keeps experts on the GPU); inference by
    placement: hybrid → MoE offload; unified → unified-memory MoE or Apple silicon (dense);
    several GPUs → layer split; one GPU → MoE on GPU or dense GPU. CPU-only figures have no
    category of their own ("inference_cpu": the band falls back to the overall median)."""
    if kind == "train":
        return "training_finetune"
    if placement == "hybrid":
        return "inference_moe_offload"
    if placement == "unified":
        return "inference_unified_memory_moe" if moe else "inference_apple_silicon"
    if placement == "cpu":
        return "inference_cpu"
    if gpu_count > 1:
        return "inference_multi_gpu_layer_split"
    return "inference_moe_gpu" if moe else "inference_gpu_dense"


def error_band(category: str, report: AccuracyReport) -> float | None:
    """Typical |error| of a figure in `category`: the category's median |error| when it has
    at least MIN_ROWS_FOR_CATEGORY_BAND modeled rows, else the overall median; None when
    nothing is modeled."""
    stats = report.category(category)
    if stats is not None and stats.modeled >= MIN_ROWS_FOR_CATEGORY_BAND:
        return stats.median_abs_error
    return report.median_abs_error


def format_report(title: str, report: AccuracyReport) -> str:
    """The per-category table, overall figures and misses of `report`, as text."""
    lines = [f"{title}: {len(report.predictions)} rows"]
    for c in report.categories:
        median = "—" if c.median_abs_error is None else f"{c.median_abs_error:.1%}"
        worst = "—" if c.worst_abs_error is None else f"{c.worst_abs_error:.1%} ({c.worst_row_id})"
        lines.append(
            f"  {c.category:34} {c.modeled:4} modeled {c.not_modeled:3} not  {median:>6}  {worst}"
        )
    overall = "—" if report.median_abs_error is None else f"{report.median_abs_error:.1%}"
    ratio_text = "—" if report.worst_ratio is None else f"{report.worst_ratio:.2f}x"
    lines.append(f"  overall median |error| {overall}; worst ratio {ratio_text}")
    lines += [f"  miss: {miss}" for miss in report.misses] or ["  every target met"]
    return "\n".join(lines)


def main() -> int:
    """`python -m simulator.engine.calibration.report`: the shipped corpus with the rows that
    extend it, then the team's original rows alone; exit 1 when the whole corpus misses."""
    from simulator.engine.calibration.corpus import load_corpus, original_rows
    from simulator.engine.calibration.predict import predict_all

    _, rows = load_corpus()
    predictions = predict_all(rows)
    originals = {row.id for row in original_rows(rows)}
    whole = accuracy_report(predictions)
    print(format_report("Corpus with its extension rows", whole))
    original = accuracy_report([p for p in predictions if p.row_id in originals])
    print(format_report("Original corpus (without the extension rows)", original))
    return 0 if whole.targets_met else 1


if __name__ == "__main__":
    sys.exit(main())

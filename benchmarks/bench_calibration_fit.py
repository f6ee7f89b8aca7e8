"""Calibration fit benchmark: one fit of the shipped corpus, with the prediction caches of
`simulator.engine.calibration.predict` against the same fit with them bypassed (the baseline,
in the same run).

    OMP_NUM_THREADS=1 python benchmarks/bench_calibration_fit.py [--repeat 2]

The leave-one-source-out refit (`python -m simulator.engine.calibration.fit`) is one such fit
per source, so its wall time scales with this figure. Both fits must give the same table; the
script says whether they do. Prints a Markdown section for docs/benchmarks.md; nothing here
is a test.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import datetime
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulator.engine.calibration import fit, predict
from simulator.engine.calibration.efficiency import efficiency_to_json


def _timed_fit() -> tuple[float, str]:
    start = time.perf_counter()
    table = fit.fit_shipped()
    return time.perf_counter() - start, json.dumps(efficiency_to_json(table), sort_keys=True)


def _uncached() -> tuple[float, str]:
    """The fit with every prediction computed afresh (the caches' wrapped functions)."""
    placed, trained = predict._placed, predict._trained
    predict._placed = placed.__wrapped__  # type: ignore[assignment]
    predict._trained = trained.__wrapped__  # type: ignore[assignment]
    try:
        return _timed_fit()
    finally:
        predict._placed, predict._trained = placed, trained


def _cached() -> tuple[float, str]:
    predict._placed.cache_clear()
    predict._trained.cache_clear()
    return _timed_fit()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    baseline = [_uncached() for _ in range(args.repeat)]
    cached = [_cached() for _ in range(args.repeat)]
    base_s = min(s for s, _ in baseline)
    cached_s = min(s for s, _ in cached)
    same = len({table for _, table in baseline + cached}) == 1
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"### One fit of the shipped corpus ({now}, best of {args.repeat})\n")
    print(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, ")
    print(f"Python {platform.python_version()}, OMP_NUM_THREADS=1, nothing else running.\n")
    print("| fit | wall (s) |")
    print("|---|---:|")
    print(f"| predictions computed afresh (baseline) | {base_s:.1f} |")
    print(f"| placements and training runs cached | {cached_s:.1f} |")
    print(f"\nRatio {base_s / cached_s:.2f}×; the two tables are identical: {same}.")
    print(
        f"Cache sizes after a fit: placements {predict._placed.cache_info().currsize}, "
        f"training runs {predict._trained.cache_info().currsize}."
    )


if __name__ == "__main__":
    main()

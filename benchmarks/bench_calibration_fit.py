"""Calibration fit benchmark: the full fit of the shipped corpus and the first few
leave-one-source-out fits, with the fit's prediction memo (`simulator.engine.calibration.memo`)
against the same fits with it off (the baseline, in the same run; predict.py's placement and
training caches on in both).

    OMP_NUM_THREADS=1 python benchmarks/bench_calibration_fit.py [--held-out 6]

The cross-validation (`python -m simulator.engine.calibration.fit`) is one full fit and one
held-out fit per source in each worker process, so its wall time scales with these figures.
Every table must be the same with and without the memo; the script says whether they are.
Prints a Markdown section for docs/benchmarks.md; nothing here is a test.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

os.environ.setdefault("OMP_NUM_THREADS", "1")

import datetime
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulator.engine.calibration import fit, memo, predict
from simulator.engine.calibration.corpus import load_corpus
from simulator.engine.calibration.crossval import fitted_sources, sources
from simulator.engine.calibration.efficiency import Efficiency, efficiency_to_json


def _timed(run: Callable[[], Efficiency]) -> tuple[float, str]:
    start = time.perf_counter()
    table = run()
    return time.perf_counter() - start, json.dumps(efficiency_to_json(table), sort_keys=True)


def _fits(held_out: list[str], *, with_memo: bool) -> list[tuple[float, str]]:
    """The full fit, then each held-out fit, in one process as a worker runs them."""
    memo.use_memo(with_memo)
    predict._placed.cache_clear()
    predict._trained.cache_clear()
    runs = [_timed(fit.fit_shipped)]
    for source in held_out:
        runs.append(_timed(lambda source=source: fit._held_out(source)))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--held-out", type=int, default=6)
    args = parser.parse_args()
    _, rows = load_corpus()
    fitted = fitted_sources(rows)
    names = [name for name in sources(rows) if name in fitted]
    step = max(len(names) // max(args.held_out, 1), 1)
    held_out = names[::step][: args.held_out]
    baseline = _fits(held_out, with_memo=False)
    memoized = _fits(held_out, with_memo=True)
    same = all(a[1] == b[1] for a, b in zip(baseline, memoized, strict=True))
    base_full, memo_full = baseline[0][0], memoized[0][0]
    base_held = sum(s for s, _ in baseline[1:])
    memo_held = sum(s for s, _ in memoized[1:])
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"#### The fit's prediction memo ({now}, one run each)\n")
    print(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, ")
    print(f"Python {platform.python_version()}, OMP_NUM_THREADS=1, nothing else running.\n")
    print("| fits (one process) | memo off (s) | memo on (s) | ratio |")
    print("|---|---:|---:|---:|")
    print(f"| full fit | {base_full:.1f} | {memo_full:.1f} | {base_full / memo_full:.2f}× |")
    print(
        f"| {len(held_out)} held-out fits after it | {base_held:.1f} | {memo_held:.1f} | "
        f"{base_held / memo_held:.2f}× |"
    )
    print(f"\nEvery table identical with and without the memo: {same}.")
    print(
        f"Memo entries after the run: {len(memo._values)} predictions, {len(memo._setups)} setups."
    )


if __name__ == "__main__":
    main()

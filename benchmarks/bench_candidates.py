"""Candidate generation over the shipped catalog: this checkout's generator against a
baseline checkout's, timed in the same process, with their answers compared.

    git worktree add --detach /tmp/base <baseline commit>
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_candidates.py --base /tmp/base

Loads the shipped catalog into a temporary SQLite database and generates the candidates
of each option set below, with and without unpriced parts; the clock covers generating
them and reading each one's signature, not reading the catalog. The baseline's
catalog/{hardware,spec,compatibility,generator}.py are loaded from --base beside this
checkout's (the models are shared), so each side runs its own rules. Without --base only
this checkout is timed. Prints a Markdown section for docs/benchmarks.md and exits 1 when
an answer differs; nothing here is a test.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ["PLANNER_VAR_DIR"] = tempfile.mkdtemp(prefix="bench-candidates-")
os.environ.pop("DATABASE_URL", None)
os.environ["CELERY_BROKER_URL"] = "memory://"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner_site.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from catalog import generator  # noqa: E402
from catalog.generator import RAM_TIERS_GB, StorageTier  # noqa: E402
from catalog.selectors import catalog_snapshot  # noqa: E402
from simulator.services.rankings import INFER_STORAGE_TIERS, MAX_GPU_COUNT  # noqa: E402

RANKING_COUNTS = tuple(range(1, MAX_GPU_COUNT + 1))
# (label, candidate_builds options): the function's defaults, and what a training and an
# inference ranking with default options plan (simulator.services.rankings.ranking_plan).
OPTION_SETS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("defaults", {}),
    (
        "training ranking",
        {
            "gpu_counts": RANKING_COUNTS,
            "storage_tiers": tuple(StorageTier),
            "ram_tiers_gb": RAM_TIERS_GB,
        },
    ),
    (
        "inference ranking",
        {
            "gpu_counts": RANKING_COUNTS,
            "storage_tiers": tuple(StorageTier(t) for t in INFER_STORAGE_TIERS),
            "ram_tiers_gb": RAM_TIERS_GB,
        },
    ),
)
BASE_MODULES = ("hardware", "spec", "compatibility", "generator")


def load_base(root: Path) -> ModuleType:
    """catalog.generator as it is in the checkout at `root`, with that checkout's spec and
    rules; this checkout's modules are back in sys.modules afterwards."""
    saved = {name: sys.modules[f"catalog.{name}"] for name in BASE_MODULES}
    loaded: dict[str, ModuleType] = {}
    try:
        for name in BASE_MODULES:
            path = root / "catalog" / f"{name}.py"
            spec = importlib.util.spec_from_file_location(f"catalog.{name}", path)
            assert spec is not None
            assert spec.loader is not None
            loaded[name] = sys.modules[f"catalog.{name}"] = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(loaded[name])
    finally:
        sys.modules.update({f"catalog.{name}": module for name, module in saved.items()})
    return loaded["generator"]


def answers(candidates: list[Any]) -> list[tuple[object, ...]]:
    """What a ranking takes from each candidate, in order, as plain values."""
    return [
        (
            c.signature,
            c.name,
            str(c.total_usd),  # the same digits, not only the same value
            None if c.storage_tier is None else str(c.storage_tier),
            c.ram_gb,
            tuple((p.rule, str(p.severity), p.message) for p in c.warnings),
        )
        for c in candidates
    ]


def best_of(repeat: int, run: Callable[[], list[Any]]) -> tuple[float, list[Any]]:
    times, result = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def generate(
    module: ModuleType, *, with_unpriced: bool, options: dict[str, Any], repeat: int
) -> tuple[float, list[Any]]:
    """Best time and candidates of one option set; the snapshot is read before the clock
    starts."""
    current = catalog_snapshot(with_unpriced=with_unpriced)
    snapshot = module.CatalogSnapshot(
        parts=current.parts, prices_usd=current.prices_usd, with_unpriced=with_unpriced
    )
    return best_of(repeat, lambda: signed(module.candidate_builds(snapshot, **options)))


def signed(candidates: list[Any]) -> list[Any]:
    """The candidates with their signatures read: a ranking plan reads every one, and a
    generator may leave them to be computed (cached) when first read."""
    for candidate in candidates:
        _ = candidate.signature
    return candidates


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", type=Path, help="a checkout of the baseline commit")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    call_command("loaddata", *sorted((REPO / "catalog/fixtures").glob("*.json")), verbosity=0)
    base = load_base(args.base) if args.base else None
    print(f"### Candidate generation ({datetime.date.today()})\n")
    print(f"Machine: {os.cpu_count()} CPUs (`nproc`), {cpu_model()}, Python "
          f"{platform.python_version()}, one core (OMP_NUM_THREADS=1); "
          f"best of {args.repeat}.\n")  # fmt: skip
    print("| options | unpriced parts | candidates | baseline (s) | this checkout (s) | ratio "
          "| same answers |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---|")
    all_same = True
    for label, options in OPTION_SETS:
        for with_unpriced in (False, True):
            run = {"with_unpriced": with_unpriced, "options": options, "repeat": args.repeat}
            new_s, new = generate(generator, **run)
            if base is None:
                print(f"| {label} | {with_unpriced} | {len(new)} | | {new_s:.3f} | | |")
                continue
            old_s, old = generate(base, **run)
            same = answers(old) == answers(new)
            all_same &= same
            print(f"| {label} | {with_unpriced} | {len(new)} | {old_s:.3f} | {new_s:.3f} "
                  f"| {old_s / new_s:.1f}x | {same} |")  # fmt: skip
    return 0 if all_same else 1


if __name__ == "__main__":
    sys.exit(main())

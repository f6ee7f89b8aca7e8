"""Leave-one-source-out cross-validation: every corpus row predicted by constants fitted
without any row of its own source.

A source is the thread, page or file a row cites (`source_of`): rows of one llama-bench table
or one discussion share their machine, build and author, so leaving out a single row would
let its siblings pin the constants it is scored on. For each source the whole fit
(`fit_efficiency`) is run again on every other row (and the seed rows, which are no corpus
source), and the source's rows are predicted with that table. The tables are shipped
(`data/crossval.json`, written with the efficiency table by
`python -m simulator.engine.calibration.fit`) as the entries that differ from the full fit, so
each cross-validated figure can be re-derived from named constants without refitting.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from simulator.engine.calibration.corpus import MeasurementRow, source_of
from simulator.engine.calibration.efficiency import (
    Efficiency,
    efficiency_from_json,
    efficiency_to_json,
)
from simulator.engine.calibration.fit import fit_efficiency, resolved_rows
from simulator.engine.calibration.predict import Prediction, predict_row
from simulator.engine.errors import EngineInputError
from simulator.engine.version import ENGINE_PACKAGE

CROSSVAL_PATH = "data/crossval.json"
# The table's global constants and the rows each was fitted on (every field but its entries and
# corpus date): a held-out table keeps its own.
GLOBAL_CONSTANTS = tuple(
    field.name
    for field in dataclasses.fields(Efficiency)
    if field.name not in ("entries", "corpus_assembled")
)


@dataclass(frozen=True, slots=True, kw_only=True)
class CrossValidation:
    """The full fit and, per source, the table fitted without that source's rows."""

    full: Efficiency
    held_out: Mapping[str, Efficiency]

    def table_for(self, row: MeasurementRow) -> Efficiency:
        """The constants `row` is scored with: its source's held-out table; a row whose source
        no fit saw (a user's own measurements) takes the full fit, which never saw it either."""
        return self.held_out.get(source_of(row), self.full)


def sources(rows: Iterable[MeasurementRow]) -> dict[str, tuple[MeasurementRow, ...]]:
    grouped: dict[str, list[MeasurementRow]] = {}
    for row in rows:
        grouped.setdefault(source_of(row), []).append(row)
    return {source: tuple(mine) for source, mine in sorted(grouped.items())}


def fit_without(
    rows: Sequence[MeasurementRow], source: str, seeds: Sequence[MeasurementRow] = ()
) -> Efficiency:
    """The whole fit on every row but `source`'s."""
    kept = [row for row in rows if source_of(row) != source]
    return fit_efficiency((*kept, *seeds))


def fitted_sources(rows: Sequence[MeasurementRow]) -> frozenset[str]:
    """The sources with at least one row the fit uses. Leaving out any other source leaves
    the fit's rows, and so its deterministic result, unchanged: its held-out table is the
    full fit, and only these sources need a fit of their own."""
    return frozenset(source_of(row) for row, _ in resolved_rows(rows))


def held_out_tables(
    rows: Sequence[MeasurementRow],
    seeds: Sequence[MeasurementRow],
    full: Efficiency,
    fit: Callable[[str], Efficiency] | None = None,
    *,
    map_: Callable[..., Iterable[Efficiency]] = map,
) -> dict[str, Efficiency]:
    """Every source's held-out table: `fit(source)` (default `fit_without`) for the sources
    the fit uses, the full fit (its corpus date aside) for the others. `map_`: a process
    pool's map to fit in parallel."""
    fitted = fitted_sources(rows)
    names = list(sources(rows))
    to_fit = [name for name in names if name in fitted]
    own = fit or (lambda source: fit_without(rows, source, seeds))
    tables = dict(zip(to_fit, map_(own, to_fit), strict=True))
    same = dataclasses.replace(full, corpus_assembled="")
    return {name: tables.get(name, same) for name in names}


def cross_validate(
    rows: Sequence[MeasurementRow],
    seeds: Sequence[MeasurementRow] = (),
    *,
    full: Efficiency | None = None,
    assembled: str = "",
) -> CrossValidation:
    """The held-out table of every source (the full fit computed if not given)."""
    full = fit_efficiency((*rows, *seeds), assembled=assembled) if full is None else full
    return CrossValidation(full=full, held_out=held_out_tables(rows, seeds, full))


def cross_validated_predictions(
    rows: Sequence[MeasurementRow], crossval: CrossValidation
) -> tuple[Prediction, ...]:
    return tuple(predict_row(row, crossval.table_for(row)) for row in rows)


# --- the shipped file ------------------------------------------------------------------------
def _differences(table: Efficiency, full: Efficiency) -> dict[str, Any]:
    """`table` as the entries (and routing fraction) that differ from `full`, and the keys
    it has no entry for (no row left to fit them: they take the prior)."""
    mine, base = efficiency_to_json(table), efficiency_to_json(full)
    same = {json.dumps(e, sort_keys=True) for e in base["entries"]}
    keys = {(e.runtime, e.device_class) for e in table.entries}
    return {
        **{name: mine[name] for name in GLOBAL_CONSTANTS},
        "entries": [e for e in mine["entries"] if json.dumps(e, sort_keys=True) not in same],
        "priors": [
            [e.runtime, e.device_class]
            for e in sorted(full.entries, key=lambda e: (e.runtime, e.device_class))
            if (e.runtime, e.device_class) not in keys
        ],
    }


def crossval_to_json(crossval: CrossValidation) -> dict[str, Any]:
    return {
        "about": (
            "Leave-one-source-out fits (simulator/engine/calibration/crossval.py): for each "
            "source, the efficiency entries fitted without its rows that differ from the full "
            "fit (data/efficiency.json). Written by python -m simulator.engine.calibration.fit."
        ),
        "sources": [
            {"source": source, **_differences(table, crossval.full)}
            for source, table in sorted(crossval.held_out.items())
        ],
    }


def _held_out_from_json(item: object, full: Efficiency, path: str) -> tuple[str, Efficiency]:
    if not isinstance(item, Mapping) or not isinstance(item.get("source"), str):
        raise EngineInputError(field=f"{path}.source", message="must be a string")
    entries = item.get("entries")
    if not isinstance(entries, list):
        raise EngineInputError(field=f"{path}.entries", message="must be a list")
    full_globals = efficiency_to_json(full)
    changes = efficiency_from_json(
        {
            "entries": entries,
            **{name: item.get(name, full_globals[name]) for name in GLOBAL_CONSTANTS},
        }
    )
    priors = item.get("priors", [])
    if not isinstance(priors, list) or not all(
        isinstance(key, list) and len(key) == 2 and all(isinstance(k, str) for k in key)
        for key in priors
    ):
        raise EngineInputError(field=f"{path}.priors", message="must be [runtime, class] pairs")
    dropped = {tuple(key) for key in priors}
    table = dataclasses.replace(
        full,
        **{name: getattr(changes, name) for name in GLOBAL_CONSTANTS},
        entries=tuple(e for e in full.entries if (e.runtime, e.device_class) not in dropped),
    )
    for entry in changes.entries:
        table = table.replace(entry)
    return str(item["source"]), table


def crossval_from_json(data: Mapping[str, Any], full: Efficiency) -> CrossValidation:
    items = data.get("sources")
    if not isinstance(items, list):
        raise EngineInputError(field="crossval.sources", message="must be a list")
    held_out = dict(
        _held_out_from_json(item, full, f"crossval.sources[{i}]") for i, item in enumerate(items)
    )
    return CrossValidation(full=full, held_out=held_out)


@cache
def load_crossval() -> CrossValidation:
    """The shipped held-out tables over the shipped full fit (none shipped: the full fit for
    every row, which `CrossValidation.table_for` then says nothing held out)."""
    from simulator.engine.calibration.efficiency import load_efficiency

    full = load_efficiency()
    path = resources.files(ENGINE_PACKAGE).joinpath(CROSSVAL_PATH)
    if not path.is_file():
        return CrossValidation(full=full, held_out={})
    return crossval_from_json(json.loads(path.read_text("utf-8")), full)

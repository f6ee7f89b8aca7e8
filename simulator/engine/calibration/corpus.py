"""The measurement corpus: published figures the planner's predictions are checked against.

`data/measurements/validation.json` is the team's corpus (`shared/measurements/validation.json`,
43 rows H001–H085), shipped so a clean clone can check itself, plus rows X001… that extend it
from a source it already cites. `data/measurements/gathered.json` extends it with rows from
sources it did not cite, gathered with the search tool (each file names its gathering date; a
row's `source.where` and `source.read` say where the figure stands and when it was read).
Every extending row says so in `extends_corpus`; `original_rows` leaves them out, and the
report shows the original rows' figures on their own too.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from importlib import resources
from types import MappingProxyType
from typing import Any

from simulator.engine.errors import EngineInputError
from simulator.engine.version import ENGINE_PACKAGE

CORPUS_PATH = "data/measurements/validation.json"
GATHERED_PATH = "data/measurements/gathered.json"
SEEDS_PATH = "data/measurements/seeds.json"
MEASURED_PATH = "data/measurements/measured.json"
# Public rows gathered after the shipped fit and never fitted (load_corpus leaves them out):
# `manage.py accuracy --corpus` scores the shipped constants on them (docs/accuracy.md).
HOLDOUT_PATH = "data/measurements/holdout.json"
# Where benchmarks/calibrate_gpu.py's outputs are kept, each named for its machine and date.
MEASURED_RESULTS_DIR = "benchmarks/results/"
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
YEAR_MONTH = re.compile(r"\b(20\d\d)-(?:0[1-9]|1[0-2])\b")
TEXT_FIELDS = ("id", "category", "engine", "model", "quant", "metric", "unit")


@dataclass(frozen=True, slots=True, kw_only=True)
class MeasurementRow:
    """One corpus row, parsed. `hardware` and `workload` are the row's objects as published
    (read-only); `source_url` is the row's `source.url`."""

    id: str
    category: str
    engine: str
    hardware: Mapping[str, Any]
    model: str
    quant: str
    workload: Mapping[str, Any]
    metric: str
    value: float
    unit: str
    source_url: str
    peak_memory: str = ""  # as the source states it ("30.3 GiB", "44.8 GB per GPU"), if it does
    # Rows added to the team's corpus from a source it already cites (X001…): what they extend.
    extends_corpus: str = ""
    # The parameter count the source prints next to the figure (llama-bench's "params"
    # column), billions; None when it states none.
    params_total_b: float | None = None
    # What the source says limits the figure ("speculative decoding (DFlash), ..."), if any.
    caveats: str = ""
    # The model file's size as the source prints it for the same run ("106.830 GiB", or
    # llama-bench's JSON `model_size` in bytes, "17709692928 B") where `quant` does not say it:
    # an unpublished mix's bytes (calibration/setups._weights).
    file_size: str = ""
    # The earliest year the source's pointer dates the figure to (`source.where`, "comment by
    # TheBloke on 2023-06-12"), None when it names no year-month: which build of a fast-moving
    # runtime was measured.
    measured_year: int | None = None
    # Why a row of a user's file (`rows_from_corpus(..., lenient=True)`) breaks the corpus
    # schema ("rows[3].hardware: must be an object"): it is listed as not modeled with this
    # reason instead of stopping the whole file. Empty for a row that follows the schema.
    schema_error: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class CorpusInfo:
    title: str
    assembled: str  # ISO date the corpus was assembled


def _text(row: Mapping[str, Any], key: str, path: str) -> str:
    value = row.get(key)
    if not isinstance(value, str) or not value.strip():
        raise EngineInputError(field=f"{path}.{key}", message="must be a non-empty string")
    return value


def _object(row: Mapping[str, Any], key: str, path: str) -> Mapping[str, Any]:
    value = row.get(key)
    if not isinstance(value, Mapping):
        raise EngineInputError(field=f"{path}.{key}", message="must be an object")
    return MappingProxyType(dict(value))


def _value(row: Mapping[str, Any], path: str) -> float:
    value = row.get("value")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EngineInputError(field=f"{path}.value", message="must be a number")
    if not math.isfinite(value) or value <= 0:
        raise EngineInputError(field=f"{path}.value", message="must be a finite number > 0")
    return float(value)


def _source_url(row: Mapping[str, Any], path: str) -> str:
    source = _object(row, "source", path)
    if source.get("kind") == "seed":  # the team's seed files, cited by path
        seed = source.get("path")
        if isinstance(seed, str) and seed.startswith("shared/seeds/"):
            return seed
    if source.get("kind") == "measured":  # the planner's own calibration runs, by results file
        results = source.get("path")
        if not isinstance(results, str) or not results.startswith(MEASURED_RESULTS_DIR):
            raise EngineInputError(
                field=f"{path}.source.path",
                message=f"a measured row cites its results file under {MEASURED_RESULTS_DIR}",
            )
        return results
    url = source.get("url")
    if not isinstance(url, str) or not url.startswith(("https://", "http://")):
        raise EngineInputError(field=f"{path}.source.url", message="must be an http(s) URL")
    return url


def row_from_json(row: object, path: str) -> MeasurementRow:
    """One row; `EngineInputError` naming the bad field (`rows[3].value`)."""
    if not isinstance(row, Mapping):
        raise EngineInputError(field=path, message="must be an object")
    text = {key: _text(row, key, path) for key in TEXT_FIELDS}
    return MeasurementRow(
        hardware=_object(row, "hardware", path),
        workload=_object(row, "workload", path),
        value=_value(row, path),
        source_url=_source_url(row, path),
        peak_memory=str(row.get("peak_memory") or ""),
        extends_corpus=str(row.get("extends_corpus") or ""),
        params_total_b=_params_b(row),
        caveats=str(row.get("caveats") or ""),
        file_size=str(row.get("file_size") or ""),
        measured_year=_measured_year(row),
        **text,
    )


# What a user's row may leave out and still be predicted: its grouping and its citation.
OPTIONAL_IN_A_USERS_FILE = ("id", "category", "metric")


def _number(value: object) -> float | None:
    """A figure as a number: a JSON number, or a string holding one ("100", "1.5e3")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


PLAIN_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)?\s*$")


def _as_number(value: object) -> object:
    """A count or figure written as a string ("2048", "4"), as the number; anything else as
    given ("tg128" stays text)."""
    if isinstance(value, str) and PLAIN_NUMBER.match(value):
        number = float(value)
        return int(number) if number.is_integer() and "." not in value else number
    return value


def _lenient_row(row: object, path: str, index: int) -> MeasurementRow:
    """A row of a user's file, read as far as it can be: its id, category and metric may be
    left out and its source cite no URL (neither changes the prediction), its value may be a
    numeric string; where what the prediction needs breaks the schema (the engine, model,
    unit, hardware or workload, a positive value) the row keeps `schema_error`, naming the
    field, and is reported as not modeled rather than stopping the file."""
    fields: Mapping[str, Any] = row if isinstance(row, Mapping) else {}
    problems: list[str] = [] if isinstance(row, Mapping) else [f"{path}: must be an object"]

    def text(key: str) -> str:
        value = fields.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if key not in OPTIONAL_IN_A_USERS_FILE and key != "quant":
            problems.append(f"{path}.{key}: must be a non-empty string")
        return ""

    def mapping(key: str) -> Mapping[str, Any]:
        value = fields.get(key)
        if isinstance(value, Mapping):
            return MappingProxyType({k: _as_number(v) for k, v in value.items()})
        if key != "source":
            problems.append(f"{path}.{key}: must be an object")
        return MappingProxyType({})

    texts = {key: text(key) for key in TEXT_FIELDS}
    hardware, workload, source = mapping("hardware"), mapping("workload"), mapping("source")
    number = _number(fields.get("value"))
    if number is None or not math.isfinite(number) or number <= 0:
        problems.append(f"{path}.value: must be a finite number > 0")
    cited = source.get("url") or source.get("path") or ""
    return MeasurementRow(
        **{**texts, "id": texts["id"] or f"rows[{index}]"},
        hardware=hardware,
        workload=workload,
        value=number if number is not None and math.isfinite(number) and number > 0 else 0.0,
        source_url=cited if isinstance(cited, str) else "",
        peak_memory=str(fields.get("peak_memory") or ""),
        params_total_b=_params_b(fields),
        caveats=str(fields.get("caveats") or ""),
        file_size=str(fields.get("file_size") or ""),
        measured_year=_measured_year(fields),
        schema_error=(
            f"the row does not follow the corpus schema: {problems[0]}" if problems else ""
        ),
    )


def _measured_year(row: Mapping[str, Any]) -> int | None:
    source = row.get("source")
    where = source.get("where") if isinstance(source, Mapping) else None
    years = YEAR_MONTH.findall(where) if isinstance(where, str) else []
    return min(int(year) for year in years) if years else None


def _params_b(row: Mapping[str, Any]) -> float | None:
    value = row.get("params_total_b")
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None
    return float(value)


def rows_from_corpus(
    data: Mapping[str, Any], *, lenient: bool = False
) -> tuple[MeasurementRow, ...]:
    """Every row of a corpus document (`{"rows": [...]}`), validated; ids must be unique.
    `lenient` (a user's file to score): a row that breaks the schema, or repeats an id, is
    kept with its `schema_error` instead of refusing the file."""
    rows = data.get("rows")
    if not isinstance(rows, list):
        raise EngineInputError(field="rows", message="must be a list of measurements")
    if lenient:
        parsed = tuple(_lenient_row(row, f"rows[{i}]", i) for i, row in enumerate(rows))
    else:
        parsed = tuple(row_from_json(row, f"rows[{i}]") for i, row in enumerate(rows))
    seen: set[str] = set()
    kept: list[MeasurementRow] = []
    for i, row in enumerate(parsed):
        if row.id in seen:
            problem = f"duplicate id {row.id!r}"
            if not lenient:
                raise EngineInputError(field=f"rows[{i}].id", message=problem)
            row = replace(
                row,
                id=f"{row.id} (rows[{i}])",
                schema_error=row.schema_error
                or (f"the row does not follow the corpus schema: rows[{i}].id: {problem}"),
            )
        seen.add(row.id)
        kept.append(row)
    return tuple(kept)


def corpus_info(data: Mapping[str, Any]) -> CorpusInfo:
    assembled = data.get("assembled")
    if not isinstance(assembled, str) or not ISO_DATE.match(assembled):
        raise EngineInputError(field="assembled", message="must be an ISO date (YYYY-MM-DD)")
    return CorpusInfo(title=str(data.get("title", "")), assembled=assembled)


def source_of(row: MeasurementRow) -> str:
    """The source a row is left out with: its cited URL (or seed path) without a fragment."""
    return row.source_url.split("#", 1)[0]


def original_rows(rows: tuple[MeasurementRow, ...]) -> tuple[MeasurementRow, ...]:
    """The rows of the team's corpus as assembled, without the rows that extend it."""
    return tuple(row for row in rows if not row.extends_corpus)


def read_corpus_file(name: str = CORPUS_PATH) -> dict[str, Any]:
    text = resources.files(ENGINE_PACKAGE).joinpath(name).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def shipped_corpus_document() -> dict[str, Any]:
    """The team's corpus with the gathered rows appended (one document, ids unique across
    both files)."""
    data = read_corpus_file()
    for extension in (GATHERED_PATH, MEASURED_PATH):
        path = resources.files(ENGINE_PACKAGE).joinpath(extension)
        if path.is_file():
            extra = json.loads(path.read_text("utf-8"))
            data = {**data, "rows": [*data["rows"], *extra["rows"]]}
    return data


def load_corpus() -> tuple[CorpusInfo, tuple[MeasurementRow, ...]]:
    """The shipped copy of the corpus, gathered rows included."""
    data = shipped_corpus_document()
    return corpus_info(data), rows_from_corpus(data)


def load_seed_rows() -> tuple[MeasurementRow, ...]:
    """Seed measurements that calibrate runtimes the corpus lacks (not part of the report)."""
    return rows_from_corpus(read_corpus_file(SEEDS_PATH))

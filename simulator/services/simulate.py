"""POST /api/simulate: validate with the engine, reuse or compute, record the run.

Forms of the body (the workload is the engine's in every form):
- {"workload", "hardware"}: inline hardware, answered now;
- {"workload", "build_id"}: a catalog build, answered now, with its parts and prices;
- {"workload", "parts": [{"part_id", "quantity"}]}: an ad-hoc build of catalog parts, the same;
- {"workload", "ranking": {...}}: every candidate build ranked, queued on the workers.

The workload is training's or inference's (`"kind": "infer"`). An inference workload with
`"placement": "auto"` (the default for catalog builds) is run in the placement that decodes
fastest on that hardware (engine.serve.placement_search); the stored input names the winner.
"""

import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import date
from typing import Any

from django.db import IntegrityError, transaction

from catalog.compatibility import build_errors
from catalog.models import Build, Part
from catalog.selectors import build_lines, part_current_price_map, part_detailed_map
from catalog.spec import spec_from_lines
from planner_site.api_errors import FieldNotFound
from planner_site.idempotency import IdempotencyKeyReusedError, request_body_sha256
from simulator.engine import (
    AUTO,
    ENGINE_VERSION,
    INFER,
    EngineInputError,
    cpu_time_left_s,
    parse_request,
    placement_search,
    request_to_json,
    require_known_fields,
    result_to_json,
    simulate,
)
from simulator.models import RunKind, SimulatePostKey, SimulationRun
from simulator.services.cost import simulation_cost_check, simulation_single_cost
from simulator.services.rankings import ranking_create
from simulator.services.runs import simulation_run_execute_inline, simulation_run_get_or_create

# A body is a workload and one of the forms of hardware (inline, a build, parts, a ranking).
BODY_FIELDS = frozenset({"workload", "hardware", "build_id", "parts", "ranking"})
PART_LINE_FIELDS = frozenset({"part_id", "quantity"})
NARROW_SINGLE = (
    "put fewer layers on each GPU (more GPUs), use reference mode, or sign in for a larger limit"
)


def _cost_summary(build: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """The build's price per unit of speed: decode tokens/s for inference, else training's."""
    if result.get("kind") == INFER:
        decode = result["decode_tokens_per_s"]
        return {**build, "usd_per_decode_tokens_per_s": build["price_usd"] / decode}
    return {**build, "usd_per_tokens_per_s": build["price_usd"] / result["best"]["tokens_per_s"]}


def _non_finite_path(value: object, path: str = "result") -> str | None:
    """The first number in `value` that JSON cannot hold (inf, nan), by its dotted path."""
    if isinstance(value, float) and not math.isfinite(value):
        return path
    if isinstance(value, dict | list):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            found = _non_finite_path(item, f"{path}.{key}")
            if found is not None:
                return found
    return None


def _out_of_range(detail: str) -> EngineInputError:
    return EngineInputError(
        field="request", message=f"these inputs are outside what the model can compute ({detail})"
    )


@contextmanager
def _computable() -> Iterator[None]:
    """Inputs at the edge of what the parser allows (a TFLOPS of 5e-324, 1e308 GB of RAM)
    overflow or leave no split to pick: that is the client's error (400), not a crash."""
    try:
        yield
    except (ArithmeticError, StopIteration) as exc:
        raise _out_of_range("no finite answer") from exc


def simulation_single_compute(body: dict[str, Any]) -> dict[str, Any]:
    """The engine's full result, plus cost figures when the body names a priced build."""
    with _computable():
        result = result_to_json(simulate(parse_request(_engine_body(body))))
    # JSON (and PostgreSQL) have no infinity: a non-finite result is refused too.
    overflow = _non_finite_path(result)
    if overflow is not None:
        raise _out_of_range(f"{overflow} is not finite")
    if body.get("placements_tried") is not None:
        result["placements_tried"] = body["placements_tried"]
    build = body.get("build")
    if build is not None and build.get("price_usd") is not None:
        result["build"] = _cost_summary(build, result)
    return result


def _engine_body(body: Mapping[str, Any]) -> dict[str, Any]:
    """What the engine reads of a stored input: the rest (the build and its prices, the
    placements tried) is the service's."""
    return {key: body[key] for key in ("workload", "hardware") if key in body}


def _is_auto_inference(body: Mapping[str, Any]) -> bool:
    workload = body.get("workload")
    return (
        isinstance(workload, Mapping)
        and workload.get("kind") == INFER
        and workload.get("placement") == AUTO
        and isinstance(body.get("hardware"), Mapping)
    )


def simulation_normalize(body: Mapping[str, Any]) -> dict[str, Any]:
    """The request with defaults filled in; "auto" placement replaced by the winner."""
    if not _is_auto_inference(body):
        return request_to_json(parse_request(body))
    with _computable():
        search = placement_search(workload=body["workload"], hardware=body["hardware"])
    if search.best is None:
        reasons = "; ".join(f"{name}: {reason}" for name, reason in search.tried.items())
        raise EngineInputError(
            field="workload.placement", message=f"no placement runs here ({reasons})"
        )
    return {**request_to_json(search.best.request), "placements_tried": search.tried}


def simulation_single_run(
    *,
    body: Mapping[str, Any],
    build: dict[str, Any] | None = None,
    prices_observed_on: date | None = None,
) -> SimulationRun:
    """Validate (EngineInputError names the field before anything is stored), then the
    stored run for the same normalized input and prices, or one computed now. Under a CPU
    limit (engine.cpu_limit, set per request by simulator/guards.py) a simulation estimated
    to need more than the time left is refused before it starts (services/cost.py)."""
    normalized = simulation_normalize(body)
    time_left = cpu_time_left_s()
    if time_left is not None:
        left_s, limit_s = time_left
        simulation_cost_check(
            cost=simulation_single_cost(body=normalized),
            limit_s=left_s,
            narrow=NARROW_SINGLE,
            of_s=limit_s,
        )
    if build is not None:
        normalized["build"] = build
    run, created = simulation_run_get_or_create(
        kind=RunKind.SINGLE,
        body=normalized,
        engine_version=ENGINE_VERSION,
        # The prices are part of the input (in "build"), so they enter its hash.
        price_epoch="",
        prices_observed_on=lambda: prices_observed_on,
    )
    try:
        return simulation_run_execute_inline(run=run, compute=simulation_single_compute)
    except EngineInputError:
        # Refused input (a model that fits nowhere, NVFP4 without FP4 cores) is answered
        # 400; it is not a run to keep, or every refused request would add a row.
        if created:
            run.delete()
        raise


def _priced_parts(lines: list[tuple[Part, int]]) -> list[dict[str, Any]]:
    """Each part with its current price and where and when that price was observed."""
    prices = part_current_price_map(part_ids=[part.pk for part, _ in lines])
    priced = []
    for part, quantity in lines:
        price = prices.get(part.pk)
        priced.append(
            {
                "part_id": part.pk,
                "kind": part.kind,
                "name": part.name,
                "quantity": quantity,
                "unit_usd": None if price is None else float(price.amount_usd),
                "price_observed_on": None
                if price is None
                else price.observation.observed_on.isoformat(),
                "price_vendor": None if price is None else price.observation.vendor,
            }
        )
    return priced


def _catalog_lines_run(
    *, body: Mapping[str, Any], lines: list[tuple[Part, int]], field: str, build: Build | None
) -> SimulationRun:
    spec = spec_from_lines((part.detail, quantity) for part, quantity in lines)
    errors = build_errors(spec)
    if errors:
        reasons = "; ".join(problem.message for problem in errors)
        raise EngineInputError(field=field, message=f"incompatible build: {reasons}")
    parts = _priced_parts(lines)
    unpriced = [p["name"] for p in parts if p["unit_usd"] is None]
    summary = {
        "build_id": None if build is None else build.pk,
        "name": "custom build" if build is None else build.name,
        "parts": parts,
        "price_usd": None if unpriced else sum(p["unit_usd"] * p["quantity"] for p in parts),
        "unpriced_parts": unpriced,
    }
    dates = [p["price_observed_on"] for p in parts if p["price_observed_on"]]
    return simulation_single_run(
        body={"workload": _catalog_workload(body.get("workload")), "hardware": spec.any_hardware()},
        build=summary,
        prices_observed_on=date.fromisoformat(max(dates)) if dates else None,
    )


def _catalog_workload(workload: object) -> object:
    """A catalog build serves inference in its best placement unless the body names one."""
    if isinstance(workload, Mapping) and workload.get("kind") == INFER:
        return {"placement": AUTO, **workload}
    return workload


def _part_lines(value: object) -> list[tuple[Part, int]]:
    if not isinstance(value, list) or not value:
        raise EngineInputError(field="parts", message="must be a non-empty list")
    wanted: list[tuple[int, int]] = []
    for position, line in enumerate(value):
        field = f"parts[{position}]"
        if not isinstance(line, Mapping):
            raise EngineInputError(field=field, message="must be an object")
        require_known_fields(line, PART_LINE_FIELDS, field)
        part_id, quantity = line.get("part_id"), line.get("quantity", 1)
        if isinstance(part_id, bool) or not isinstance(part_id, int):
            raise EngineInputError(field=f"{field}.part_id", message="must be an integer id")
        if isinstance(quantity, bool) or not isinstance(quantity, int) or not 1 <= quantity <= 16:
            raise EngineInputError(field=f"{field}.quantity", message="must be 1 to 16")
        wanted.append((part_id, quantity))
    parts = part_detailed_map(part_ids=[part_id for part_id, _ in wanted])
    for position, (part_id, _) in enumerate(wanted):
        if part_id not in parts:
            raise FieldNotFound(
                field=f"parts[{position}].part_id", message=f"No part with id {part_id}."
            )
    return [(parts[part_id], quantity) for part_id, quantity in wanted]


def simulation_request_submit(*, body: object) -> SimulationRun:
    """Dispatch a POST /api/simulate body by its form."""
    if not isinstance(body, Mapping):
        raise EngineInputError(field="request", message="must be a JSON object")
    require_known_fields(body, BODY_FIELDS, "")
    forms = [key for key in ("hardware", "build_id", "parts", "ranking") if key in body]
    if len(forms) != 1:
        raise EngineInputError(
            field="request",
            message="give exactly one of hardware, build_id, parts or ranking",
        )
    if "ranking" in body:
        return ranking_create(body=body)
    if "build_id" in body:
        build_id = body["build_id"]
        if isinstance(build_id, bool) or not isinstance(build_id, int):
            raise EngineInputError(field="build_id", message="must be an integer id")
        build = Build.objects.filter(pk=build_id).first()
        if build is None:
            raise FieldNotFound(field="build_id", message=f"No build with id {build_id}.")
        lines = [(part, quantity) for part, quantity, _ in build_lines(build=build)]
        return _catalog_lines_run(body=body, lines=lines, field="build_id", build=build)
    if "parts" in body:
        lines = _part_lines(body["parts"])
        return _catalog_lines_run(body=body, lines=lines, field="parts", build=None)
    return simulation_single_run(body=body)


def simulation_request_submit_once(
    *, key: str, client: str, body: object, submit: Callable[[], SimulationRun]
) -> SimulationRun:
    """`submit()` at most once per (client, Idempotency-Key): a retry with the same body gets
    the run the first call stored, as it is now, and submits nothing; another body is
    IdempotencyKeyReusedError. Only an accepted request keeps its key: a refused one (400,
    429, 503) may be retried with it. Two concurrent calls with one key submit the same
    normalized input, which the run table keeps once; the unique key keeps one record."""
    digest = request_body_sha256(body)
    stored = SimulatePostKey.objects.filter(client=client, key=key).select_related("run").first()
    if stored is None:
        run = submit()
        try:
            with transaction.atomic():
                SimulatePostKey.objects.create(client=client, key=key, body_sha256=digest, run=run)
            return run
        except IntegrityError:  # a concurrent call with the key stored first
            stored = SimulatePostKey.objects.select_related("run").get(client=client, key=key)
    if stored.body_sha256 != digest:
        raise IdempotencyKeyReusedError(key)
    return stored.run

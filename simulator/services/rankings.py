"""Rankings: every candidate build of the catalog simulated for one workload, ranked by
$ per (tokens/s), hours for the token target, or price, with the Pareto frontier marked.
An inference workload ranks builds (and whole Apple systems) by $ per (decode tokens/s) at
its context, each in the placement that decodes fastest on it.

A ranking is a SimulationRun of kind "ranking". Its plan (the candidates and their prices)
is fixed when the run starts; chunks of the plan are simulated by separate tasks (a Celery
group), stored as RunChunk rows, and the task that stores the last chunk merges them.
"""

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import transaction

from catalog.generator import RAM_TIERS_GB, StorageTier
from catalog.selectors import (
    candidate_build_list,
    catalog_price_epoch,
    catalog_prices_observed_on,
    current_prices_usd,
    system_candidate_list,
)
from simulator.engine import ENGINE_VERSION
from simulator.engine.errors import EngineInputError
from simulator.engine.infer_hardware import GIB
from simulator.engine.infer_request import parse_infer_request
from simulator.engine.infer_result import inference_request_to_json
from simulator.engine.placement import PLACEMENTS
from simulator.engine.request import parse_request
from simulator.engine.result import request_to_json
from simulator.engine.simulate import simulate
from simulator.models import RunKind, RunStatus, SimulationRun
from simulator.placement_search import AUTO, placement_search
from simulator.ranking import (
    DEFAULT_SORT_BY_KIND,
    INFER,
    SORTS_BY_KIND,
    TRAIN,
    mark_pareto,
    sort_rows,
)
from simulator.services.cost import (
    ranking_candidate_count,
    simulation_cost_check,
    simulation_request_cost,
)
from simulator.services.runs import (
    simulation_run_chunk_results,
    simulation_run_finish,
    simulation_run_get_or_create,
    simulation_run_record_chunk,
)

# Candidates per chunk: enough work per task to dwarf the broker round trip.
CHUNK_SIZE = 150
MAX_GPU_COUNT = 8
SECONDS_PER_HOUR = 3600.0

# Workloads kept ranked at all times (issue 5): GLM-4.7 in both seed formats and a dense 70B
# for training; serving GLM-4.7-Flash in Q4_K_M at 32k context (issue 7). Training entries
# carry no kind ("train" is added), so their stored inputs and hashes stay as they were.
DEFAULT_WORKLOADS: tuple[dict[str, Any], ...] = (
    {"model": "glm-4.7", "quant": "NF4d+NF2e", "seq_len": 1024, "tokens": 50_000_000},
    {"model": "glm-4.7", "quant": "NVFP4", "seq_len": 1024, "tokens": 50_000_000},
    {"model": "llama-3.1-70b", "quant": "NF4", "seq_len": 1024, "tokens": 50_000_000},
    {"kind": INFER, "model": "glm-4.7-flash", "quant": "Q4_K_M", "context": 32768},
)
# Storage does not change inference speed: by default an inference ranking takes the
# cheapest tier only, so each GPU, count and RAM size appears once.
INFER_STORAGE_TIERS = [StorageTier.GEN4_X1.value]


# --- input ------------------------------------------------------------------------------
def _int_option(options: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EngineInputError(
            field=f"ranking.{key}", message=f"must be an integer from {low} to {high}"
        )
    return int(value)


def _budget(options: Mapping[str, Any]) -> float | None:
    value = options.get("budget_usd")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e9:
        raise EngineInputError(
            field="ranking.budget_usd", message="must be a positive number of dollars"
        )
    return float(value)


def _storage_tiers(options: Mapping[str, Any], default: list[str]) -> list[str]:
    tiers = options.get("storage_tiers", default)
    known = [tier.value for tier in StorageTier]
    if not isinstance(tiers, list) or not tiers or any(t not in known for t in tiers):
        raise EngineInputError(
            field="ranking.storage_tiers", message=f"must be a non-empty list of {known}"
        )
    return sorted(set(tiers))


def ranking_options_normalize(options: object, *, kind: str = TRAIN) -> dict[str, Any]:
    """The ranking section with defaults filled in; EngineInputError names a bad field.
    Inference adds `systems` (rank whole Apple systems too, default true)."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise EngineInputError(field="ranking", message="must be a JSON object")
    low = _int_option(options, "gpu_count_min", 1, 1, MAX_GPU_COUNT)
    high = _int_option(options, "gpu_count_max", MAX_GPU_COUNT, 1, MAX_GPU_COUNT)
    if low > high:
        raise EngineInputError(
            field="ranking.gpu_count_min", message="must not exceed gpu_count_max"
        )
    sorts = SORTS_BY_KIND[kind]
    sort = options.get("sort", DEFAULT_SORT_BY_KIND[kind])
    if sort not in sorts:
        raise EngineInputError(field="ranking.sort", message=f"must be one of {list(sorts)}")
    all_tiers = [tier.value for tier in StorageTier]
    normalized = {
        "budget_usd": _budget(options),
        "gpu_count_min": low,
        "gpu_count_max": high,
        "ram_gb_min": _int_option(options, "ram_gb_min", 0, 0, max(RAM_TIERS_GB)),
        "storage_tiers": _storage_tiers(
            options, INFER_STORAGE_TIERS if kind == INFER else all_tiers
        ),
        "sort": sort,
    }
    if kind == INFER:
        normalized["systems"] = _flag(options, "systems", default=True)
    return normalized


def _flag(options: Mapping[str, Any], key: str, *, default: bool) -> bool:
    value = options.get(key, default)
    if not isinstance(value, bool):
        raise EngineInputError(field=f"ranking.{key}", message="must be true or false")
    return value


def _infer_workload_normalize(workload: Mapping[str, Any]) -> dict[str, Any]:
    """The engine normalizes the workload; the placement may also be "auto" (each build's
    fastest), the default."""
    placement = workload.get("placement", AUTO)
    if placement not in (AUTO, *PLACEMENTS):
        choices = [AUTO, *PLACEMENTS]
        raise EngineInputError(field="workload.placement", message=f"must be one of {choices}")
    body = {"workload": {**workload, "placement": "gpu"}, "hardware": _INFER_PROBE_HARDWARE}
    probe = inference_request_to_json(parse_infer_request(body))
    return {**probe["workload"], "placement": placement}


def ranking_body_normalize(body: Mapping[str, Any]) -> dict[str, Any]:
    workload = body.get("workload")
    if not isinstance(workload, Mapping):
        raise EngineInputError(field="workload", message="must be a JSON object")
    if workload.get("kind") == INFER:
        return {
            "workload": _infer_workload_normalize(workload),
            "ranking": ranking_options_normalize(body.get("ranking"), kind=INFER),
        }
    # The engine validates and normalizes the workload; each build's hardware comes later.
    probe = request_to_json(parse_request({"workload": workload, "hardware": _PROBE_HARDWARE}))
    return {
        "workload": probe["workload"],
        "ranking": ranking_options_normalize(body.get("ranking")),
    }


# Any valid hardware lets request_to_json normalize a workload; it is not simulated.
_PROBE_HARDWARE = {
    "gpu": {"name": "probe", "vram_gb": 80, "bf16_tflops": 100, "pcie_gbps": 22, "fp4": True}
}
_INFER_PROBE_HARDWARE = {"gpu": {**_PROBE_HARDWARE["gpu"], "mem_gbps": 1000}}


# --- creation -----------------------------------------------------------------------------
def ranking_create(*, body: Mapping[str, Any], capped: bool = True) -> SimulationRun:
    """The stored ranking for this input and the current prices, or a new one queued.
    Client requests are `capped` by RANKING_QUEUE_MAX waiting runs (QueueFullError)."""
    normalized = ranking_body_normalize(body)
    price_epoch = catalog_price_epoch()
    options = normalized["ranking"]
    builds = ranking_candidate_count(
        options=options,
        price_epoch=price_epoch,
        count=lambda: len(ranking_plan(options=options)),
    )
    simulation_cost_check(
        cost=simulation_request_cost(workload=normalized["workload"], builds=builds),
        narrow="narrow the ranking (ranking.gpu_count_max, ranking.budget_usd, "
        "ranking.storage_tiers) or shorten the sequence",
    )
    run, created = simulation_run_get_or_create(
        kind=RunKind.RANKING,
        body=normalized,
        engine_version=ENGINE_VERSION,
        price_epoch=price_epoch,
        prices_observed_on=catalog_prices_observed_on,
        max_waiting=settings.RANKING_QUEUE_MAX if capped else None,
    )
    if created:
        transaction.on_commit(
            lambda: current_app.send_task("simulator.ranking_start", args=[str(run.pk)])
        )
    return run


def ranking_defaults_enqueue() -> list[str]:
    """Queue (or find) the default rankings at the current prices; their run ids."""
    runs = [
        ranking_create(body={"workload": {"kind": "train", **w}}, capped=False)
        for w in DEFAULT_WORKLOADS
    ]
    return [str(run.pk) for run in runs]


# --- planning ---------------------------------------------------------------------------
def _candidate_plan_item(candidate: Any, prices: dict[int, Decimal]) -> dict[str, Any]:
    parts = [
        {
            "part_id": part.pk,
            "kind": part.kind,
            "name": part.name,
            "quantity": count,
            "unit_usd": float(prices[part.pk]),
        }
        for part, count in candidate.spec.lines()
    ]
    return {
        "name": candidate.name,
        "signature": candidate.signature,
        "storage_tier": None if candidate.storage_tier is None else str(candidate.storage_tier),
        "price_usd": float(candidate.total_usd),
        "parts": parts,
        "hardware": candidate.hardware(),
    }


def ranking_plan(*, options: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Candidate builds of the catalog within the options, as JSON-safe plan items."""
    counts = range(options["gpu_count_min"], options["gpu_count_max"] + 1)
    candidates = candidate_build_list(
        gpu_counts=tuple(counts),
        storage_tiers=tuple(StorageTier(t) for t in options["storage_tiers"]),
        ram_tiers_gb=tuple(r for r in RAM_TIERS_GB if r >= options["ram_gb_min"]),
    )
    if options.get("systems"):
        candidates += [c for c in system_candidate_list() if c.ram_gb >= options["ram_gb_min"]]
    budget = options["budget_usd"]
    prices = current_prices_usd()
    items = [
        _candidate_plan_item(c, prices)
        for c in candidates
        if budget is None or float(c.total_usd) <= budget
    ]
    return sorted(items, key=lambda item: (item["price_usd"], item["signature"]))


def ranking_pending_chunks(*, run: SimulationRun) -> list[int]:
    """Plan the run on first start (idempotent), then the chunk indexes not stored yet."""
    if not run.plan:
        with transaction.atomic():
            locked = SimulationRun.objects.select_for_update().get(pk=run.pk)
            if not locked.plan:
                items = ranking_plan(options=locked.input["ranking"])
                locked.plan = {"candidates": items, "chunk_size": CHUNK_SIZE}
                locked.chunks_total = -(-len(items) // CHUNK_SIZE)
                locked.save(update_fields=["plan", "chunks_total"])
            run = locked
    done = set(run.chunks.values_list("index", flat=True))
    return [index for index in range(run.chunks_total) if index not in done]


# --- evaluation ---------------------------------------------------------------------------
def ranking_row(*, item: Mapping[str, Any], workload: Mapping[str, Any]) -> dict[str, Any]:
    """One candidate simulated: the ranked row (raises EngineInputError if it cannot run)."""
    if workload.get("kind") == INFER:
        return ranking_infer_row(item=item, workload=workload)
    result = simulate(parse_request({"workload": workload, "hardware": item["hardware"]}))
    best = result.best
    tokens = workload.get("tokens")
    hours = None if tokens is None else tokens / best.tokens_per_s / SECONDS_PER_HOUR
    hardware = item["hardware"]
    return {
        "name": item["name"],
        "signature": item["signature"],
        "parts": item["parts"],
        "price_usd": item["price_usd"],
        "storage_tier": item["storage_tier"],
        "gpu_name": hardware["gpu"]["name"],
        "gpu_count": hardware["gpu_count"],
        "pcie_gbps": hardware["gpu"]["pcie_gbps"],
        "nvme_gbps": hardware["nvme_gbps"],
        "ram_gb": hardware["ram_gb"],
        "tokens_per_s": float(best.tokens_per_s),
        "usd_per_tokens_per_s": item["price_usd"] / float(best.tokens_per_s),
        "hours_for_tokens": hours,
        "bottleneck": best.bottleneck,
        "transfer_source": best.transfer_source,
        "resident_layers": int(best.resident_layers),
        "streamed_layers": int(best.streamed_layers),
        "micro_batch": int(best.micro_batch),
        "compute_s": float(best.compute_s),
        "transfer_s": float(best.transfer_s),
        "step_s": float(best.step_s),
        "overhead_pct": float(best.overhead_pct),
    }


def ranking_infer_row(*, item: Mapping[str, Any], workload: Mapping[str, Any]) -> dict[str, Any]:
    """One candidate serving the workload in its fastest placement (or the one asked for)."""
    hardware = item["hardware"]
    placement = workload["placement"]
    search = placement_search(
        workload=workload, hardware=hardware, only=None if placement == AUTO else placement
    )
    best = search.best
    if best is None:
        reasons = "; ".join(f"{name}: {reason}" for name, reason in search.tried.items())
        raise EngineInputError(field="workload.placement", message=f"does not fit ({reasons})")
    decode = float(best.decode.tokens_per_s)
    gpu, cpu, unified = hardware.get("gpu"), hardware.get("cpu"), hardware.get("unified")
    return {
        "name": item["name"],
        "signature": item["signature"],
        "parts": item["parts"],
        "price_usd": item["price_usd"],
        "storage_tier": item["storage_tier"],
        "gpu_name": None if gpu is None else gpu["name"],
        "gpu_count": int(hardware.get("gpu_count", 0)) if gpu is not None else 0,
        "cpu_name": None if cpu is None else cpu["name"],
        "system_name": None if unified is None else unified["name"],
        "ram_gb": hardware["ram_gb"],
        "decode_tokens_per_s": decode,
        "prefill_tokens_per_s": float(best.prefill.tokens_per_s),
        "usd_per_decode_tokens_per_s": item["price_usd"] / decode,
        "max_context": int(best.max_context),
        "placement": best.placement.name,
        "offload_from_layer": best.request.workload.offload_from_layer,
        "bottleneck": best.decode.bottleneck,
        "weights_gb": {s.location: float(s.stored_bytes / GIB) for s in best.placement.shares},
        "kv_cache_gb": float(best.kv_cache_bytes / GIB),
        "placements_tried": search.tried,
    }


def ranking_chunk_evaluate(*, run: SimulationRun, index: int) -> dict[str, Any]:
    size = run.plan["chunk_size"]
    items = run.plan["candidates"][index * size : (index + 1) * size]
    workload = run.input["workload"]
    rows, excluded = [], []
    for item in items:
        try:
            rows.append(ranking_row(item=item, workload=workload))
        except EngineInputError as exc:
            excluded.append({"name": item["name"], "reason": exc.message})
    return {"rows": rows, "excluded": excluded}


def ranking_chunk_process(*, run_id: str, index: int) -> None:
    run = SimulationRun.objects.filter(pk=run_id).first()
    if run is None or run.is_finished or run.chunks.filter(index=index).exists():
        return
    chunk = ranking_chunk_evaluate(run=run, index=index)
    if simulation_run_record_chunk(run_id=run_id, index=index, result=chunk):
        ranking_merge(run_id=run_id)


def _explanation(rows: list[dict[str, Any]], excluded: list[dict[str, Any]], n: int) -> str:
    if n == 0:
        return "No catalog build matches the budget, GPU count, storage and RAM options."
    if not rows:
        reasons = sorted({item["reason"] for item in excluded})
        return "The workload fits no candidate build: " + "; ".join(reasons[:3])
    return f"{len(rows)} of {n} candidate builds can run this workload."


def ranking_merge(*, run_id: str) -> None:
    run = SimulationRun.objects.get(pk=run_id)
    if run.status == RunStatus.DONE:
        return
    chunks = simulation_run_chunk_results(run=run)
    rows = [row for chunk in chunks for row in chunk["rows"]]
    excluded = [item for chunk in chunks for item in chunk["excluded"]]
    kind = run.input["workload"].get("kind", TRAIN)
    ranked = sort_rows(mark_pareto(rows, kind=kind), sort=run.input["ranking"]["sort"], kind=kind)
    for position, row in enumerate(ranked, start=1):
        row["rank"] = position
    result = {
        "workload": run.input["workload"],
        "ranking": run.input["ranking"],
        "candidates": len(run.plan.get("candidates", [])),
        "rows": ranked,
        "excluded": excluded,
        "explanation": _explanation(ranked, excluded, len(run.plan.get("candidates", []))),
        "prices_observed_on": (
            run.prices_observed_on.isoformat() if run.prices_observed_on else None
        ),
    }
    simulation_run_finish(run_id=run_id, result=result)


# --- reading ------------------------------------------------------------------------------
def ranking_view(
    *, run: SimulationRun, budget_usd: float | None, sort: str, limit: int
) -> dict[str, Any]:
    """A finished ranking seen within a budget and in an order: the top `limit` rows.
    Filtering by price keeps a prefix of the price order, so Pareto flags stay valid."""
    assert run.result is not None
    rows = [
        row for row in run.result["rows"] if budget_usd is None or row["price_usd"] <= budget_usd
    ]
    ranked = sort_rows(rows, sort=sort, kind=run.result["workload"].get("kind", TRAIN))
    return {
        "workload": run.result["workload"],
        "sort": sort,
        "budget_usd": budget_usd,
        "prices_observed_on": run.result["prices_observed_on"],
        "count": len(ranked),
        "rows": [{**row, "rank": i} for i, row in enumerate(ranked[:limit], start=1)],
        "explanation": _view_explanation(run.result, len(ranked), budget_usd),
    }


def _view_explanation(result: dict[str, Any], shown: int, budget_usd: float | None) -> str:
    if shown and budget_usd is not None:
        runnable = len(result["rows"])
        return (
            f"{shown} of the {runnable} builds that can run this workload"
            f" cost ${budget_usd:,.0f} or less."
        )
    return result["explanation"] if shown else _no_rows_within(budget_usd)


def _no_rows_within(budget_usd: float | None) -> str:
    if budget_usd is None:
        return "The workload fits no candidate build."
    return f"No candidate build that can run this workload costs ${budget_usd:,.0f} or less."

"""Rankings: every candidate build of the catalog simulated for one workload, ranked by
$ per (tokens/s), hours for the token target, or price, with the Pareto frontier marked.
An inference workload ranks builds (and whole Apple systems) by $ per (decode tokens/s) at
its context, each in the placement that decodes fastest on it.

Prices apart from physics: no simulated figure depends on a price, so a ranking stores none.
A ranking is a SimulationRun of kind "ranking" keyed by its input, the engine version and the
catalog's hardware epoch (its parts and specifications). Its plan, fixed when the run starts,
holds every candidate build of the options (the budget is a read-time filter) and the
candidates' hardware not yet simulated for the workload: a SimulatedBuild row per (engine
version, workload, hardware signature) is shared by every ranking, so a new part or engine
version simulates only what is new. Chunks of that hardware are simulated by separate tasks
(a Celery group), and the task that stores the last chunk merges the candidates with their
physics into the run's result.

Prices are joined when a ranking is read (simulator/services/ranking_views.py): each row's
price from the current prices of its parts, $ per (tokens/s), the Pareto frontier, the
order and the rank. A staff price change therefore shows at once, nothing simulated again.
Which supporting parts a candidate uses is chosen (cheapest, at the prices of the time) when
its hardware epoch's ranking is planned; a later price change re-prices those parts without
choosing again. A candidate with a part that has no current price is shown unpriced, never
estimated.
"""

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models.fields.json import KeyTransform
from kombu.exceptions import OperationalError

from catalog.generator import RAM_TIERS_GB, Candidate, StorageTier
from catalog.selectors import (
    candidate_build_list,
    catalog_hardware_epoch,
    system_candidate_list,
)
from simulator.engine import (
    AUTO,
    ENGINE_VERSION,
    GIB,
    PLACEMENTS,
    EngineInputError,
    Hardware,
    PlacementSearch,
    SplitResult,
    TrainWorkload,
    best_placements,
    best_splits,
    normalize_workload,
    parse_hardware,
    parse_workload,
    placement_search,
    require_known_fields,
)
from simulator.models import RunKind, RunStatus, SimulatedBuild, SimulationRun
from simulator.ranking import (
    DEFAULT_SORT_BY_KIND,
    INFER,
    SORTS_BY_KIND,
    TRAIN,
    Row,
)
from simulator.services.cost import (
    ranking_candidate_count,
    simulation_cost_check,
    simulation_ranking_cost,
)
from simulator.services.ranking_filters import (
    BUYER_REGIONS,
    CASE_SIZES,
    MAX_POWER_W,
    RankingFilters,
)
from simulator.services.ranking_views import ranking_view as ranking_view  # re-exported
from simulator.services.runs import (
    simulation_run_fail,
    simulation_run_finish,
    simulation_run_get_or_create,
    simulation_run_record_chunk,
)

# Options that only choose how a finished ranking is shown, not what is simulated: the
# budget, the order and the buyer's filters (RankingFilters).
VIEW_OPTIONS = ("budget_usd", "sort", *RankingFilters.__slots__)
# What a ranking section may hold; inference may also rank whole systems.
RANKING_FIELDS = frozenset(
    {"gpu_count_min", "gpu_count_max", "ram_gb_min", "storage_tiers", *VIEW_OPTIONS}
)
RANKING_FIELDS_BY_KIND = {TRAIN: RANKING_FIELDS, INFER: RANKING_FIELDS | {"systems"}}
# What a client is told to wait when the broker cannot take a new ranking.
BROKER_RETRY_AFTER_S = 5
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
    Inference adds `systems` (rank whole Apple systems too, default true). Either kind may
    ask for `include_estimates` (price rows with the planner's estimates too, marked),
    `exclude_stale` (leave out prices older than PRICE_STALE_AFTER_DAYS), `new_only` and
    `region` (which offers count), `power_w_max` and `case_size_max` (which builds the
    buyer can take): they choose how the finished ranking is shown, not what is simulated."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise EngineInputError(field="ranking", message="must be a JSON object")
    require_known_fields(options, RANKING_FIELDS_BY_KIND[kind], "ranking")
    low = _int_option(options, "gpu_count_min", 1, 1, MAX_GPU_COUNT)
    high = _int_option(options, "gpu_count_max", MAX_GPU_COUNT, 1, MAX_GPU_COUNT)
    if low > high:
        raise EngineInputError(
            field="ranking.gpu_count_min", message="must not exceed gpu_count_max"
        )
    sorts = SORTS_BY_KIND[kind]
    sort = options.get("sort", DEFAULT_SORT_BY_KIND[kind])
    if not isinstance(sort, str) or sort not in sorts:
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
    # Stored only when asked for, so that the inputs (and hashes) of rankings by published
    # prices stay what they were before the option existed.
    for flag in ("include_estimates", "exclude_stale", "new_only"):
        if _flag(options, flag, default=False):
            normalized[flag] = True
    for key, choices in (("region", BUYER_REGIONS), ("case_size_max", CASE_SIZES)):
        if options.get(key) is not None:
            normalized[key] = _choice(options, key, [value for value, _ in choices])
    if options.get("power_w_max") is not None:
        normalized["power_w_max"] = _int_option(options, "power_w_max", 0, 1, MAX_POWER_W)
    return normalized


def _choice(options: Mapping[str, Any], key: str, choices: list[str]) -> str:
    value = options[key]
    if not isinstance(value, str) or value not in choices:
        raise EngineInputError(field=f"ranking.{key}", message=f"must be one of {choices}")
    return value


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
    normalized = normalize_workload({**workload, "placement": PLACEMENTS[0]})
    return {**normalized, "placement": placement}


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
    return {
        "workload": normalize_workload(workload),
        "ranking": ranking_options_normalize(body.get("ranking")),
    }


# --- creation -----------------------------------------------------------------------------
def ranking_create(*, body: Mapping[str, Any], capped: bool = True) -> SimulationRun:
    """The stored ranking for this input, engine and hardware epoch, or a new one queued.
    Prices do not enter: a ranking follows them when it is read. Client requests are
    `capped` by RANKING_QUEUE_MAX waiting runs (QueueFullError)."""
    normalized = ranking_body_normalize(body)
    hardware_epoch = catalog_hardware_epoch()
    options = normalized["ranking"]
    builds = ranking_candidate_count(
        options={k: v for k, v in options.items() if k not in VIEW_OPTIONS},
        epoch=hardware_epoch,
        count=lambda: len(ranking_plan(options=options)),
    )
    simulation_cost_check(
        cost=simulation_ranking_cost(workload=normalized["workload"], builds=builds),
        limit_s=settings.RANKING_MAX_CPU_S,
        narrow="narrow the ranking (ranking.gpu_count_max, ranking.storage_tiers, "
        "ranking.ram_gb_min) or ask for fewer layers or reference mode",
    )
    run, created = simulation_run_get_or_create(
        kind=RunKind.RANKING,
        body=normalized,
        engine_version=ENGINE_VERSION,
        price_epoch="",
        hardware_epoch=hardware_epoch,
        prices_observed_on=lambda: None,
        max_waiting=settings.RANKING_QUEUE_MAX if capped else None,
    )
    if created:
        _ranking_start_send(run_id=str(run.pk))
    return run


class BrokerUnavailableError(Exception):
    """The queue could not take a new ranking: nothing is queued; ask again shortly."""

    retry_after_s = BROKER_RETRY_AFTER_S

    def __init__(self) -> None:
        super().__init__(
            "The ranking queue cannot be reached right now; nothing was queued. "
            f"Try again in {BROKER_RETRY_AFTER_S} s."
        )


def _ranking_start_send(*, run_id: str) -> None:
    """Send the new run's start. Inside a caller's transaction (a task, a test), once it
    commits. Otherwise now: when the broker cannot take it, the run is failed (never reused:
    the next request queues a new one) and BrokerUnavailableError says so, so a request
    either queues a ranking that will run or queues nothing."""
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(
            lambda: current_app.send_task("simulator.ranking_start", args=[run_id])
        )
        return
    try:
        current_app.send_task("simulator.ranking_start", args=[run_id])
    except (OperationalError, OSError) as exc:
        simulation_run_fail(run_id=run_id, error="the ranking queue was unreachable")
        raise BrokerUnavailableError from exc


def ranking_defaults_enqueue() -> list[str]:
    """Queue (or find) the default rankings of the current parts; their run ids."""
    runs = [
        ranking_create(body={"workload": {"kind": "train", **w}}, capped=False)
        for w in DEFAULT_WORKLOADS
    ]
    return [str(run.pk) for run in runs]


# --- planning ---------------------------------------------------------------------------
def _digest(value: object) -> str:
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def ranking_workload_hash(*, workload: Mapping[str, Any]) -> str:
    """sha256 of a normalized workload: what a SimulatedBuild was simulated under."""
    return _digest(workload)


def hardware_signature(*, hardware: Mapping[str, Any]) -> str:
    """sha256 of the engine's hardware form: equal hardware, equal physics."""
    return _digest(hardware)


def _candidate_plan_item(candidate: Candidate) -> dict[str, Any]:
    hardware = candidate.hardware()
    parts = [
        {"part_id": part.pk, "kind": part.kind, "name": part.name, "quantity": count}
        for part, count in candidate.spec.lines()
    ]
    return {
        "name": candidate.name,
        "signature": candidate.signature,
        "hardware_signature": hardware_signature(hardware=hardware),
        "storage_tier": None if candidate.storage_tier is None else str(candidate.storage_tier),
        "parts": parts,
        "hardware": hardware,
    }


def ranking_plan(*, options: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every candidate build of the catalog within the options (the budget aside), priced
    or not, as JSON-safe plan items without prices."""
    counts = range(options["gpu_count_min"], options["gpu_count_max"] + 1)
    candidates = candidate_build_list(
        with_unpriced=True,
        gpu_counts=tuple(counts),
        storage_tiers=tuple(StorageTier(t) for t in options["storage_tiers"]),
        ram_tiers_gb=tuple(r for r in RAM_TIERS_GB if r >= options["ram_gb_min"]),
    )
    if options.get("systems"):
        systems = system_candidate_list(with_unpriced=True)
        candidates += [c for c in systems if c.ram_gb >= options["ram_gb_min"]]
    items = [_candidate_plan_item(c) for c in candidates]
    return sorted(items, key=lambda item: (item["name"], item["signature"]))


def simulated_signatures(
    *, engine_version: str, workload_hash: str, signatures: list[str]
) -> set[str]:
    """Those of `signatures` already simulated under this workload and engine version."""
    stored = SimulatedBuild.objects.filter(
        engine_version=engine_version, workload_hash=workload_hash
    ).filter(hardware_signature__in=signatures)
    return set(stored.values_list("hardware_signature", flat=True))


def ranking_chunk_size(*, kind: str) -> int:
    """Candidates per task (RANKING_CHUNK_SIZE_TRAIN, RANKING_CHUNK_SIZE_INFER)."""
    size: int = (
        settings.RANKING_CHUNK_SIZE_INFER if kind == INFER else settings.RANKING_CHUNK_SIZE_TRAIN
    )
    return size


def _ranking_plan_for(run: SimulationRun) -> dict[str, Any]:
    """The run's candidates (without their hardware) and the hardware still to simulate."""
    items = ranking_plan(options=run.input["ranking"])
    workload_hash = ranking_workload_hash(workload=run.input["workload"])
    hardware = {item["hardware_signature"]: item.pop("hardware") for item in items}
    stored = simulated_signatures(
        engine_version=run.engine_version, workload_hash=workload_hash, signatures=[*hardware]
    )
    pending = [
        {"hardware_signature": signature, "hardware": hardware[signature]}
        for signature in sorted(hardware)
        if signature not in stored
    ]
    size = ranking_chunk_size(kind=run.input["workload"].get("kind", TRAIN))
    return {
        "candidates": items,
        "workload_hash": workload_hash,
        # One list a chunk: a chunk's task reads its own list out of the stored plan, not
        # the whole plan (megabytes of JSON for a catalog-sized ranking).
        "pending_chunks": [pending[start : start + size] for start in range(0, len(pending), size)],
        "chunk_size": size,
    }


def ranking_pending_chunks(*, run: SimulationRun) -> list[int]:
    """Plan the run on first start (idempotent), then the chunk indexes not stored yet."""
    if not run.plan:
        with transaction.atomic():
            locked = SimulationRun.objects.select_for_update().get(pk=run.pk)
            if not locked.plan:
                locked.plan = _ranking_plan_for(locked)
                locked.chunks_total = len(locked.plan["pending_chunks"])
                locked.save(update_fields=["plan", "chunks_total"])
            run = locked
    done = set(run.chunks.values_list("index", flat=True))
    return [index for index in range(run.chunks_total) if index not in done]


# --- evaluation ---------------------------------------------------------------------------
def ranking_train_physics(
    *, hardware: list[Mapping[str, Any]], workload: Mapping[str, Any]
) -> list[Row | EngineInputError]:
    """Many candidates' hardware under one training workload, on the engine's vectorised
    batch path: each the ranking row's figures that do not depend on a price, or the reason
    the workload cannot run on it."""
    configs: list[Hardware | EngineInputError] = []
    for item in hardware:
        try:
            configs.append(parse_hardware(item))
        except EngineInputError as exc:
            configs.append(exc)
    runnable = [config for config in configs if isinstance(config, Hardware)]
    train = parse_workload(workload)
    assert isinstance(train, TrainWorkload)  # a training ranking's stored workload
    best = iter(best_splits(train, runnable))
    answers: list[Row | EngineInputError] = []
    for item, config in zip(hardware, configs, strict=True):
        answer = config if isinstance(config, EngineInputError) else next(best)
        answers.append(
            answer if isinstance(answer, EngineInputError) else _train_row(item, answer, workload)
        )
    return answers


def _train_row(hardware: Mapping[str, Any], best: SplitResult, workload: Mapping[str, Any]) -> Row:
    tokens = workload.get("tokens")
    hours = None if tokens is None else tokens / best.tokens_per_s / SECONDS_PER_HOUR
    return {
        "gpu_name": hardware["gpu"]["name"],
        "gpu_count": hardware["gpu_count"],
        "pcie_gbps": hardware["gpu"]["pcie_gbps"],
        "nvme_gbps": hardware["nvme_gbps"],
        "ram_gb": hardware["ram_gb"],
        "tokens_per_s": float(best.tokens_per_s),
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


def ranking_infer_physics(*, hardware: Mapping[str, Any], workload: Mapping[str, Any]) -> Row:
    """One candidate serving the workload in its fastest placement (or the one asked for),
    build by build: the readable specification of `ranking_infer_batch`."""
    placement = workload["placement"]
    search = placement_search(
        workload=workload, hardware=hardware, only=None if placement == AUTO else placement
    )
    return _infer_row(hardware, search)


def ranking_infer_batch(
    *, hardware: list[Mapping[str, Any]], workload: Mapping[str, Any]
) -> list[Row | EngineInputError]:
    """Many candidates' hardware under one serving workload on the engine's batch path
    (`best_placements`, the same answers as `placement_search` one build at a time): each the
    ranking row's figures, or the reason the workload cannot run on it."""
    configs: list[Hardware | EngineInputError] = []
    for item in hardware:
        try:
            configs.append(parse_hardware(item, kind=INFER))
        except EngineInputError as exc:
            configs.append(exc)
    runnable = [config for config in configs if isinstance(config, Hardware)]
    placement = workload["placement"]
    only = None if placement == AUTO else placement
    searches = iter(best_placements(workload, runnable, only=only))
    answers: list[Row | EngineInputError] = []
    for item, config in zip(hardware, configs, strict=True):
        if isinstance(config, EngineInputError):
            answers.append(config)
            continue
        try:
            answers.append(_infer_row(item, next(searches)))
        except EngineInputError as exc:
            answers.append(exc)
    return answers


def _infer_row(hardware: Mapping[str, Any], search: PlacementSearch) -> Row:
    best = search.best
    if best is None:
        reasons = "; ".join(f"{name}: {reason}" for name, reason in search.tried.items())
        raise EngineInputError(field="workload.placement", message=f"does not fit ({reasons})")
    gpu, cpu, unified = hardware.get("gpu"), hardware.get("cpu"), hardware.get("unified")
    return {
        "gpu_name": None if gpu is None else gpu["name"],
        "gpu_count": int(hardware.get("gpu_count", 0)) if gpu is not None else 0,
        "cpu_name": None if cpu is None else cpu["name"],
        "system_name": None if unified is None else unified["name"],
        "machines": int(hardware.get("machines", 1)),
        "ram_gb": hardware["ram_gb"] * int(hardware.get("machines", 1)),  # all machines
        "decode_tokens_per_s": float(best.decode.tokens_per_s),
        "prefill_tokens_per_s": float(best.prefill.tokens_per_s),
        "max_context": int(best.max_context),
        "placement": best.placement.name,
        "offload_from_layer": best.request.workload.offload_from_layer,
        "gpu_layers": best.request.workload.gpu_layers,  # under `gpu`, when short of VRAM
        "cpu_layers": int(best.placement.cpu_layers),
        "bottleneck": best.decode.bottleneck,
        "weights_gb": {s.location: float(s.stored_bytes / GIB) for s in best.placement.shares},
        "kv_cache_gb": float(best.kv_cache_bytes / GIB),
        "placements_tried": search.tried,
    }


def ranking_chunk_items(*, run_id: str, index: int) -> tuple[list[dict[str, Any]], str]:
    """Chunk `index`'s pending hardware and the workload hash, read out of the stored plan
    in the database (PostgreSQL's `->`, SQLite's json_extract) rather than decoded whole."""
    chunk = KeyTransform(str(index), KeyTransform("pending_chunks", "plan"))
    items, workload_hash = (
        SimulationRun.objects.filter(pk=run_id)
        .values_list(chunk, KeyTransform("workload_hash", "plan"))
        .get()
    )
    return list(items or []), str(workload_hash)


def ranking_chunk_evaluate(*, run: SimulationRun, index: int) -> list[SimulatedBuild]:
    """The chunk's hardware simulated (unsaved rows), less any that another ranking stored
    in the meantime."""
    items, workload_hash = ranking_chunk_items(run_id=str(run.pk), index=index)
    stored = simulated_signatures(
        engine_version=run.engine_version,
        workload_hash=workload_hash,
        signatures=[item["hardware_signature"] for item in items],
    )
    todo = [item for item in items if item["hardware_signature"] not in stored]
    workload = run.input["workload"]
    physics = ranking_infer_batch if workload.get("kind") == INFER else ranking_train_physics
    answers = physics(hardware=[item["hardware"] for item in todo], workload=workload)
    return [
        SimulatedBuild(
            engine_version=run.engine_version,
            workload_hash=workload_hash,
            hardware_signature=item["hardware_signature"],
            hardware=item["hardware"],
            physics=None if isinstance(answer, EngineInputError) else answer,
            reason=_reason(answer) if isinstance(answer, EngineInputError) else "",
        )
        for item, answer in zip(todo, answers, strict=True)
    ]


def _reason(exc: EngineInputError) -> str:
    return exc.message or str(exc)


def ranking_chunk_process(*, run_id: str, index: int) -> None:
    run = SimulationRun.objects.filter(pk=run_id).defer("plan", "result").first()
    if run is None or run.is_finished or run.chunks.filter(index=index).exists():
        return
    builds = ranking_chunk_evaluate(run=run, index=index)
    with transaction.atomic():
        # A ranking of another budget or order may have stored the same hardware meanwhile.
        SimulatedBuild.objects.bulk_create(builds, ignore_conflicts=True)
        last = simulation_run_record_chunk(
            run_id=run_id, index=index, result={"simulated": len(builds)}
        )
    if last:
        ranking_merge(run_id=run_id)


def ranking_merge(*, run_id: str) -> None:
    """The run's candidates joined with their physics: the run's result, with no price."""
    run = SimulationRun.objects.get(pk=run_id)
    if run.status == RunStatus.DONE:
        return
    candidates = run.plan["candidates"]
    simulated = {
        build.hardware_signature: build
        for build in SimulatedBuild.objects.filter(
            engine_version=run.engine_version,
            workload_hash=run.plan["workload_hash"],
            hardware_signature__in={c["hardware_signature"] for c in candidates},
        ).only("hardware_signature", "physics", "reason")
    }
    rows, excluded = [], []
    for candidate in candidates:
        build = simulated[candidate["hardware_signature"]]
        if build.physics is not None:
            rows.append({**candidate, **build.physics})
        else:
            excluded.append({**candidate, "reason": build.reason})
    result = {
        "workload": run.input["workload"],
        "ranking": run.input["ranking"],
        "candidates": len(candidates),
        "rows": rows,
        "excluded": excluded,
    }
    simulation_run_finish(run_id=run_id, result=result)

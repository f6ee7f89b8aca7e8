"""Reads for the serving pages: an inference ranking within a budget, in the table's order,
each row with the error band of its decode speed and the address of its build page; and one
build's serving result shaped for its page (where each part of the model lives, the KV cache
and the speeds against context depth, computed by the engine from the stored result)."""

from typing import Any
from urllib.parse import urlencode

from catalog.models import Part
from catalog.selectors import part_detailed_map
from catalog.spec import spec_from_lines
from frontend.custom_models import custom_model_get
from frontend.selectors import parts_query
from simulator.engine import (
    CONTENT_KINDS,
    GIB,
    EngineInputError,
    InferenceResult,
    batch_sweep,
    context_sweep,
    fitted_bandwidth_efficiency,
    model_slugs,
    parse_request,
    placement_contents,
    simulate,
    streamed_bandwidth_efficiency,
    sweep_depths,
    workload_model,
)
from simulator.models import SimulationRun
from simulator.ranking import DEFAULT_INFER_SORT, INFER_SORT_FIELDS
from simulator.services.accuracy import ranking_rows_banded, result_error_band
from simulator.services.ranking_filters import RankingFilters
from simulator.services.ranking_views import ranking_view

ALL_ROWS = 10**6
# Orders the ranking service does not keep: fastest or longest first, then cheapest.
DESCENDING = ("decode_tokens_per_s", "prefill_tokens_per_s", "max_context")
# The workload a serving page's address carries: what a ranking row was ranked under.
WORKLOAD_KEYS = ("model", "quant", "context", "placement")


def serving_model_choices(*, custom: object) -> list[tuple[str, str]]:
    """The shipped models by slug, then the stored custom model the slug `custom` names
    (`custom:<16 hex>`), if any, by its name."""
    choices = [(slug, slug) for slug in model_slugs()]
    stored = custom_model_get(slug=custom) if isinstance(custom, str) else None
    if stored is not None:
        choices.append((stored.slug, f"{stored.name} (yours)"))
    return choices


def serving_page(
    *,
    run: SimulationRun,
    budget_usd: float | None,
    sort: str,
    limit: int,
    filters: RankingFilters | None = None,
) -> dict[str, Any]:
    service_sort = sort if sort in INFER_SORT_FIELDS else DEFAULT_INFER_SORT
    view = ranking_view(
        run=run,
        budget_usd=budget_usd,
        sort=service_sort,
        limit=ALL_ROWS,
        filters=filters or RankingFilters(),
    )
    rows = view["rows"]
    if sort in DESCENDING:
        rows = sorted(rows, key=lambda r: (-r[sort], r["price_usd"]))
    points = [
        {"x": r["price_usd"], "y": r["decode_tokens_per_s"], "name": r["name"],
         "pareto": r.get("pareto", False)}
        for r in rows
    ]  # fmt: skip
    workload = view["workload"]
    table = [
        {**row, "rank": i, "placement_label": placement_label(row),
         "parts_query": parts_query(row["parts"]), "link_query": row_link_query(workload, row)}
        for i, row in enumerate(ranking_rows_banded(rows[:limit], workload=workload), 1)
    ]  # fmt: skip
    forced = experts_in_ram_rows(workload=workload, rows=table)
    table = [{**row, "experts_in_ram": answer} for row, answer in zip(table, forced, strict=True)]
    return {**view, "sort": sort, "rows": table, "points": points, "shown": len(table),
            "model_name": model_name(workload)}  # fmt: skip


def model_name(workload: dict[str, Any]) -> str:
    """The workload's model as a page names it: a brought model by its name, not its slug."""
    config = workload.get("model_config") or {}
    return str(config.get("_display_name") or workload["model"])


def row_link_query(workload: dict[str, Any], row: dict[str, Any]) -> str:
    """The query of a row's serving build page: its parts and the workload it was ranked
    under. A ranking with placement "hybrid" keeps on each build's GPUs as many layers'
    experts as fit, so the row's first offloaded layer goes too: the API's "hybrid" alone
    puts every MoE layer's experts in RAM."""
    params = {"parts": parts_query(row["parts"])}
    params |= {k: workload[k] for k in WORKLOAD_KEYS if workload.get(k) is not None}
    if workload.get("placement") == "hybrid" and row.get("offload_from_layer") is not None:
        params["offload_from_layer"] = row["offload_from_layer"]
    if row.get("placement") == "gpu" and row.get("gpu_layers") is not None:
        params["gpu_layers"] = row["gpu_layers"]  # the layers that fit the build's GPUs
    return urlencode(params, safe=":,")


# What each placement does, in a buyer's words.
PLACEMENT_WORDS = {"gpu": "all on GPU", "cpu": "all in CPU RAM", "unified": "unified memory"}


def placement_label(row: dict[str, Any]) -> str:
    """The row's placement by what it does: a hybrid that offloads nothing is "all on GPU";
    one that does names the first offloaded layer and the GB of experts in RAM."""
    placement = str(row.get("placement"))
    if placement == "gpu" and row.get("cpu_layers"):
        in_ram_gb = float((row.get("weights_gb") or {}).get("cpu", 0.0))
        return (
            f"{row.get('gpu_layers')} layers on GPU, the first {row['cpu_layers']} in CPU RAM "
            f"({in_ram_gb:,.1f} GB)"
        )
    if placement != "hybrid":
        return PLACEMENT_WORDS.get(placement, placement)
    in_ram_gb = float((row.get("weights_gb") or {}).get("cpu", 0.0))
    if in_ram_gb <= 0:
        return "all on GPU"
    layer = row.get("offload_from_layer")
    return f"hybrid: experts from layer {layer} on in CPU RAM ({in_ram_gb:,.1f} GB)"


# The placement that keeps routed experts in CPU RAM from the first MoE layer (llama.cpp's
# `-ot exps=CPU`): the API's "hybrid" with no `offload_from_layer`.
EXPERTS_IN_RAM = {"placement": "hybrid", "offload_from_layer": None}


def _is_moe(workload: dict[str, Any]) -> bool:
    try:
        return bool(workload_model(workload).is_moe)
    except EngineInputError:
        return False


def _row_hardware(row: dict[str, Any], parts: dict[int, Part]) -> dict[str, Any]:
    """The engine's hardware form of a row's parts, as a build page simulates them."""
    spec = spec_from_lines((parts[p["part_id"]].detail, p["quantity"]) for p in row["parts"])
    return dict(spec.any_hardware())


def experts_in_ram_rows(
    *, workload: dict[str, Any], rows: list[dict[str, Any]]
) -> list[dict[str, Any] | None]:
    """For each row that keeps a MoE model all on the GPU of a PC (a CPU to hold the
    experts), the figures with the routed experts forced into CPU RAM, as its build page
    shows them beside the headline (`{"refused": why}` where that does not run); None for
    the other rows. One engine run per such row: a fraction of a millisecond each."""
    offered = [
        row["placement_label"] == "all on GPU" and row.get("cpu_name") is not None for row in rows
    ]
    if not any(offered) or not _is_moe(workload):
        return [None] * len(rows)
    part_ids = {p["part_id"] for row in rows for p in row["parts"]}
    parts = part_detailed_map(part_ids=sorted(part_ids))
    forced = {**workload, **EXPERTS_IN_RAM}
    answers: list[dict[str, Any] | None] = []
    for row, offer in zip(rows, offered, strict=True):
        if not offer:
            answers.append(None)
            continue
        answers.append(_forced_figures(forced, _row_hardware(row, parts)))
    return answers


def _forced_figures(workload: dict[str, Any], hardware: dict[str, Any]) -> dict[str, Any]:
    try:
        engine = simulate(parse_request({"workload": workload, "hardware": hardware}))
    except EngineInputError as exc:
        return {"refused": exc.message}
    assert isinstance(engine, InferenceResult)
    return {"decode_tokens_per_s": float(engine.decode.tokens_per_s),
            "prefill_tokens_per_s": float(engine.prefill.tokens_per_s)}  # fmt: skip


# --- one build's serving result -------------------------------------------------------------
LOCATION_WORDS = {"gpu": "VRAM", "cpu": "CPU RAM", "unified": "unified memory"}
DISK = "disk (model file)"
CONTENT_WORDS = {
    "attention": "attention",
    "always_on_mlp": "dense MLPs, shared experts, routers",
    "routed_experts": "routed experts",
    "embeddings_and_head": "embeddings and LM head",
    "kv_cache": "KV cache",
}


def _engine_result(result: dict[str, Any]) -> InferenceResult:
    """The stored result's request run again by the engine (pure and quick): the objects
    the page's breakdowns are read from."""
    engine = simulate(
        parse_request({"workload": result["workload"], "hardware": result["hardware"]})
    )
    assert isinstance(engine, InferenceResult)
    return engine


def _row_words(result: dict[str, Any]) -> dict[str, Any]:
    return {"placement": result["placement"], "weights_gb": result["weights_gb"],
            "offload_from_layer": result["workload"].get("offload_from_layer"),
            "gpu_layers": result["workload"].get("gpu_layers"),
            "cpu_layers": result.get("cpu_layers", 0)}  # fmt: skip


def placement_chart(engine: InferenceResult) -> dict[str, Any]:
    """GB (GiB, as the engine) per location and kind, with each location's usable capacity;
    the disk holds the whole model file."""
    contents = placement_contents(engine.placement, engine.request.workload, engine.kv_cache_bytes)
    capacity = {d.location: d.capacity_bytes / GIB for d in engine.devices}
    locations = [LOCATION_WORDS[loc] for loc in contents]
    disk = {k: sum(c[k] for c in contents.values()) for k in CONTENT_KINDS if k != "kv_cache"}
    held = [*contents.values(), disk]
    datasets = [
        {"label": CONTENT_WORDS[kind], "gb": [round(c.get(kind, 0.0) / GIB, 3) for c in held]}
        for kind in CONTENT_KINDS
    ]
    rows = [
        {"location": LOCATION_WORDS[loc], "capacity_gb": capacity.get(loc),
         "total_gb": sum(c.values()) / GIB,
         "parts": [(CONTENT_WORDS[k], b / GIB) for k, b in c.items() if b > 0]}
        for loc, c in contents.items()
    ]  # fmt: skip
    rows.append({"location": DISK, "capacity_gb": None, "total_gb": sum(disk.values()) / GIB,
                 "parts": [(CONTENT_WORDS[k], b / GIB) for k, b in disk.items() if b]})  # fmt: skip
    return {"locations": [*locations, DISK], "datasets": datasets, "rows": rows,
            "capacity_gb": [capacity.get(loc) for loc in contents] + [None]}  # fmt: skip


def depth_chart(engine: InferenceResult) -> dict[str, Any]:
    """KV cache GB and decode/prefill tokens/s at each depth of the engine's sweep."""
    workload = engine.request.workload
    sweep = context_sweep(engine.request, sweep_depths(workload))
    points = [
        {"depth_tokens": p.depth_tokens, "kv_cache_gb": p.kv_cache_bytes / GIB,
         "decode_tokens_per_s": p.decode_tokens_per_s,
         "prefill_tokens_per_s": p.prefill_tokens_per_s,
         "is_context": p.depth_tokens == workload.context}
        for p in sweep.points
    ]  # fmt: skip
    return {"points": points, "kv_room_gb": sweep.kv_room_bytes / GIB,
            "context": workload.context, "prompt_tokens": workload.prompt_tokens,
            "kv_location": _kv_location_words(engine)}  # fmt: skip


def _kv_location_words(engine: InferenceResult) -> str:
    """Where the KV cache lives: under a layer split beside its layers, in both places."""
    placement = engine.placement
    if placement.cpu_layers:
        return f"{LOCATION_WORDS[placement.kv_location]} and {LOCATION_WORDS['cpu']}"
    return LOCATION_WORDS[placement.kv_location]


def batch_chart(engine: InferenceResult) -> dict[str, Any]:
    """Decode tokens/s (all requests, and each) with more requests decoding together at the
    workload's context."""
    points = [
        {"requests": p.requests, "kv_cache_gb": p.kv_cache_bytes / GIB,
         "decode_tokens_per_s": p.decode_tokens_per_s,
         "per_request_tokens_per_s": p.per_request_tokens_per_s}
        for p in batch_sweep(engine.request)
    ]  # fmt: skip
    return {"points": points, "context": engine.request.workload.context}


def decode_terms(engine: InferenceResult) -> list[dict[str, Any]]:
    """One decode step, place by place: the bytes read and the bandwidth they are read at
    (the runtime's fitted share of what the memory sustains in a streaming benchmark, or below
    it the per-SM cap of Little's law: streamed_bandwidth_efficiency), and the step's memory,
    arithmetic and per-layer times."""
    devices = {device.location: device for device in engine.devices}
    terms = []
    for step in engine.decode.locations:
        device = devices[step.location]
        constants = device.device_class
        share = streamed_bandwidth_efficiency(device)
        uncapped = fitted_bandwidth_efficiency(device)
        capped = share < uncapped
        terms.append(
            {"location": LOCATION_WORDS[step.location],
             "read_gb": (step.weight_bytes + step.kv_bytes) / 1e9,
             "peak_gbps": device.bandwidth_bps / 1e9,
             "sustained_gbps": device.bandwidth_bps * share / 1e9,
             "share": share, "fitted_share": constants.bandwidth_efficiency,
             "memory_share": device.bandwidth_share, "uncapped_share": uncapped,
             "capped": capped, "compute_units": device.compute_units,
             "unit_stream_gbps": constants.unit_stream_gbps,
             "memory_ms": step.memory_s * 1e3, "compute_ms": step.compute_s * 1e3,
             "overhead_ms": step.overhead_s * 1e3, "time_ms": step.time_s * 1e3}
        )  # fmt: skip
    return terms


# How the decode table names the step's terms outside any one location (DecodeStep).
SHARED_TERM_WORDS = {"link": "CPU–GPU link"}


def decode_shared_terms(engine: InferenceResult) -> list[dict[str, Any]]:
    """The decode step's terms outside any one location that it has (the CPU–GPU link of a
    hybrid, tensor parallelism's all-reduces, the network between machines), in ms, so the
    table's steps add up to the whole step."""
    return [
        {"name": SHARED_TERM_WORDS.get(name, name), "time_ms": seconds * 1e3}
        for name, seconds in engine.decode.shared_terms.items()
        if seconds > 0
    ]


def _experts_in_ram_offered(result: dict[str, Any], engine: InferenceResult) -> bool:
    """Whether the page offers the experts-in-RAM figure beside the result: a MoE model that
    the result keeps all on the GPU, on a machine with a CPU to hold the experts."""
    on_gpu = placement_label(_row_words(result)) == "all on GPU"
    moe = engine.placement.parts.moe_layers > 0
    return on_gpu and moe and result["hardware"].get("cpu") is not None


def serving_report(*, result: dict[str, Any]) -> dict[str, Any]:
    """One build's serving result for its page: the headline, the placement in words, and
    the engine's breakdowns."""
    engine = _engine_result(result)
    return {
        "result": result,
        "placement_words": placement_label(_row_words(result)),
        "error_band": result_error_band(result),
        "placement_chart": placement_chart(engine),
        "depth_chart": depth_chart(engine),
        "batch_chart": batch_chart(engine),
        "decode_terms": decode_terms(engine),
        "decode_shared_terms": decode_shared_terms(engine),
        "decode_step_ms": engine.decode.step_s * 1e3,
        "experts_in_ram_offered": _experts_in_ram_offered(result, engine),
        "placements_tried": _tried(result.get("placements_tried") or {}),
    }


# The placements a search tries, in words.
PLACEMENT_NAMES = {
    "gpu": "on the GPUs (the first layers in CPU RAM when they cannot hold all)",
    "hybrid": "hybrid (experts the GPU cannot hold in CPU RAM)",
    "cpu": "CPU only",
    "unified": "unified memory",
}


def _tried(tried: dict[str, float | str]) -> list[dict[str, Any]]:
    return [
        {"label": PLACEMENT_NAMES.get(name, name),
         "tokens_per_s": answer if isinstance(answer, int | float) else None,
         "reason": answer if isinstance(answer, str) else ""}
        for name, answer in tried.items()
    ]  # fmt: skip


def experts_in_ram_view(result: dict[str, Any]) -> dict[str, Any]:
    """The experts-in-RAM result's figures beside the headline's."""
    return {"decode_tokens_per_s": result["decode_tokens_per_s"],
            "prefill_tokens_per_s": result["prefill_tokens_per_s"],
            "ram_gb": result["weights_gb"].get("cpu", 0.0),
            "vram_gb": result["weights_gb"].get("gpu", 0.0),
            "bottleneck": result["bottleneck"]}  # fmt: skip

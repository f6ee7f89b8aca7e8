"""The serving page: which build serves a model fastest per dollar at a context length.
An inference ranking (issue 7): every candidate build, and whole Apple systems, in the
placement that decodes fastest on it, ranked by $ per (decode tokens/s)."""

from typing import Any
from uuid import UUID

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from frontend.catalog_selectors import part_slug_map
from frontend.forms import engine_error_add, with_defaults
from frontend.selectors import build_get, simulation_run_get
from frontend.services import build_simulate, ranking_request
from frontend.serving_forms import (
    SERVE_DEFAULTS,
    SERVE_SORTS,
    SIMULATE_DEFAULTS,
    ServeFilterForm,
    ServeSimulationForm,
    ServeWorkloadForm,
)
from frontend.serving_selectors import (
    EXPERTS_IN_RAM,
    experts_in_ram_view,
    serving_model_choices,
    serving_page,
    serving_report,
)
from frontend.views import (
    partial_template,
    parts_param,
    refused,
    run_progress_context,
    sort_links,
)
from simulator.engine import EngineInputError
from simulator.guards import SimulateBusyError, SimulateThrottledError, simulate_guard
from simulator.models import SimulationRun
from simulator.ranking import DEFAULT_INFER_SORT
from simulator.services.ranking_filters import RankingFilters
from simulator.services.rankings import BrokerUnavailableError
from simulator.services.runs import QueueFullError

TABLE_ROWS = 50
# Table columns in display order; each header sorts by its key (None: not sortable).
COLUMNS = (
    ("price", "Price (USD)"),
    ("decode_tokens_per_s", "Decode tokens/s"),
    ("usd_per_decode_tokens_per_s", "$ per decode tokens/s"),
    ("prefill_tokens_per_s", "Prefill tokens/s"),
    ("max_context", "Largest context (tokens)"),
)


# What each column of a serving ranking means, shown as its header's tooltip.
COLUMN_HINTS = {
    "price": "The build's price at the catalog's current prices, in US dollars",
    "decode_tokens_per_s": "Tokens generated per second for one request at the context asked, "
    "simulated; the ± figure is the typical error measured on public results of this class",
    "usd_per_decode_tokens_per_s": "Price divided by decode tokens per second: dollars paid "
    "for each token per second of speed (lower is better)",
    "prefill_tokens_per_s": "Prompt tokens processed per second (a 512-token prompt)",
    "max_context": "The longest context whose KV cache fits beside the weights, in tokens",
}


def _result(
    run: SimulationRun,
    budget: float | None,
    sort: str,
    filters: RankingFilters,
    links: dict[str, str],
) -> dict[str, Any]:
    progress = run_progress_context(run)
    if progress is not None:
        return progress
    page = serving_page(
        run=run,
        budget_usd=budget,
        sort=sort,
        limit=TABLE_ROWS,
        filters=filters,
    )
    return {"run": run, "ranking": page, "columns": COLUMNS, "sort_links": links,
            "column_hints": COLUMN_HINTS, "sort_label": dict(SERVE_SORTS)[sort]}  # fmt: skip


def _form(form_class: type[ServeWorkloadForm], data: dict[str, Any]) -> Any:
    """The form bound to `data`, its model among the choices if it is a stored custom one."""
    return form_class(data, model_choices=serving_model_choices(custom=data.get("model")))


def _view(form: ServeFilterForm) -> tuple[float | None, str, RankingFilters]:
    if not form.is_valid():
        return None, DEFAULT_INFER_SORT, RankingFilters()
    data = form.cleaned_data
    return data["budget"], data["sort"] or DEFAULT_INFER_SORT, RankingFilters.of_options(data)


@require_GET
@vary_on_headers("HX-Request")
def serve(request: HttpRequest) -> HttpResponse:
    form = _form(ServeFilterForm, with_defaults(request.GET, SERVE_DEFAULTS))
    context: dict[str, Any] = {"form": form, "query": request.GET.urlencode()}
    if form.is_valid():
        try:
            run = ranking_request(body={"workload": form.workload(), "ranking": {}})
            links = sort_links(request.GET, reverse("frontend:serve"), COLUMNS)
            context |= _result(run, *_view(form), links)
        except EngineInputError as exc:
            engine_error_add(form, exc)
        except (QueueFullError, BrokerUnavailableError) as exc:
            context["queue_full"] = str(exc)
    htmx = getattr(request, "htmx", None)
    partial = htmx and not htmx.history_restore_request
    template = "frontend/_serving.html" if partial else "frontend/serving.html"
    return render(request, template, context)


@require_GET
def serve_run(request: HttpRequest, run_id: UUID) -> HttpResponse:
    """An inference ranking's progress bar while it computes, its table when done."""
    run = simulation_run_get(run_id=run_id)
    form = _form(ServeFilterForm, with_defaults(request.GET, SERVE_DEFAULTS))
    links = sort_links(request.GET, reverse("frontend:serve"), COLUMNS)
    context = {"query": request.GET.urlencode(), **_result(run, *_view(form), links)}
    return render(request, "frontend/_serving_result.html", context)


# --- one build serving: a catalog build, a ranked candidate, or hardware of your own --------
def _serving_result(target: dict[str, Any], workload: dict[str, Any]) -> dict[str, Any]:
    """The build's serving report, and beside it the experts-in-RAM figure where the
    result keeps a MoE model all on the GPU (or why that placement does not run here)."""
    run = build_simulate(target=target, workload=workload, with_comparison=False).run
    assert run.result is not None
    report = serving_report(result=run.result)
    parts = (run.result.get("build") or {}).get("parts", [])
    report["part_slugs"] = part_slug_map(part_ids=[p["part_id"] for p in parts])
    if report["experts_in_ram_offered"]:
        forced = {**workload, **EXPERTS_IN_RAM}
        try:
            other = build_simulate(target=target, workload=forced, with_comparison=False).run
            assert other.result is not None
            report["experts_in_ram"] = experts_in_ram_view(other.result)
        except EngineInputError as exc:
            report["experts_in_ram_refused"] = exc.message
    return report


def _serving_page(
    request: HttpRequest, form: ServeWorkloadForm, target: Any, context: dict[str, Any]
) -> HttpResponse:
    """Validate, simulate `target()` (a body's hardware form) and render the page, or for
    htmx its report; an engine error lands on the field it names."""
    context["form"] = form
    if form.is_valid():
        try:
            with simulate_guard(request):
                context |= _serving_result(target(form), form.workload())
        except EngineInputError as exc:
            engine_error_add(form, exc)
        except (SimulateThrottledError, SimulateBusyError) as exc:
            return refused(request, exc)
    page = context.pop("page")
    template = partial_template(request, page, "frontend/_serving_report.html")
    return render(request, template, context)


BUILD_DEFAULTS = {k: v for k, v in SERVE_DEFAULTS.items() if k != "sort"}


@require_GET
@vary_on_headers("HX-Request")
def serve_build_detail(request: HttpRequest, slug: str) -> HttpResponse:
    build = build_get(slug=slug)
    form = _form(ServeWorkloadForm, with_defaults(request.GET, BUILD_DEFAULTS))
    context = {"build": build, "page": "frontend/serving_build.html",
               "action": reverse("frontend:serve-build", args=[slug])}  # fmt: skip
    return _serving_page(request, form, lambda _: {"build_id": build.pk}, context)


@require_GET
@vary_on_headers("HX-Request")
def serve_candidate_detail(request: HttpRequest) -> HttpResponse:
    """A ranked candidate (not stored) serving the workload its ranking row was ranked under."""
    form = _form(ServeWorkloadForm, with_defaults(request.GET, BUILD_DEFAULTS))
    parts = request.GET.get("parts", "")
    context = {"parts_query": parts, "page": "frontend/serving_build.html",
               "action": reverse("frontend:serve-candidate")}  # fmt: skip
    return _serving_page(request, form, lambda _: {"parts": parts_param(parts)}, context)


@require_GET
@vary_on_headers("HX-Request")
def serve_simulate(request: HttpRequest) -> HttpResponse:
    """Serving on hardware of your own, named from the device table."""
    form = _form(ServeSimulationForm, with_defaults(request.GET, SIMULATE_DEFAULTS))
    context = {"page": "frontend/serving_simulate.html",
               "action": reverse("frontend:simulate-serve"), "simulate": True}  # fmt: skip
    return _serving_page(request, form, lambda f: {"hardware": f.hardware()}, context)

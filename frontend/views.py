"""The pages. Each view validates its form, calls one service or selector, and renders a
page, or for htmx requests the partial that changes."""

from typing import Any
from urllib.parse import urlsplit
from uuid import UUID

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import render
from django.urls import Resolver404, resolve, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from catalog.models import PartKind
from catalog.selectors import build_total_usd, price_add_permitted
from frontend import charts
from frontend.catalog_selectors import (
    KIND_PLURALS,
    catalog_kind_table,
    part_engine_figures,
    part_get,
    part_price_view,
    part_slug_map,
    part_spec_list,
)
from frontend.custom_models import custom_model_store
from frontend.forms import (
    CUSTOM_DEFAULTS,
    TABLE_SORTS,
    WORKLOAD_DEFAULTS,
    BuildWorkloadForm,
    CompareForm,
    CustomModelForm,
    CustomRankingForm,
    CustomSimulationForm,
    PastedModelForm,
    RankingFilterForm,
    RankingViewForm,
    WorkloadForm,
    engine_error_add,
    with_defaults,
)
from frontend.selectors import (
    accuracy_page,
    build_choice_list,
    build_get,
    model_choice_list,
    ranking_page,
    simulation_run_get,
    training_modes_view,
)
from frontend.services import BuildRuns, build_simulate, ranking_request
from planner_site.api_errors import FieldNotFound
from simulator.engine import EngineInputError
from simulator.guards import (
    SimulateBusyError,
    SimulateThrottledError,
    simulate_admit,
    simulate_guard,
)
from simulator.models import RunStatus, SimulationRun
from simulator.ranking import DEFAULT_SORT
from simulator.services.accuracy import result_error_band
from simulator.services.ranking_filters import RankingFilters
from simulator.services.rankings import BrokerUnavailableError
from simulator.services.runs import QueueFullError

TABLE_ROWS = 50
# Table columns in display order; each header sorts by its key.
SORT_COLUMNS = (
    ("price", "Price (USD)"),
    ("tokens_per_s", "Tokens/s"),
    ("usd_per_tokens_per_s", "$ per tokens/s"),
    ("hours", "Hours for target"),
    ("bottleneck", "Bottleneck"),
)
# What each column of a training ranking means, shown as its header's tooltip.
COLUMN_HINTS = {
    "price": "The build's price at the catalog's current prices, in US dollars",
    "tokens_per_s": "Training tokens processed per second, simulated; the ± figure is the "
    "typical error measured on public results of this class of setup",
    "usd_per_tokens_per_s": "Price divided by training tokens per second: dollars paid for "
    "each token per second of speed (lower is better)",
    "hours": "Hours to train the token target at this speed",
    "bottleneck": "What limits the speed: compute, or the link the weights stream over "
    "(PCIe from RAM, or NVMe)",
}
HOME_DEFAULTS = {**WORKLOAD_DEFAULTS, "sort": DEFAULT_SORT}
# The ranking form shares the custom page with the simulation form: distinct element ids.
RANK_ID = "id_rank_%s"
RANKING_DEFAULTS = {**WORKLOAD_DEFAULTS, "gpu_count_max": 2, "budget_usd": 6000}


def partial_template(request: HttpRequest, page: str, partial: str) -> str:
    """The partial for htmx swaps; the whole page otherwise (history restores included)."""
    htmx = getattr(request, "htmx", None)
    return partial if htmx and not htmx.history_restore_request else page


def refused(request: HttpRequest, exc: SimulateThrottledError | SimulateBusyError) -> HttpResponse:
    """The simulator's limits, as the API answers them: 429 for a spent budget, 503 while
    every slot is busy, each with Retry-After."""
    status = 429 if isinstance(exc, SimulateThrottledError) else 503
    template = partial_template(request, "frontend/refused.html", "frontend/_refused.html")
    response = render(request, template, {"message": str(exc), "status": status}, status=status)
    response["Retry-After"] = str(exc.retry_after_s)
    return response


def _model_choices(data: dict[str, Any]) -> list[tuple[str, str]]:
    """The shipped models, and the stored custom model the data's `model` names, if any."""
    try:
        seq_len = int(data.get("seq_len", 1024))
    except (TypeError, ValueError):
        seq_len = 1024
    model = data.get("model")
    choices = model_choice_list(
        quant=str(data.get("quant", "")), seq_len=seq_len,
        custom=model if isinstance(model, str) else "",
    )  # fmt: skip
    return [(choice.slug, choice.label) for choice in choices]


def _workload_form(
    form_class: type[WorkloadForm], data: dict[str, Any], files: Any = None, **kw: Any
) -> Any:
    """The form bound to `data`. A config.json brought on it (pasted or uploaded, checked by
    the engine) is stored, and the form bound again with that model selected and the paste
    emptied, so the page names the model by its slug from then on."""
    form = form_class(data, files, model_choices=_model_choices(data), **kw)
    pasted = form.pasted() if isinstance(form, PastedModelForm) else None
    if pasted is None:
        return form
    stored = custom_model_store(pasted=pasted)
    data = {**data, "model": stored.slug, "model_name": "", "model_config": ""}
    return form_class(data, model_choices=_model_choices(data), **kw)


# --- home: rankings -----------------------------------------------------------------------
def sort_links(
    query: QueryDict, base: str, columns: tuple[tuple[str, str], ...] = SORT_COLUMNS
) -> dict[str, str]:
    """Each column's address: the current query with `sort` set to that column."""
    links = {}
    for key, _ in columns:
        params = query.copy()
        params["sort"] = key
        links[key] = f"{base}?{params.urlencode()}"
    return links


def run_progress_context(run: SimulationRun) -> dict[str, Any] | None:
    """What a result partial shows of a run not done yet (its progress, or that it failed);
    None once it is done."""
    if run.status == RunStatus.FAILED:
        return {"run": run, "failed": True}
    if run.status != RunStatus.DONE:
        return {"run": run}
    return None


def _ranking_result(
    run: SimulationRun,
    budget: float | None,
    sort: str,
    links: dict[str, str],
    filters: RankingFilters | None = None,
) -> dict[str, Any]:
    """The run's progress while it computes; its table, chart and sort links when done."""
    progress = run_progress_context(run)
    if progress is not None:
        return progress
    page = ranking_page(
        run=run,
        budget_usd=budget,
        sort=sort,
        limit=TABLE_ROWS,
        filters=filters,
    )
    return {"run": run, "ranking": page, "sort_columns": SORT_COLUMNS, "sort_links": links,
            "column_hints": COLUMN_HINTS,
            "sort_label": dict(TABLE_SORTS)[sort]}  # fmt: skip


@require_GET
@vary_on_headers("HX-Request")
def home(request: HttpRequest) -> HttpResponse:
    data = with_defaults(request.GET, HOME_DEFAULTS)
    form = _workload_form(RankingFilterForm, data)
    context: dict[str, Any] = {"form": form, "query": request.GET.urlencode()}
    if form.is_valid():
        try:
            run = ranking_request(body={"workload": form.workload(), "ranking": {}})
            links = sort_links(request.GET, reverse("frontend:home"))
            data = form.cleaned_data
            result = _ranking_result(
                run, data["budget"], data["sort"], links, RankingFilters.of_options(data)
            )
            context |= result | {"sort_target": "#rankings"}
        except EngineInputError as exc:
            engine_error_add(form, exc)
        except (QueueFullError, BrokerUnavailableError) as exc:
            context["queue_full"] = str(exc)
    template = partial_template(request, "frontend/home.html", "frontend/_rankings.html")
    return render(request, template, context)


@require_GET
def ranking_run(request: HttpRequest, run_id: UUID) -> HttpResponse:
    """A ranking run's progress bar while it computes, its table and chart when done."""
    run = simulation_run_get(run_id=run_id)
    form = RankingViewForm(request.GET)
    budget, sort, filters = None, DEFAULT_SORT, RankingFilters()
    if form.is_valid():
        budget, sort = form.cleaned_data["budget"], form.cleaned_data["sort"] or DEFAULT_SORT
        filters = RankingFilters.of_options(form.cleaned_data)
    links = sort_links(request.GET, reverse("frontend:ranking-run", args=[run.pk]))
    context = {"query": request.GET.urlencode(), "sort_target": "#ranking-result",
               **_ranking_result(run, budget, sort, links, filters)}  # fmt: skip
    return render(request, "frontend/_ranking_result.html", context)


# --- builds -----------------------------------------------------------------------------
@require_GET
def build_index(request: HttpRequest) -> HttpResponse:
    builds = [
        {"slug": slug, "name": name, "price_usd": build_total_usd(build=build_get(slug=slug))}
        for slug, name in build_choice_list()
    ]
    return render(request, "frontend/builds.html", {"builds": builds})


def _built_parts(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The catalog parts a result was simulated with (none for inline hardware)."""
    parts: list[dict[str, Any]] = (result.get("build") or {}).get("parts", [])
    return parts


def _report(runs: BuildRuns) -> dict[str, Any]:
    result = runs.run.result
    assert result is not None
    refined = runs.refined.result if runs.refined is not None else None
    comparison = runs.comparison.result if runs.comparison is not None else None
    return {
        "result": result,
        "headline": charts.headline(result),
        "memory": charts.memory_breakdown(result),
        "curve": charts.curve_chart(result),
        "curve_points": charts.curve_points(result),
        "steps": charts.step_chart(result),
        "timeline": charts.timeline_chart(refined) if refined is not None else None,
        "refined_best": refined["best"] if refined is not None else None,
        "modes": training_modes_view(
            result=result, comparison=comparison, refused=runs.comparison_refused
        ),
        "explanation": charts.explanation(result),
        "error_band": result_error_band(result),
        "part_slugs": part_slug_map(part_ids=[p["part_id"] for p in _built_parts(result)]),
    }


@require_GET
@vary_on_headers("HX-Request")
def build_detail(request: HttpRequest, slug: str) -> HttpResponse:
    build = build_get(slug=slug)
    form = _workload_form(BuildWorkloadForm, with_defaults(request.GET, WORKLOAD_DEFAULTS))
    context: dict[str, Any] = {"build": build, "form": form}
    if form.is_valid():
        try:
            with simulate_guard(request):
                runs = build_simulate(target={"build_id": build.pk}, workload=form.workload())
            context |= _report(runs)
        except EngineInputError as exc:
            engine_error_add(form, exc)
        except (SimulateThrottledError, SimulateBusyError) as exc:
            return refused(request, exc)
    template = partial_template(
        request, "frontend/build_detail.html", "frontend/_build_report.html"
    )
    return render(request, template, context)


def parts_param(value: str) -> list[dict[str, int]]:
    """`id:quantity,…` as the simulate service's part lines (EngineInputError if malformed)."""
    lines = []
    for item in filter(None, value.split(",")):
        part_id, _, quantity = item.partition(":")
        if not part_id.isdigit() or not (quantity or "1").isdigit():
            raise EngineInputError(field="parts", message=f"malformed part {item!r}")
        lines.append({"part_id": int(part_id), "quantity": int(quantity or "1")})
    return lines


@require_GET
@vary_on_headers("HX-Request")
def candidate_detail(request: HttpRequest) -> HttpResponse:
    """A ranked candidate build (not stored): the same report as a catalog build."""
    form = _workload_form(BuildWorkloadForm, with_defaults(request.GET, WORKLOAD_DEFAULTS))
    context: dict[str, Any] = {"form": form, "parts_query": request.GET.get("parts", "")}
    if form.is_valid():
        try:
            target = {"parts": parts_param(request.GET.get("parts", ""))}
            with simulate_guard(request):
                runs = build_simulate(target=target, workload=form.workload())
            context |= _report(runs)
        except EngineInputError as exc:
            engine_error_add(form, exc)
        except (SimulateThrottledError, SimulateBusyError) as exc:
            return refused(request, exc)
    template = partial_template(
        request, "frontend/build_detail.html", "frontend/_build_report.html"
    )
    return render(request, template, context)


@require_GET
@vary_on_headers("HX-Request")
def compare(request: HttpRequest) -> HttpResponse:
    data = with_defaults(request.GET, WORKLOAD_DEFAULTS)
    compared = "builds" in request.GET or "parts" in request.GET
    # Nothing asked yet: the form unbound, with its defaults and no errors.
    form = CompareForm(
        data if compared else None, initial=data, model_choices=_model_choices(data),
        build_choices=build_choice_list(),
    )  # fmt: skip
    context: dict[str, Any] = {"form": form, "compared": compared}
    if compared and form.is_valid():
        try:
            targets: list[dict[str, Any]] = [
                {"build_id": build_get(slug=slug).pk} for slug in form.cleaned_data["builds"]
            ]
            targets += [{"parts": parts_param(line)} for line in form.cleaned_data["parts"]]
            with simulate_guard(request):
                runs = [
                    build_simulate(target=target, workload=form.workload(),
                                   with_comparison=False).run
                    for target in targets
                ]  # fmt: skip
            context["comparison"] = charts.comparison([run.result or {} for run in runs])
            context["bands"] = [result_error_band(run.result or {}) for run in runs]
        except EngineInputError as exc:
            engine_error_add(form, exc)
        except FieldNotFound as exc:  # a candidate's part id the catalog does not have
            form.add_error(None, str(exc))
        except (SimulateThrottledError, SimulateBusyError) as exc:
            return refused(request, exc)
    template = partial_template(request, "frontend/compare.html", "frontend/_compare.html")
    return render(request, template, context)


# --- a model brought as a config.json ------------------------------------------------------
# The pages a brought model returns to, selected in their workload form.
MODEL_PAGES = frozenset({
    "home", "build-detail", "candidate", "compare", "simulate",
    "serve", "serve-build", "serve-candidate", "simulate-serve",
})  # fmt: skip


def _model_page(request: HttpRequest) -> tuple[str, QueryDict]:
    """The page a model was brought on, as its path and query: the browser's address as
    htmx reports it (the form's `next` may predate a filter change), else `next`, else the
    rankings. Only this site's workload pages."""
    hosts = {request.get_host()}
    for url in (request.headers.get("HX-Current-URL", ""), request.POST.get("next", "")):
        if not url or not url_has_allowed_host_and_scheme(url, allowed_hosts=hosts):
            continue
        parts = urlsplit(url)
        try:
            match = resolve(parts.path)
        except Resolver404:
            continue
        if match.namespace == "frontend" and match.url_name in MODEL_PAGES:
            return parts.path, QueryDict(parts.query, mutable=True)
    return reverse("frontend:home"), QueryDict(mutable=True)


@require_POST
def custom_model(request: HttpRequest) -> HttpResponse:
    """A config.json pasted or uploaded on a page whose form is a GET: checked by the engine,
    stored once, and that page again with the model selected, at an address that names it.
    An error is shown on its field (in place for htmx; on a page of its own otherwise)."""
    form = CustomModelForm(request.POST, request.FILES)
    pasted = form.pasted()
    if form.is_valid() and pasted is not None:
        try:
            simulate_admit(request)  # a write per anonymous request: the simulate budget
        except SimulateThrottledError as exc:
            return refused(request, exc)
        stored = custom_model_store(pasted=pasted)
        path, query = _model_page(request)
        query["model"] = stored.slug
        url = f"{path}?{query.urlencode()}"
        if getattr(request, "htmx", False):
            return HttpResponseClientRedirect(url)
        return HttpResponseRedirect(url, status=303)
    path, query = _model_page(request)
    context = {"model_form": form, "back": f"{path}?{query.urlencode()}" if query else path}
    if getattr(request, "htmx", False):  # htmx swaps 2xx answers only
        return render(request, "frontend/_custom_model.html", context)
    return render(request, "frontend/custom_model.html", context, status=400)


# --- custom simulation --------------------------------------------------------------------
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def simulate(request: HttpRequest) -> HttpResponse:
    raw = request.POST if request.method == "POST" else request.GET
    form = _workload_form(CustomSimulationForm, with_defaults(raw, CUSTOM_DEFAULTS), request.FILES)
    context: dict[str, Any] = {"form": form}
    if form.is_valid():
        try:
            target = {"hardware": form.hardware()}
            with simulate_guard(request):
                runs = build_simulate(target=target, workload=form.workload())
            context |= _report(runs)
        except EngineInputError as exc:
            engine_error_add(form, exc)
        except (SimulateThrottledError, SimulateBusyError) as exc:
            return refused(request, exc)
    context["ranking_form"] = CustomRankingForm(
        initial=RANKING_DEFAULTS, model_choices=_model_choices(RANKING_DEFAULTS), auto_id=RANK_ID
    )
    template = partial_template(request, "frontend/simulate.html", "frontend/_custom_result.html")
    return render(request, template, context)


@require_POST
def simulate_ranking(request: HttpRequest) -> HttpResponse:
    data = with_defaults(request.POST, RANKING_DEFAULTS)
    form = _workload_form(CustomRankingForm, data, auto_id=RANK_ID)
    context: dict[str, Any] = {"ranking_form": form}
    if form.is_valid():
        try:
            with simulate_guard(request):
                run = ranking_request(body=form.ranking_body())
            links = sort_links(QueryDict(), reverse("frontend:ranking-run", args=[run.pk]))
            context |= _ranking_result(run, None, DEFAULT_SORT, links)
            context["sort_target"] = "#ranking-result"
        except EngineInputError as exc:
            engine_error_add(form, exc)
        except (QueueFullError, BrokerUnavailableError) as exc:
            context["queue_full"] = str(exc)
        except (SimulateThrottledError, SimulateBusyError) as exc:
            return refused(request, exc)
    return render(request, "frontend/_custom_ranking.html", context)


# --- catalog and API --------------------------------------------------------------------
@require_GET
def catalog(request: HttpRequest) -> HttpResponse:
    kind = request.GET.get("kind", PartKind.GPU)
    if kind not in PartKind.values:
        raise Http404(f"No part kind {kind!r}.")
    context = {"kinds": PartKind.choices, "kind": kind, "kind_plural": KIND_PLURALS[kind],
               "table": catalog_kind_table(kind=kind)}  # fmt: skip
    return render(request, "frontend/catalog.html", context)


@require_GET
def part_detail(request: HttpRequest, slug: str) -> HttpResponse:
    part = part_get(slug=slug)
    context = {"part": part, "specs": part_spec_list(part=part), **part_price_view(part=part),
               "engine_figures": part_engine_figures(part=part),
               "can_add_price": price_add_permitted(user=request.user)}  # fmt: skip
    return render(request, "frontend/part_detail.html", context)


@require_GET
def api_guide(request: HttpRequest) -> HttpResponse:
    return render(request, "frontend/api.html")


# --- accuracy ---------------------------------------------------------------------------
@require_GET
def accuracy(request: HttpRequest) -> HttpResponse:
    """Predictions against published measurements: scatter, per-category errors, rows."""
    page = accuracy_page()
    context = {**page, "chart": charts.accuracy_chart(page["rows"])}
    return render(request, "frontend/accuracy.html", context)

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

from frontend.forms import engine_error_add, with_defaults
from frontend.selectors import simulation_run_get
from frontend.services import ranking_request
from frontend.serving_forms import SERVE_DEFAULTS, SERVE_SORTS, ServeFilterForm
from frontend.serving_selectors import serving_page
from frontend.views import price_options, run_progress_context, sort_links
from simulator.engine import EngineInputError
from simulator.models import SimulationRun
from simulator.ranking import DEFAULT_INFER_SORT
from simulator.services.ranking_views import PriceOptions
from simulator.services.rankings import BrokerUnavailableError
from simulator.services.runs import QueueFullError

TABLE_ROWS = 50
# Table columns in display order; each header sorts by its key (None: not sortable).
COLUMNS = (
    ("price", "Price"),
    ("decode_tokens_per_s", "Decode tokens/s"),
    ("usd_per_decode_tokens_per_s", "$ per decode tokens/s"),
    ("prefill_tokens_per_s", "Prefill tokens/s"),
    ("max_context", "Largest context (tokens)"),
)


def _result(
    run: SimulationRun,
    budget: float | None,
    sort: str,
    prices: PriceOptions,
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
        prices=prices,
    )
    return {"run": run, "ranking": page, "columns": COLUMNS, "sort_links": links,
            "sort_label": dict(SERVE_SORTS)[sort]}  # fmt: skip


def _view(form: ServeFilterForm) -> tuple[float | None, str, PriceOptions]:
    if not form.is_valid():
        return None, DEFAULT_INFER_SORT, PriceOptions()
    data = form.cleaned_data
    return data["budget"], data["sort"] or DEFAULT_INFER_SORT, price_options(data)


@require_GET
@vary_on_headers("HX-Request")
def serve(request: HttpRequest) -> HttpResponse:
    form = ServeFilterForm(with_defaults(request.GET, SERVE_DEFAULTS))
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
    form = ServeFilterForm(with_defaults(request.GET, SERVE_DEFAULTS))
    links = sort_links(request.GET, reverse("frontend:serve"), COLUMNS)
    context = {"query": request.GET.urlencode(), **_result(run, *_view(form), links)}
    return render(request, "frontend/_serving_result.html", context)

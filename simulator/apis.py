"""REST endpoints of the simulator: thin views that validate, call a service, serialize."""

import hashlib
from typing import Any
from uuid import UUID

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from catalog.selectors import catalog_price_epoch, exchange_rate_epoch
from planner_site import idempotency
from simulator.concurrency import SimulateBusyError, simulate_slot
from simulator.engine import EngineInputError, json_path
from simulator.guards import simulate_client, simulate_cpu_limit
from simulator.models import RunKind, RunStatus, SimulationRun
from simulator.openapi import SIMULATE_REQUEST
from simulator.recent_answers import RecentAnswers
from simulator.serializers import (
    ErrorSerializer,
    RankingQuerySerializer,
    SimulationRunOutputSerializer,
)
from simulator.services.accuracy import ranking_rows_banded, simulation_result_banded
from simulator.services.ranking_filters import RankingFilters
from simulator.services.ranking_views import ranking_result_view, ranking_view
from simulator.services.rankings import BrokerUnavailableError, ranking_create
from simulator.services.runs import QueueFullError
from simulator.services.simulate import (
    simulation_request_submit,
    simulation_request_submit_once,
)
from simulator.throttles import SimulateAnonThrottle

# Views of finished rankings, by run id and price epoch (a price change is a new key): an
# hour in the shared cache.
RANKING_VIEW_CACHE_S = 3600
# Each web process keeps its latest GET /api/rankings answers for a quarter of a second, so a
# popular ranking is served without PostgreSQL or Redis; an older answer is served only while
# one thread refreshes it, and never once half a second old. A price change shows within a
# second: that half, plus one read at the new prices (0.1 s; 0.5 s on a loaded machine).
RANKINGS_RECENT_S = 0.25
RANKINGS_STALE_S = 0.5
_recent_answers = RecentAnswers(fresh_s=RANKINGS_RECENT_S, stale_s=RANKINGS_STALE_S)


def engine_error_response(exc: EngineInputError) -> Response:
    """The engine's error as a 400 naming the request's JSON path of the bad value."""
    field = json_path(exc.field)
    return Response(
        {"detail": f"Invalid input: {field}: {exc.message}", "errors": {field: exc.message}},
        status=status.HTTP_400_BAD_REQUEST,
    )


class SimulateApi(APIView):
    """Single builds answer 200 with the full result; rankings answer 202 with the run."""

    permission_classes = (AllowAny,)
    throttle_classes = (SimulateAnonThrottle,)

    @extend_schema(
        operation_id="simulate",
        request={"application/json": SIMULATE_REQUEST},
        parameters=[idempotency.OPENAPI_PARAMETER],
        responses={
            200: SimulationRunOutputSerializer,
            202: SimulationRunOutputSerializer,
            400: ErrorSerializer,
            404: ErrorSerializer,
            413: ErrorSerializer,
            422: ErrorSerializer,
            429: ErrorSerializer,
            503: ErrorSerializer,
        },
    )
    def post(self, request: Request) -> Response:
        key = idempotency.idempotency_key(request)
        try:
            with simulate_slot(), simulate_cpu_limit(request):
                if key is None:
                    run = simulation_request_submit(body=request.data)
                else:
                    run = simulation_request_submit_once(
                        key=key, client=simulate_client(request), body=request.data,
                        submit=lambda: simulation_request_submit(body=request.data),
                    )  # fmt: skip
        except idempotency.IdempotencyKeyReusedError as reused:
            return Response({"detail": str(reused)}, status=status.HTTP_422_UNPROCESSABLE_ENTITY)
        except SimulateBusyError as exc:
            return Response(
                {"detail": str(exc)},
                status=status.HTTP_503_SERVICE_UNAVAILABLE,
                headers={"Retry-After": str(exc.retry_after_s)},
            )
        except EngineInputError as exc:
            return engine_error_response(exc)
        except QueueFullError as exc:
            return queue_full_response(exc)
        except BrokerUnavailableError as exc:
            return broker_unavailable_response(exc)
        data = run_output(run, request)
        if run.kind == RunKind.SINGLE:
            return Response(data, status=status.HTTP_200_OK)
        return Response(data, status=status.HTTP_202_ACCEPTED, headers={"Location": data["url"]})


def run_output(run: SimulationRun, request: Request) -> dict[str, Any]:
    """A run as the API shows it: its result's speeds carry their error bands; a finished
    ranking's rows are priced now, from the current prices of their parts."""
    data = dict(SimulationRunOutputSerializer(run, context={"request": request}).data)
    if run.kind == RunKind.RANKING and run.status == RunStatus.DONE:
        data["result"] = ranking_result_view(run=run)
        data["prices_observed_on"] = data["result"]["prices_observed_on"]
    data["result"] = simulation_result_banded(data["result"])
    return data


def queue_full_response(exc: QueueFullError) -> Response:
    return Response(
        {"detail": str(exc)},
        # 429, not 503: the service is up, this client should come back later.
        status=status.HTTP_429_TOO_MANY_REQUESTS,
        headers={"Retry-After": str(exc.retry_after_s)},
    )


def broker_unavailable_response(exc: BrokerUnavailableError) -> Response:
    return Response(
        {"detail": str(exc)},
        status=status.HTTP_503_SERVICE_UNAVAILABLE,
        headers={"Retry-After": str(exc.retry_after_s)},
    )


def field_errors_response(errors: dict[str, Any]) -> Response:
    messages = {field: " ".join(str(m) for m in msgs) for field, msgs in errors.items()}
    detail = "; ".join(f"{field}: {message}" for field, message in messages.items())
    return Response(
        {"detail": f"Invalid input: {detail}", "errors": messages},
        status=status.HTTP_400_BAD_REQUEST,
    )


class RankingListApi(APIView):
    """Ranked builds for a workload at the current prices. Kept precomputed for the default
    workloads; any other workload is queued and answered 202 with its run until done."""

    permission_classes = (AllowAny,)
    # The query parameters that make up each kind's workload.
    workload_keys = {
        "train": ("model", "quant", "seq_len", "tokens", "mode"),
        "infer": ("model", "quant", "context", "placement"),
    }

    @extend_schema(
        operation_id="rankings_list",
        parameters=[RankingQuerySerializer],
        responses={
            200: OpenApiTypes.OBJECT,
            202: SimulationRunOutputSerializer,
            400: ErrorSerializer,
        },
    )
    def get(self, request: Request) -> HttpResponseBase:
        # Hashed: any client's URL, however long, is a short key.
        recent_key = hashlib.sha256(request.build_absolute_uri().encode()).hexdigest()
        cached = _recent_answers.get(recent_key)
        if cached is not None:
            return HttpResponse(cached, content_type="application/json")
        try:
            response = self._answer(request)
        finally:
            _recent_answers.done(recent_key)
        if response.status_code == status.HTTP_200_OK and isinstance(response, HttpResponse):
            _recent_answers.put(recent_key, response.content)
        else:
            _recent_answers.drop(recent_key)
        return response

    def _answer(self, request: Request) -> HttpResponseBase:
        query = RankingQuerySerializer(data=request.query_params)
        if not query.is_valid():
            return field_errors_response(query.errors)
        q = query.validated_data
        keys = self.workload_keys[q["kind"]]
        workload = {"kind": q["kind"], **{k: q[k] for k in keys}}
        try:
            run = ranking_create(body={"workload": workload})
        except EngineInputError as exc:
            return engine_error_response(exc)
        except QueueFullError as exc:
            return queue_full_response(exc)
        except BrokerUnavailableError as exc:
            return broker_unavailable_response(exc)
        serializer = SimulationRunOutputSerializer(run, context={"request": request})
        if run.status != RunStatus.DONE:
            return Response(serializer.data, status=status.HTTP_202_ACCEPTED)
        answer = _ranking_answer(run, run_url=serializer.get_url(run), query=q)
        return HttpResponse(answer, content_type="application/json")


def _ranking_answer(run: SimulationRun, *, run_url: str, query: dict[str, Any]) -> bytes:
    """The JSON of one view of a finished ranking at the current prices. A finished run
    never changes and its prices are read now, so its views are kept by run id and price
    epoch (read before the prices: a change in between only makes the entry newer),
    shared by the web processes."""
    # Rates convert foreign prices, and a price turns stale as days pass (at the configured
    # age): all of them key the view.
    price_epoch = (
        f"{catalog_price_epoch()}:{exchange_rate_epoch()}:{timezone.localdate()}"
        f":{settings.PRICE_STALE_AFTER_DAYS}"
    )
    filters = RankingFilters.of_options(query)
    view_params = (
        f"{price_epoch}:{query.get('budget')}:{query['sort']}:{query['limit']}:{filters.digest()}"
    )
    # Hashed: spelled out the key passes the 250 characters every cache backend accepts.
    view_key = f"ranking-view:{run.pk}:{hashlib.sha256(view_params.encode()).hexdigest()}"
    answer: bytes | None = cache.get(view_key)
    if answer is None:
        view = ranking_view(
            run=run,
            budget_usd=query.get("budget"),
            sort=query["sort"],
            limit=query["limit"],
            filters=filters,
        )
        view["rows"] = ranking_rows_banded(view["rows"], workload=view["workload"])
        answer = JSONRenderer().render({"run_url": run_url, **view})
        cache.set(view_key, answer, RANKING_VIEW_CACHE_S)
    return answer


class SimulationRunDetailApi(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(
        operation_id="simulation_retrieve",
        responses={200: SimulationRunOutputSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, run_id: UUID) -> Response:
        run = get_object_or_404(SimulationRun, pk=run_id)
        return Response(run_output(run, request))

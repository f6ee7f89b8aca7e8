"""REST endpoints. Reads are public (parts, price history, builds); posting a price
observation is for staff, authenticated by token (staff scripts) or session."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError as DjangoValidationError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import generics, serializers, status, viewsets
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import SAFE_METHODS, AllowAny, BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from catalog import filters
from catalog.models import (
    Build,
    Case,
    Condition,
    Cpu,
    Currency,
    Gpu,
    Motherboard,
    NvmeCard,
    NvmeDrive,
    Part,
    PriceChangeVia,
    PriceObservation,
    Psu,
    RamKit,
    Region,
    System,
)
from catalog.selectors import (
    PRICE_ADD_PERMISSION,
    BuildIncompatibleError,
    build_check,
    build_hardware,
    build_list,
    build_total_usd,
    current_prices_usd,
    part_detail_list,
    part_list,
    part_price_history,
    price_change_latest_id,
    price_stale,
    price_valid_list,
)
from catalog.services import (
    StalePriceEdit,
    price_observation_create,
    price_observation_create_once,
)
from catalog.spec import HardwareDict, SystemHardwareDict
from planner_site import idempotency
from planner_site.api_serializers import StrictInputSerializer

PART_FIELDS = ("slug", "name", "kind", "manufacturer", "source", "notes", "current_price_usd")


class StaffWritesPublicReads(BasePermission):
    """Reads are public. A write needs what the admin needs for the same change: a staff
    account holding the view's `write_permission` (superusers hold every permission)."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        if request.method in SAFE_METHODS:
            return True
        user = request.user
        if not (user and user.is_authenticated and user.is_staff):
            return False
        permission = getattr(view, "write_permission", None)  # no stated permission: no write
        return permission is not None and bool(user.has_perm(permission))


# --- parts ------------------------------------------------------------------------------
class PartOutputSerializer(serializers.ModelSerializer[Part]):
    current_price_usd = serializers.SerializerMethodField()

    @extend_schema_field(serializers.DecimalField(max_digits=10, decimal_places=2, allow_null=True))
    def get_current_price_usd(self, part: Part) -> str | None:
        """The part's current price in US dollars (`part_current_price_map`, the price its
        page shows and its ranked builds are priced at); the map is read once a request."""
        prices = self.context.get("current_prices_usd")
        if prices is None:
            prices = self.context["current_prices_usd"] = current_prices_usd()
        price = prices.get(part.pk)
        return None if price is None else f"{price:.2f}"

    class Meta:
        model = Part
        fields = PART_FIELDS


def _detail_serializer(part_model: type[Part]) -> type[serializers.ModelSerializer[Any]]:
    local = [f.name for f in part_model._meta.local_fields if f.name != "part_ptr"]
    meta = type("Meta", (), {"model": part_model, "fields": (*PART_FIELDS, *local)})
    name = f"{part_model.__name__}OutputSerializer"
    return type(name, (PartOutputSerializer,), {"Meta": meta})


class PartListApi(generics.ListAPIView[Part]):
    """Every part, with its current price (USD); filter by kind, name, manufacturer."""

    permission_classes = (AllowAny,)
    serializer_class = PartOutputSerializer
    filterset_class = filters.PartFilter

    def get_queryset(self) -> Any:
        return part_list()


def _kind_viewset(
    part_model: type[Part], filterset: type[Any]
) -> type[viewsets.ReadOnlyModelViewSet[Any]]:
    attrs = {
        "permission_classes": (AllowAny,),
        "serializer_class": _detail_serializer(part_model),
        "filterset_class": filterset,
        "lookup_field": "slug",
        "queryset": part_detail_list(model=part_model),
        "__doc__": f"{part_model._meta.verbose_name_plural} with specs and current price.",
    }
    return type(f"{part_model.__name__}ViewSet", (viewsets.ReadOnlyModelViewSet,), attrs)


KIND_VIEWSETS = {
    "gpus": _kind_viewset(Gpu, filters.GpuFilter),
    "cpus": _kind_viewset(Cpu, filters.CpuFilter),
    "motherboards": _kind_viewset(Motherboard, filters.MotherboardFilter),
    "nvme-drives": _kind_viewset(NvmeDrive, filters.NvmeDriveFilter),
    "nvme-cards": _kind_viewset(NvmeCard, filters.NvmeCardFilter),
    "ram-kits": _kind_viewset(RamKit, filters.RamKitFilter),
    "psus": _kind_viewset(Psu, filters.PsuFilter),
    "cases": _kind_viewset(Case, filters.CaseFilter),
    "systems": _kind_viewset(System, filters.SystemFilter),
}


# --- prices -----------------------------------------------------------------------------
class PriceOutputSerializer(serializers.ModelSerializer[PriceObservation]):
    part: serializers.SlugRelatedField[Part] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True
    )

    class Meta:
        model = PriceObservation
        fields = (
            "id", "part", "amount", "currency", "condition", "region", "vendor", "source_url",
            "observed_on", "stale", "withdrawn", "withdrawn_reason",
        )  # fmt: skip

    stale = serializers.SerializerMethodField(
        help_text="observed longer ago than PRICE_STALE_AFTER_DAYS"
    )

    def get_stale(self, observation: PriceObservation) -> bool:
        return price_stale(observed_on=observation.observed_on)


class PriceInputSerializer(StrictInputSerializer):
    part: serializers.SlugRelatedField[Part] = serializers.SlugRelatedField(
        slug_field="slug", queryset=Part.objects.all()
    )
    amount = serializers.DecimalField(max_digits=10, decimal_places=2)
    currency = serializers.ChoiceField(choices=Currency.choices, default=Currency.USD)
    condition = serializers.ChoiceField(choices=Condition.choices, default=Condition.NEW)
    region = serializers.ChoiceField(choices=Region.choices, default=Region.US)
    vendor = serializers.CharField(max_length=120)
    source_url = serializers.CharField(max_length=500, required=False, default="")
    observed_on = serializers.DateField()
    seen_price_change_id = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=2**62,
        help_text=(
            "Optimistic concurrency: the newest price-change id you read (the "
            "X-Price-Change-Id header of GET /api/prices). If the part's current price "
            "changed since, the post is refused with 409 instead of replacing a price you "
            "never saw."
        ),
    )


class PartPriceHistoryApi(generics.ListAPIView[PriceObservation]):
    """Every price observation of one part, newest first (withdrawn ones included)."""

    permission_classes = (AllowAny,)
    serializer_class = PriceOutputSerializer
    filterset_class = filters.PriceObservationFilter
    queryset = PriceObservation.objects.none()  # for the schema; get_queryset answers

    def get_queryset(self) -> Any:
        if getattr(self, "swagger_fake_view", False):
            return self.queryset
        part = get_object_or_404(Part, slug=self.kwargs["slug"])
        return part_price_history(part=part).select_related("part")


class PriceListApi(generics.ListAPIView[PriceObservation]):
    """GET: valid price observations, filterable. POST (staff, token): add one."""

    authentication_classes = (TokenAuthentication, SessionAuthentication)
    permission_classes = (StaffWritesPublicReads,)
    write_permission = PRICE_ADD_PERMISSION  # the admin's "add price observation"
    serializer_class = PriceOutputSerializer
    filterset_class = filters.PriceObservationFilter

    def get_queryset(self) -> Any:
        return price_valid_list().select_related("part")

    @extend_schema(
        request=PriceInputSerializer,
        parameters=[idempotency.OPENAPI_PARAMETER],
        responses={
            201: PriceOutputSerializer,
            400: OpenApiResponse(description="invalid observation; the reasons per field"),
            401: OpenApiResponse(description="no credentials"),
            403: OpenApiResponse(description="not staff"),
            409: OpenApiResponse(
                description="stale: the part's current price changed after seen_price_change_id"
            ),
            422: OpenApiResponse(description="the Idempotency-Key came before with another body"),
        },
    )
    def post(self, request: Request) -> Response:
        data = PriceInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        key = idempotency.idempotency_key(request)
        try:
            if key is not None:
                assert isinstance(request.user, User)  # StaffWritesPublicReads let it in
                status_code, answer = price_observation_create_once(
                    key=key, user=request.user, body=request.data,
                    respond=lambda o: dict(PriceOutputSerializer(o).data),
                    **data.validated_data, via=PriceChangeVia.API,
                )  # fmt: skip
                return Response(answer, status=status_code)
            observation = price_observation_create(
                **data.validated_data, user=request.user, via=PriceChangeVia.API
            )
        except idempotency.IdempotencyKeyReusedError as reused:
            return Response({"detail": str(reused)}, status=status.HTTP_422_UNPROCESSABLE_ENTITY)
        except DjangoValidationError as error:
            raise ValidationError(error.message_dict) from error
        except StalePriceEdit as stale:
            new = stale.latest.new_amount_usd
            body = {
                "detail": str(stale),
                "seen_price_change_id": stale.seen_price_change_id,
                "price_change_id": stale.latest.pk,
                # A decimal string, as current_price_usd is everywhere else in the API.
                "current_price_usd": None if new is None else f"{new:.2f}",
            }
            return Response(body, status=status.HTTP_409_CONFLICT)
        return Response(PriceOutputSerializer(observation).data, status=status.HTTP_201_CREATED)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # The newest price-change id rides in a header, so a script can read prices and
        # post with `seen_price_change_id` without a second request.
        response = super().list(request, *args, **kwargs)
        response["X-Price-Change-Id"] = str(price_change_latest_id())
        return response


# --- builds -----------------------------------------------------------------------------
class BuildLineSerializer(serializers.Serializer[Any]):
    part = serializers.CharField(source="part.slug")
    name = serializers.CharField(source="part.name")
    kind = serializers.CharField(source="part.kind")
    quantity = serializers.IntegerField()
    quoted_unit_usd = serializers.DecimalField(max_digits=10, decimal_places=2, allow_null=True)


class BuildOutputSerializer(serializers.ModelSerializer[Build]):
    lines = BuildLineSerializer(many=True)

    class Meta:
        model = Build
        fields: tuple[str, ...] = ("slug", "name", "origin", "description", "source", "lines")


class BuildDetailOutputSerializer(BuildOutputSerializer):
    total_usd = serializers.SerializerMethodField()
    quoted_total_usd = serializers.SerializerMethodField()
    problems = serializers.SerializerMethodField()
    hardware = serializers.SerializerMethodField()

    class Meta(BuildOutputSerializer.Meta):
        fields = (*BuildOutputSerializer.Meta.fields, "total_usd", "quoted_total_usd", "problems",
                  "hardware")  # fmt: skip

    def get_total_usd(self, build: Build) -> str | None:
        total = build_total_usd(build=build)
        return None if total is None else str(total)

    def get_quoted_total_usd(self, build: Build) -> str | None:
        total = build_total_usd(build=build, quoted=True)
        return None if total is None else str(total)

    def get_problems(self, build: Build) -> list[dict[str, str]]:
        return [problem.as_dict() for problem in build_check(build=build)]

    def get_hardware(self, build: Build) -> HardwareDict | SystemHardwareDict | None:
        try:
            return build_hardware(build=build)
        except BuildIncompatibleError:
            return None


class BuildViewSet(viewsets.ReadOnlyModelViewSet[Build]):
    """Named builds (seed builds A-D, generated candidates, user builds)."""

    permission_classes = (AllowAny,)
    lookup_field = "slug"
    filterset_fields = ("origin",)

    def get_queryset(self) -> Any:
        return build_list()

    def get_serializer_class(self) -> Any:
        return BuildDetailOutputSerializer if self.action == "retrieve" else BuildOutputSerializer

"""GET /api/accuracy (public) and POST /api/measurements (signed-in users): thin views over
simulator.services.accuracy and simulator.services.measurements."""

from __future__ import annotations

import json
import math
from typing import Any

from django.core.validators import URLValidator
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from planner_site.api_serializers import StrictInputSerializer
from simulator.models import Measurement
from simulator.serializers import ErrorSerializer
from simulator.services.accuracy import accuracy_view_get
from simulator.services.measurements import corpus_categories, measurement_submit

# The figures a submission may claim (tokens/s or tokens): far beyond any machine's at both
# ends (the corpus's slowest row is 0.06 tok/s); a denormal such as 5e-324 would make every
# ratio to it infinite once the row is accepted.
MIN_VALUE = 1e-3
MAX_VALUE = 1e7
MAX_JSON_CHARS = 4000
UNITS = ("tok/s", "tokens")


class CategoryStatsSerializer(serializers.Serializer[Any]):
    category = serializers.CharField()
    modeled = serializers.IntegerField(help_text="rows predicted")
    not_modeled = serializers.IntegerField(help_text="rows listed with the reason")
    median_abs_error = serializers.FloatField(
        allow_null=True, help_text="median |predicted / measured − 1| of the modeled rows"
    )
    worst_abs_error = serializers.FloatField(allow_null=True)
    worst_row_id = serializers.CharField(allow_null=True)
    signed_error_low = serializers.FloatField(
        allow_null=True, help_text="10th percentile of predicted / measured − 1"
    )
    signed_error_high = serializers.FloatField(
        allow_null=True, help_text="90th percentile of predicted / measured − 1"
    )


class RuntimeStatsSerializer(CategoryStatsSerializer):
    runtime = serializers.CharField(source="category")
    category = None  # type: ignore[assignment]


class TargetsSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    median_abs_error = serializers.FloatField()
    category_median_abs_error = serializers.FloatField()
    category_min_rows = serializers.IntegerField()
    worst_ratio = serializers.FloatField()
    modeled_share = serializers.FloatField()


class ReportSerializer(serializers.Serializer[Any]):
    """One report: overall figures, targets and misses, per category and per runtime."""

    median_abs_error = serializers.FloatField(allow_null=True)
    worst_ratio = serializers.FloatField(
        allow_null=True, help_text="max(predicted/measured, measured/predicted) over modeled rows"
    )
    modeled_share = serializers.FloatField(allow_null=True, help_text="modeled rows / all rows")
    targets = TargetsSerializer()
    targets_met = serializers.BooleanField()
    misses = serializers.ListField(child=serializers.CharField())
    categories = CategoryStatsSerializer(many=True)
    runtimes = RuntimeStatsSerializer(many=True)


class AccuracyRowSerializer(serializers.Serializer[Measurement]):
    id = serializers.CharField(source="row_id")
    category = serializers.CharField()
    origin = serializers.CharField()
    engine = serializers.CharField()
    hardware = serializers.JSONField()
    model = serializers.CharField()
    quant = serializers.CharField()
    workload = serializers.JSONField()
    metric = serializers.CharField()
    measured = serializers.FloatField(source="value")
    predicted = serializers.FloatField(allow_null=True)
    signed_error = serializers.FloatField(
        allow_null=True, help_text="predicted / measured − 1; null when not modeled"
    )
    cv_predicted = serializers.FloatField(
        allow_null=True, help_text="predicted with constants fitted without the row's source"
    )
    cv_signed_error = serializers.FloatField(
        allow_null=True, help_text="cv_predicted / measured − 1; null when not modeled"
    )
    runtime = serializers.CharField()
    unit = serializers.CharField()
    modeled = serializers.BooleanField()
    reason = serializers.CharField(help_text="how the row was predicted, or why it was not")
    source_url = serializers.CharField()


class AccuracyOutputSerializer(serializers.Serializer[Any]):
    corpus_title = serializers.CharField(source="title")
    corpus_assembled = serializers.CharField(source="assembled", help_text="ISO date")
    # The headline: cross-validated (each row predicted without its source's rows in the fit).
    median_abs_error = serializers.FloatField(source="report.median_abs_error", allow_null=True)
    worst_ratio = serializers.FloatField(
        source="report.worst_ratio",
        allow_null=True,
        help_text="max(predicted/measured, measured/predicted) over modeled rows",
    )
    modeled_share = serializers.FloatField(source="report.modeled_share", allow_null=True)
    targets = TargetsSerializer(source="report.targets")
    targets_met = serializers.BooleanField(source="report.targets_met")
    misses = serializers.ListField(child=serializers.CharField(), source="report.misses")
    categories = CategoryStatsSerializer(many=True)
    runtimes = RuntimeStatsSerializer(many=True, source="report.runtimes")
    in_sample = ReportSerializer(
        help_text="the same rows predicted with the constants fitted on all of them"
    )
    holdout = ReportSerializer(
        help_text="the shipped constants on public rows gathered after the fit and never "
        "fitted (data/measurements/holdout.json; their rows: manage.py accuracy --corpus)"
    )
    holdout_rows = serializers.IntegerField(help_text="hold-out rows, modeled or not")
    rows = AccuracyRowSerializer(many=True)


class AccuracyApi(APIView):
    """Predictions against published measurements: overall and per-category error, and
    every accepted row with its source."""

    permission_classes = (AllowAny,)

    @extend_schema(operation_id="accuracy_retrieve", responses={200: AccuracyOutputSerializer})
    def get(self, request: Request) -> Response:
        return Response(AccuracyOutputSerializer(accuracy_view_get()).data)


def _json_object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict) or not value:
        raise serializers.ValidationError("must be a non-empty JSON object")
    if len(json.dumps(value)) > MAX_JSON_CHARS:
        raise serializers.ValidationError(f"must be at most {MAX_JSON_CHARS} characters as JSON")
    return value


class MeasurementInputSerializer(StrictInputSerializer):
    category = serializers.ChoiceField(choices=())
    engine = serializers.CharField(max_length=200, help_text="software and version you ran")
    hardware = serializers.JSONField(help_text='e.g. {"gpu": "RTX 4090 24GB", "gpu_count": 1}')
    model = serializers.CharField(max_length=200)
    quant = serializers.CharField(max_length=100)
    workload = serializers.JSONField(help_text='e.g. {"phase": "decode", "test": "tg128"}')
    metric = serializers.CharField(max_length=200, default="throughput")
    value = serializers.FloatField(
        help_text=f"the measured figure, from {MIN_VALUE:g} to {MAX_VALUE:g}"
    )
    unit = serializers.ChoiceField(choices=UNITS)
    source_url = serializers.URLField(
        max_length=500,
        # URLField alone also takes ftp:// and ftps://; the accuracy page links it.
        validators=[URLValidator(schemes=("http", "https"))],
        help_text="where the figure and its output are published (http/https)",
    )
    command = serializers.CharField(max_length=4000, help_text="the command you ran")

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        fields["category"] = serializers.ChoiceField(choices=corpus_categories())
        return fields

    def validate_hardware(self, value: Any) -> dict[str, Any]:
        return _json_object(value)

    def validate_workload(self, value: Any) -> dict[str, Any]:
        return _json_object(value)

    def validate_value(self, value: float) -> float:
        if not math.isfinite(value) or not MIN_VALUE <= value <= MAX_VALUE:
            raise serializers.ValidationError(
                f"must be a number from {MIN_VALUE:g} to {MAX_VALUE:g}"
            )
        return value


class MeasurementOutputSerializer(serializers.ModelSerializer[Measurement]):
    id = serializers.CharField(source="row_id", read_only=True)

    class Meta:
        model = Measurement
        fields = ("id", "status", "category", "engine", "hardware", "model", "quant", "workload",
                  "metric", "value", "unit", "source_url", "command", "created_at")  # fmt: skip
        read_only_fields = fields


class MeasurementCreateApi(APIView):
    """Submit a measurement of your own. It is stored pending and joins the accuracy report
    only once staff accept it in the admin."""

    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="measurements_create",
        request=MeasurementInputSerializer,
        responses={201: MeasurementOutputSerializer, 400: ErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        serializer = MeasurementInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)  # 400 naming each field (api_errors.py)
        measurement = measurement_submit(submitter=request.user, fields=serializer.validated_data)
        return Response(
            MeasurementOutputSerializer(measurement).data, status=status.HTTP_201_CREATED
        )

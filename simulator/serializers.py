"""Output shapes of the simulator API (input is validated by the engine's request parser)."""

import math
from typing import Any

from django.urls import reverse
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers

from planner_site.api_serializers import QueryIntegerField
from simulator.engine import (
    AUTO,
    DEFAULT_MODE,
    MAX_CONTEXT,
    MAX_SEQ_LEN,
    MAX_TOKENS,
    PLACEMENTS,
    QUANT_FORMATS,
    TRAIN_MODES,
    model_slugs,
)
from simulator.models import SimulationRun
from simulator.ranking import DEFAULT_SORT_BY_KIND, INFER, INFER_SORT_FIELDS, SORT_FIELDS, TRAIN
from simulator.services.ranking_filters import BUYER_REGIONS, CASE_SIZES, MAX_POWER_W


class SimulationRunOutputSerializer(serializers.ModelSerializer[SimulationRun]):
    url = serializers.SerializerMethodField()
    duration_s = serializers.FloatField(read_only=True, allow_null=True)

    class Meta:
        model = SimulationRun
        fields = (
            "id",
            "url",
            "kind",
            "status",
            "progress_pct",
            "chunks_done",
            "chunks_total",
            "input",
            "input_hash",
            "result",
            "error",
            "engine_version",
            "prices_observed_on",
            "created_at",
            "started_at",
            "finished_at",
            "duration_s",
        )
        read_only_fields = fields

    def get_url(self, run: SimulationRun) -> str:
        path = reverse("simulator:simulation-detail", kwargs={"run_id": run.pk})
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path


# Every API error: a message, and for invalid input one message per dotted field path.
ErrorSerializer = inline_serializer(
    name="Error",
    fields={
        "detail": serializers.CharField(),
        "errors": serializers.DictField(child=serializers.CharField(), required=False),
    },
)


# Defaults of GET /api/rankings per workload kind: the precomputed default rankings.
RANKING_QUERY_DEFAULTS: dict[str, dict[str, Any]] = {
    TRAIN: {"model": "glm-4.7", "quant": "NF4d+NF2e"},
    INFER: {"model": "glm-4.7-flash", "quant": "Q4_K_M"},
}


class FiniteFloatField(serializers.FloatField):
    """DRF's FloatField lets "nan" through (NaN compares false with either bound)."""

    def to_internal_value(self, data: Any) -> float:
        value = super().to_internal_value(data)
        if not math.isfinite(value):
            self.fail("invalid")
        return value


class RankingQuerySerializer(serializers.Serializer[dict[str, Any]]):
    """Query of GET /api/rankings; the workload part is validated again by the engine.
    `kind=infer` ranks serving speed: `quant` is then an inference type (GGUF, FP8, ...),
    and `context`, `placement` apply; `seq_len`, `tokens` and `mode` apply to training."""

    kind = serializers.ChoiceField(choices=(TRAIN, INFER), default=TRAIN)
    model = serializers.ChoiceField(choices=model_slugs(), required=False)
    quant = serializers.CharField(
        required=False,
        max_length=200,
        help_text=f"training: one of {', '.join(QUANT_FORMATS)}; inference: a weight type "
        "such as Q4_K_M or IQ5_K, or 'A+B' (B for routed experts)",
    )
    seq_len = QueryIntegerField(default=1024, min_value=1, max_value=MAX_SEQ_LEN)
    tokens = QueryIntegerField(default=50_000_000, min_value=1, max_value=MAX_TOKENS)
    mode = serializers.ChoiceField(choices=TRAIN_MODES, default=DEFAULT_MODE)
    placement = serializers.ChoiceField(choices=(AUTO, *PLACEMENTS), default=AUTO)
    budget = FiniteFloatField(required=False, min_value=1.0, max_value=1e9)
    sort = serializers.ChoiceField(
        choices=tuple(dict.fromkeys((*SORT_FIELDS, *INFER_SORT_FIELDS))), required=False
    )
    limit = QueryIntegerField(default=50, min_value=1, max_value=500)
    include_estimates = serializers.BooleanField(
        default=False,
        help_text="price builds with the planner's estimates too (such rows are marked "
        "`estimated`); by default a build with a part that has no published price is listed "
        "unpriced with the reason",
    )
    exclude_stale = serializers.BooleanField(
        default=False,
        help_text="leave out prices older than PRICE_STALE_AFTER_DAYS (a build with such a "
        "part is listed unpriced with the reason); by default they count and are marked `stale`",
    )
    new_only = serializers.BooleanField(
        default=False,
        help_text="count only prices of new parts (no used or refurbished offers); a build "
        "with a part that has no such price is listed unpriced with the reason",
    )
    region = serializers.ChoiceField(
        choices=BUYER_REGIONS,
        required=False,
        help_text="count only prices offered in this region (worldwide offers count in every "
        "region); by default every region's, converted to US dollars",
    )
    power_w_max = QueryIntegerField(
        required=False,
        min_value=1,
        max_value=MAX_POWER_W,
        help_text="leave out builds whose rated power (GPU board power + CPU TDP, or a whole "
        "system's published maximum) is above this many watts; a build with no published "
        "figure is left out too and named in the explanation",
    )
    case_size_max = serializers.ChoiceField(
        choices=CASE_SIZES,
        required=False,
        help_text="leave out builds whose enclosure is bigger (compact < mid_tower < "
        "full_tower < rack)",
    )

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        # Declared here: a class attribute named `context` would hide the serializer's own.
        fields["context"] = QueryIntegerField(
            default=32768, min_value=1, max_value=MAX_CONTEXT, help_text="inference: tokens"
        )
        return fields

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        kind = attrs["kind"]
        values = {**RANKING_QUERY_DEFAULTS[kind], "sort": DEFAULT_SORT_BY_KIND[kind], **attrs}
        if kind == TRAIN and values["quant"] not in QUANT_FORMATS:
            raise serializers.ValidationError({"quant": f"must be one of {list(QUANT_FORMATS)}"})
        sorts = SORT_FIELDS if kind == TRAIN else INFER_SORT_FIELDS
        if values["sort"] not in sorts:
            raise serializers.ValidationError({"sort": f"must be one of {list(sorts)}"})
        return values

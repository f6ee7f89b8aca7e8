"""Admin: measurements with review actions. A user's submission counts towards accuracy
only once staff accept it here; accepting predicts it at once."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from simulator.models import Measurement, MeasurementStatus
from simulator.services.measurements import measurements_predict, measurements_review

# django-stubs makes ModelAdmin generic for mypy only (see catalog/admin.py).
if TYPE_CHECKING:
    ModelAdmin = admin.ModelAdmin[Any]
else:
    ModelAdmin = admin.ModelAdmin

PREDICTION_FIELDS = ("modeled", "predicted", "signed_error", "reason", "prediction_version",
                     "predicted_at")  # fmt: skip


@admin.register(Measurement)
class MeasurementAdmin(ModelAdmin):
    list_display = ("row_id", "status", "origin", "category", "model", "quant", "value", "unit",
                    "predicted", "signed_error", "submitter", "created_at")  # fmt: skip
    list_filter = ("status", "origin", "category", "modeled", "unit")
    search_fields = ("row_id", "model", "engine", "quant", "source_url", "command")
    ordering = ("status", "row_id")
    readonly_fields = ("origin", "submitter", "reviewed_at", "created_at", "updated_at",
                       *PREDICTION_FIELDS)  # fmt: skip
    actions = ("accept", "reject", "predict_again")

    @admin.action(description="Accept: add to the accuracy report (and predict)")
    def accept(self, request: HttpRequest, queryset: QuerySet[Measurement]) -> None:
        count = measurements_review(measurements=queryset, status=MeasurementStatus.ACCEPTED)
        self.message_user(request, f"Accepted {count} measurement(s).", messages.SUCCESS)

    @admin.action(description="Reject: keep out of the accuracy report")
    def reject(self, request: HttpRequest, queryset: QuerySet[Measurement]) -> None:
        count = measurements_review(measurements=queryset, status=MeasurementStatus.REJECTED)
        self.message_user(request, f"Rejected {count} measurement(s).", messages.SUCCESS)

    @admin.action(description="Predict again (accepted rows)")
    def predict_again(self, request: HttpRequest, queryset: QuerySet[Measurement]) -> None:
        ids = list(queryset.values_list("pk", flat=True))
        count = measurements_predict(force=True, ids=ids)
        self.message_user(request, f"Predicted {count} accepted measurement(s).", messages.INFO)

    def save_model(self, request: HttpRequest, obj: Measurement, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        # An edited accepted row (value, hardware, …) is predicted again.
        if obj.status == MeasurementStatus.ACCEPTED:
            measurements_predict(force=True, ids=[obj.pk])

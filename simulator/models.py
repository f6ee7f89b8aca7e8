"""Records of simulation requests. The table is the source of truth for a run's state;
Celery only carries run ids."""

import uuid
from typing import Any

from django.conf import settings
from django.db import models


class RunKind(models.TextChoices):
    SINGLE = "single", "single build"
    RANKING = "ranking", "ranking"


class RunStatus(models.TextChoices):
    QUEUED = "queued", "queued"
    RUNNING = "running", "running"
    DONE = "done", "done"
    FAILED = "failed", "failed"


# A run waiting for or under computation: what the queue cap counts and the sweep watches.
UNFINISHED_STATUSES = (RunStatus.QUEUED, RunStatus.RUNNING)


class SimulationRun(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=16, choices=RunKind.choices)
    input = models.JSONField(help_text="normalized request body")
    input_hash = models.CharField(
        max_length=64,
        db_index=True,
        help_text="sha256 of input, engine version and price epoch (single builds) or "
        "hardware epoch (rankings)",
    )
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED)
    progress_pct = models.PositiveSmallIntegerField(default=0)
    chunks_total = models.PositiveIntegerField(default=0)
    chunks_done = models.PositiveIntegerField(default=0)
    plan = models.JSONField(default=dict, blank=True, help_text="work items a ranking fans out")
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    engine_version = models.CharField(max_length=32)
    prices_observed_on = models.DateField(
        null=True, blank=True, help_text="date of the newest price observation the run used"
    )
    price_epoch = models.CharField(max_length=64, blank=True)
    hardware_epoch = models.CharField(
        max_length=64, blank=True, help_text="fingerprint of the parts a ranking planned"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(
        default=0, help_text="deliveries of the run's start task to a worker"
    )
    swept_at = models.DateTimeField(
        null=True, blank=True, help_text="when the sweep last re-sent this stalled run"
    )
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="when a worker last said it is computing a chunk"
    )

    class Meta:
        ordering = ("-created_at",)
        constraints = [
            models.CheckConstraint(
                condition=models.Q(progress_pct__lte=100), name="run_progress_pct_at_most_100"
            ),
            models.CheckConstraint(
                condition=models.Q(chunks_done__lte=models.F("chunks_total")),
                name="run_chunks_done_at_most_total",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} run {self.id} ({self.status})"

    @property
    def duration_s(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()

    @property
    def is_finished(self) -> bool:
        return self.status not in UNFINISHED_STATUSES


class RunChunk(models.Model):
    """The result of one slice of a ranking, stored so a redelivered chunk is idempotent."""

    run = models.ForeignKey(SimulationRun, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    result = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("run", "index"), name="run_chunk_unique_index")
        ]

    def __str__(self) -> str:
        return f"chunk {self.index} of {self.run_id}"


class SimulatePostKey(models.Model):
    """A client's Idempotency-Key on POST /api/simulate and the run it was answered with: the
    same key and body again (a retry) is answered with that run as it is now and writes
    nothing. `client` is "user:<id>" for a signed-in user, "anon:<address>" otherwise (the
    anonymous throttle's identity)."""

    client = models.CharField(max_length=120)
    key = models.CharField(max_length=200)
    body_sha256 = models.CharField(max_length=64)
    run = models.ForeignKey(SimulationRun, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("client", "key"), name="simulate_post_key_once")
        ]

    def __str__(self) -> str:
        return f"{self.client}: {self.key}"


class SimulatedBuild(models.Model):
    """The physics of one candidate's hardware under one workload and engine version: the
    ranking row's figures that do not depend on a price, or why the workload cannot run on
    it. Rankings share these rows; prices are joined when a ranking is read."""

    engine_version = models.CharField(max_length=32)
    workload_hash = models.CharField(max_length=64, help_text="sha256 of the normalized workload")
    hardware_signature = models.CharField(
        max_length=64, help_text="sha256 of the engine's hardware form of the candidate"
    )
    hardware = models.JSONField(help_text="the engine's hardware form that was simulated")
    physics = models.JSONField(
        null=True, blank=True, help_text="speeds, bottleneck, split, … (no price)"
    )
    reason = models.TextField(blank=True, help_text="why the workload cannot run on it")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=("engine_version", "workload_hash", "hardware_signature"),
                name="simulated_build_unique_key",
            ),
            models.CheckConstraint(
                condition=(models.Q(physics__isnull=False) & models.Q(reason=""))
                | (models.Q(physics__isnull=True) & ~models.Q(reason="")),
                name="simulated_build_physics_or_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.hardware_signature[:12]} under {self.workload_hash[:12]}"

    @property
    def can_run(self) -> bool:
        return self.physics is not None


# --- measurements (issue 9) ---------------------------------------------------------------
class MeasurementOrigin(models.TextChoices):
    CORPUS = "corpus", "published corpus"
    USER = "user", "user submission"


class MeasurementStatus(models.TextChoices):
    ACCEPTED = "accepted", "accepted"
    PENDING = "pending", "pending review"
    REJECTED = "rejected", "rejected"


class Measurement(models.Model):
    """One measured figure (a row of the validation corpus or a user's submission) and the
    engine's prediction of it. Only accepted rows count towards the accuracy report."""

    row_id = models.CharField(max_length=32, unique=True, help_text="corpus id, e.g. H001")
    category = models.CharField(max_length=64, db_index=True)
    engine = models.CharField(max_length=500, help_text="software that produced the figure")
    hardware = models.JSONField()
    model = models.CharField(max_length=200)
    quant = models.CharField(max_length=200)
    workload = models.JSONField()
    metric = models.CharField(max_length=200)
    value = models.FloatField(help_text="the measured figure, in `unit`")
    unit = models.CharField(max_length=100)
    source = models.JSONField(default=dict, blank=True, help_text="kind, repo, url, where, …")
    source_url = models.URLField(max_length=500, blank=True)
    extra = models.JSONField(
        default=dict, blank=True, help_text="the row's other fields (params, caveats, …)"
    )
    origin = models.CharField(max_length=16, choices=MeasurementOrigin.choices)
    status = models.CharField(max_length=16, choices=MeasurementStatus.choices, db_index=True)
    submitter = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    command = models.TextField(blank=True, help_text="the command the submitter ran")
    review_note = models.TextField(blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    # The stored prediction: recomputed when the engine or its efficiency constants change.
    modeled = models.BooleanField(default=False)
    predicted = models.FloatField(null=True, blank=True)
    signed_error = models.FloatField(
        null=True, blank=True, help_text="predicted / measured − 1 (engine's definition)"
    )
    reason = models.TextField(blank=True, help_text="why the row is (not) modeled")
    # The same row predicted with constants fitted without any row of its source (the
    # engine's leave-one-source-out cross-validation): the headline accuracy figures.
    cv_predicted = models.FloatField(
        null=True, blank=True, help_text="prediction with constants its source never entered"
    )
    cv_signed_error = models.FloatField(
        null=True, blank=True, help_text="cv_predicted / measured − 1"
    )
    cv_reason = models.TextField(
        blank=True, help_text="what bounds the cross-validated prediction (or why not modeled)"
    )
    runtime = models.CharField(
        max_length=32, blank=True, help_text="runtime family whose constants predict the row"
    )
    prediction_version = models.CharField(
        max_length=64, blank=True, help_text="engine version and efficiency fingerprint"
    )
    predicted_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("row_id",)
        constraints = [
            models.CheckConstraint(condition=models.Q(value__gt=0), name="measurement_value_gt_0"),
            models.CheckConstraint(
                condition=models.Q(modeled=False) | models.Q(predicted__isnull=False),
                name="measurement_modeled_has_prediction",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.row_id} {self.category} ({self.status})"

    @property
    def abs_error(self) -> float | None:
        return None if self.signed_error is None else abs(self.signed_error)

    @property
    def cv_abs_error(self) -> float | None:
        return None if self.cv_signed_error is None else abs(self.cv_signed_error)

    def as_corpus_row(self) -> dict[str, Any]:
        """The row in the corpus file's shape (what the engine reads)."""
        columns = ("category", "engine", "hardware", "model", "quant", "workload", "metric",
                   "value", "unit", "source")  # fmt: skip
        return {**self.extra, "id": self.row_id, **{name: getattr(self, name) for name in columns}}

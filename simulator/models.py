"""Records of simulation requests. The table is the source of truth for a run's state;
Celery only carries run ids."""

import uuid

from django.db import models


class RunKind(models.TextChoices):
    SINGLE = "single", "single build"
    RANKING = "ranking", "ranking"


class RunStatus(models.TextChoices):
    QUEUED = "queued", "queued"
    RUNNING = "running", "running"
    DONE = "done", "done"
    FAILED = "failed", "failed"


class SimulationRun(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=16, choices=RunKind.choices)
    input = models.JSONField(help_text="normalized request body")
    input_hash = models.CharField(
        max_length=64, db_index=True, help_text="sha256 of input, engine version and price epoch"
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
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(
        default=0, help_text="deliveries of the run's start task to a worker"
    )
    swept_at = models.DateTimeField(
        null=True, blank=True, help_text="when the sweep last re-sent this stalled run"
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
        return self.status in (RunStatus.DONE, RunStatus.FAILED)


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

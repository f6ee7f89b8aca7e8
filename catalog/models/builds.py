"""A build is a set of parts with quantities. Seed builds keep the seed's quoted unit
prices beside the parts so their published totals can always be shown."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from catalog.models.choices import BuildOrigin
from catalog.models.parts import Part


class Build(models.Model):
    name = models.CharField(max_length=160, unique=True)
    slug = models.SlugField(max_length=160, unique=True)
    origin = models.CharField(max_length=16, choices=BuildOrigin.choices)
    description = models.TextField(blank=True)
    source = models.TextField(blank=True, help_text="where a seed build comes from")
    signature = models.CharField(
        max_length=64,
        null=True,
        blank=True,
        unique=True,
        help_text="sha256 of the sorted (part id, quantity) pairs of a generated build",
    )
    created_at = models.DateTimeField(default=timezone.now)
    parts: models.ManyToManyField[Part, BuildPart] = models.ManyToManyField(
        Part, through="BuildPart", related_name="builds"
    )

    class Meta:
        ordering = ("origin", "name")

    def __str__(self) -> str:
        return self.name


class BuildPart(models.Model):
    build = models.ForeignKey(Build, on_delete=models.CASCADE, related_name="lines")
    part = models.ForeignKey(Part, on_delete=models.PROTECT, related_name="build_lines")
    quantity = models.PositiveSmallIntegerField(default=1)
    quoted_unit_usd = models.DecimalField(
        max_digits=10,
        decimal_places=2,
        null=True,
        blank=True,
        help_text="unit price the build's source quotes (seed builds), USD",
    )

    class Meta:
        ordering = ("build", "part__kind", "id")
        constraints = [
            models.UniqueConstraint(fields=("build", "part"), name="build_part_unique"),
            models.CheckConstraint(condition=Q(quantity__gte=1), name="build_part_quantity_gte_1"),
            models.CheckConstraint(
                condition=Q(quoted_unit_usd__isnull=True) | Q(quoted_unit_usd__gt=0),
                name="build_part_quoted_unit_usd_gt_0",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.quantity}x {self.part}"

"""Prices are observations: every one is kept, and a part's current price is its latest
valid observation in a currency the rate table converts to US dollars
(catalog.selectors.part_current_price_map). Each change of a current
price is logged in `PriceChange` (who, when, old, new)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from catalog.models.choices import Condition, Currency, PriceChangeVia, Region
from catalog.models.parts import Part

MIN_AMOUNT = Decimal("0.01")
# The vendor of a price the planner estimated instead of reading it on a listing: kept for
# the record and for users who opt in, never in a default ranking.
ESTIMATE_VENDOR = "planner estimate"


def validate_not_in_future(value: date) -> None:
    if value > timezone.localdate():
        raise ValidationError(f"{value} is in the future: a price is observed, not forecast.")


class PriceObservation(models.Model):
    part = models.ForeignKey(Part, on_delete=models.CASCADE, related_name="prices")
    amount = models.DecimalField(
        max_digits=10, decimal_places=2, validators=[MinValueValidator(MIN_AMOUNT)]
    )
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.USD)
    condition = models.CharField(max_length=12, choices=Condition.choices, default=Condition.NEW)
    region = models.CharField(max_length=2, choices=Region.choices, default=Region.US)
    vendor = models.CharField(max_length=120, help_text="shop, marketplace or document")
    source_url = models.CharField(max_length=500, blank=True, help_text="listing or document")
    observed_on = models.DateField(validators=[validate_not_in_future])
    withdrawn = models.BooleanField(
        default=False, help_text="a wrong observation: kept for the record, never current"
    )
    withdrawn_reason = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )

    class Meta:
        ordering = ("-observed_on", "-id")
        # Importing a price list replaces many current prices at once: a permission of its
        # own (IMPORT_EXPORT_IMPORT_PERMISSION_CODE = "import"), not implied by staff status.
        permissions = [("import_priceobservation", "Can import price lists (CSV)")]
        indexes = [models.Index(fields=("part", "-observed_on", "-id"), name="price_part_latest")]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="price_amount_gt_0"),
            models.CheckConstraint(
                condition=Q(withdrawn=True) | Q(withdrawn_reason=""),
                name="price_withdrawn_reason_only_when_withdrawn",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.part} {self.amount} {self.currency} ({self.condition}, {self.observed_on})"

    @property
    def is_estimate(self) -> bool:
        """Whether this is the planner's estimate rather than a published price."""
        return self.vendor == ESTIMATE_VENDOR


class PriceChange(models.Model):
    """A change of a part's current price. Its latest id is the catalog's price epoch."""

    part = models.ForeignKey(Part, on_delete=models.CASCADE, related_name="price_changes")
    observation = models.ForeignKey(
        PriceObservation, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    old_amount_usd = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)
    new_amount_usd = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    changed_at = models.DateTimeField(default=timezone.now, db_index=True)
    via = models.CharField(max_length=16, choices=PriceChangeVia.choices)
    reason = models.CharField(max_length=200, blank=True)
    # The outbox of the rankings refresh: written with the change, in its transaction, and
    # set once the refresh task reached the broker (after the commit, or by the periodic sweep
    # once a broker that was down is back). Null: the refresh is still owed.
    rankings_refresh_sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-changed_at", "-id")

    def __str__(self) -> str:
        return f"{self.part}: {self.old_amount_usd} -> {self.new_amount_usd}"


class PricePostKey(models.Model):
    """A client's Idempotency-Key on POST /api/prices and the answer it got: the same key
    again (a retry) gets the same answer and writes nothing."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    key = models.CharField(max_length=200)
    body_sha256 = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    response = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("user", "key"), name="price_post_key_once_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.key}"


class ExchangeRate(models.Model):
    """A reference rate: how many units of `currency` one euro bought on `rate_date`. The
    ECB publishes its reference rates against the euro; a price in any of these currencies
    becomes US dollars through the euro (amount / its rate x the USD rate of that date)."""

    currency = models.CharField(max_length=3, choices=Currency.choices)
    rate_date = models.DateField()
    units_per_eur = models.DecimalField(max_digits=14, decimal_places=6)
    source = models.CharField(max_length=300, help_text="publisher and document of the rate")

    class Meta:
        ordering = ("-rate_date", "currency")
        constraints = [
            models.UniqueConstraint(fields=("currency", "rate_date"), name="rate_once_per_day"),
            models.CheckConstraint(condition=Q(units_per_eur__gt=0), name="rate_gt_0"),
        ]

    def __str__(self) -> str:
        return f"1 EUR = {self.units_per_eur} {self.currency} ({self.rate_date})"

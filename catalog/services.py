"""Writes. Every change of a part's current price goes through `price_observation_save`
or `price_observation_withdraw`, which log a `PriceChange` (who, when, old, new)."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from decimal import Decimal
from typing import Any

from celery import current_app
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify

from catalog.compatibility import build_errors
from catalog.models import (
    Build,
    BuildOrigin,
    BuildPart,
    Condition,
    Currency,
    Part,
    PriceChange,
    PriceChangeVia,
    PriceObservation,
    PricePostKey,
    Region,
)
from catalog.selectors import build_priced_lines as build_priced_lines  # a read, re-exported
from catalog.selectors import part_current_price
from catalog.spec import spec_from_lines
from planner_site.idempotency import IdempotencyKeyReusedError, request_body_sha256

Actor = User | AnonymousUser


# The simulator's task that queues the default rankings the current parts lack; sent by
# name so that the catalog does not import the simulator (calls go one way).
RANKINGS_REFRESH_TASK = "simulator.rankings_refresh_defaults"


logger = logging.getLogger(__name__)


def price_changes_refresh_send() -> int:
    """Send the rankings refresh owed for price changes not announced yet (the outbox, in
    PriceChange.rankings_refresh_sent_at) and mark them sent; the number marked, 0 when none
    was owed or the broker could not be reached (they stay owed: the periodic sweep sends
    them once it is back). One message answers any number of changes: the task is
    idempotent and reads the catalog as it is when it runs."""
    owed = PriceChange.objects.filter(rankings_refresh_sent_at__isnull=True)
    newest = owed.order_by("-pk").values_list("pk", flat=True).first()
    if newest is None:
        return 0
    try:
        current_app.send_task(RANKINGS_REFRESH_TASK)
    except Exception:  # kombu's connection errors; the write has committed and stands
        logger.warning("rankings refresh not sent: the broker is unreachable; it stays owed")
        return 0
    # Up to the newest seen: a change committed meanwhile stays owed for its own send.
    return owed.filter(pk__lte=newest).update(rankings_refresh_sent_at=timezone.now())


def _rankings_refresh_on_commit() -> None:
    """A current price changed. Rankings price their rows when they are read, so nothing is
    simulated again; the task only queues a default ranking that the current parts and
    engine do not have yet (a part that got its first price, say). The change row written
    in this transaction is the outbox entry; it is sent once this commits."""
    transaction.on_commit(price_changes_refresh_send)


def _user_or_none(user: Actor | None) -> User | None:
    return user if isinstance(user, User) else None


class StalePriceEdit(Exception):  # noqa: N818  (a refusal, not a programming error)
    """Optimistic concurrency: the part's current price changed after the editor read it
    (the PriceChange log has a newer entry than `seen_price_change_id`), so the edit is
    refused instead of silently replacing a price the editor never saw."""

    def __init__(self, *, part: Part, seen_price_change_id: int, latest: PriceChange) -> None:
        self.part = part
        self.seen_price_change_id = seen_price_change_id
        self.latest = latest
        super().__init__(
            f"The current price of {part.name} changed after you read it (change "
            f"#{latest.pk}: {latest.old_amount_usd} -> {latest.new_amount_usd} USD, "
            f"{latest.changed_at:%Y-%m-%d %H:%M} UTC). Reload, check it and try again."
        )


def _refuse_stale(part: Part, seen_price_change_id: int | None) -> None:
    """Lock the part's row, so that two edits of one part serialize, then compare the
    newest logged change of its current price with the one the editor saw."""
    if seen_price_change_id is None:
        return
    Part.objects.select_for_update().filter(pk=part.pk).exists()
    latest = PriceChange.objects.filter(part=part, pk__gt=seen_price_change_id).order_by("-pk")
    newer = latest.first()
    if newer is not None:
        raise StalePriceEdit(part=part, seen_price_change_id=seen_price_change_id, latest=newer)


def _current_amount(part: Part) -> Decimal | None:
    current = part_current_price(part=part)
    return None if current is None else current.amount_usd


@transaction.atomic
def price_observation_save(
    *,
    observation: PriceObservation,
    user: Actor | None,
    via: str,
    reason: str = "",
    seen_price_change_id: int | None = None,
) -> PriceObservation:
    """Validate and store a new (unsaved) observation; log the current-price change.
    With `seen_price_change_id` (the newest PriceChange id when the editor read the
    prices), refuse with StalePriceEdit if the part's current price changed since."""
    _refuse_stale(observation.part, seen_price_change_id)
    old = _current_amount(observation.part)
    observation.created_by = _user_or_none(user)
    observation.full_clean()
    observation.save()
    new = _current_amount(observation.part)
    if new != old:
        PriceChange.objects.create(
            part=observation.part,
            observation=observation,
            old_amount_usd=old,
            new_amount_usd=new,
            changed_by=_user_or_none(user),
            via=via,
            reason=reason,
        )
        _rankings_refresh_on_commit()
    return observation


def price_observation_create(
    *,
    part: Part,
    amount: Decimal,
    observed_on: date,
    vendor: str,
    condition: str = Condition.NEW,
    currency: str = Currency.USD,
    region: str = Region.US,
    source_url: str = "",
    user: Actor | None = None,
    via: str = PriceChangeVia.SERVICE,
    seen_price_change_id: int | None = None,
) -> PriceObservation:
    observation = PriceObservation(
        part=part,
        amount=amount,
        observed_on=observed_on,
        vendor=vendor,
        condition=condition,
        currency=currency,
        region=region,
        source_url=source_url,
    )
    return price_observation_save(
        observation=observation, user=user, via=via, seen_price_change_id=seen_price_change_id
    )


def price_observation_create_once(
    *,
    key: str,
    user: User,
    body: Mapping[str, Any],
    respond: Callable[[PriceObservation], dict[str, Any]],
    **fields: Any,
) -> tuple[int, dict[str, Any]]:
    """`price_observation_create` at most once per (user, Idempotency-Key): the first call
    writes and keeps its answer (`respond` of the new observation); a retry with the same
    body gets that answer back and writes nothing; another body is IdempotencyKeyReusedError.
    Two concurrent calls with one key: the unique key lets one commit, the other's write
    rolls back and it answers what the first stored."""
    digest = request_body_sha256(body)
    with transaction.atomic():
        stored = PricePostKey.objects.select_for_update().filter(user=user, key=key).first()
        if stored is None:
            try:
                with transaction.atomic():
                    observation = price_observation_create(user=user, **fields)
                    answer = respond(observation)
                    PricePostKey.objects.create(user=user, key=key, body_sha256=digest,
                                                status_code=201, response=answer)  # fmt: skip
                    return 201, answer
            except IntegrityError:
                stored = PricePostKey.objects.filter(user=user, key=key).first()
                if stored is None:  # not the key's constraint: the write itself failed
                    raise
        if stored.body_sha256 != digest:
            raise IdempotencyKeyReusedError(key)
        return stored.status_code, stored.response


@transaction.atomic
def price_observation_withdraw(
    *, observation: PriceObservation, reason: str, user: Actor | None, via: str
) -> PriceObservation:
    """Mark a wrong observation withdrawn (kept for the record, never current again)."""
    if not reason:
        raise ValidationError({"withdrawn_reason": "Say why the observation is withdrawn."})
    old = _current_amount(observation.part)
    observation.withdrawn = True
    observation.withdrawn_reason = reason
    observation.save(update_fields=["withdrawn", "withdrawn_reason"])
    new = _current_amount(observation.part)
    if new != old:
        PriceChange.objects.create(
            part=observation.part,
            observation=observation,
            old_amount_usd=old,
            new_amount_usd=new,
            changed_by=_user_or_none(user),
            via=via,
            reason=f"withdrawn: {reason}",
        )
        _rankings_refresh_on_commit()
    return observation


def build_signature(lines: Sequence[tuple[Part, int]]) -> str:
    pairs = sorted((part.pk, quantity) for part, quantity in lines)
    return hashlib.sha256(repr(pairs).encode()).hexdigest()


@transaction.atomic
def build_create(
    *,
    name: str,
    lines: Sequence[tuple[Part, int]],
    origin: str = BuildOrigin.USER,
    description: str = "",
) -> Build:
    """Store a build; refuses one with compatibility errors, listing them all."""
    errors = build_errors(spec_from_lines((part.detail, qty) for part, qty in lines))
    if errors:
        raise ValidationError([problem.message for problem in errors])
    signature = build_signature(lines) if origin == BuildOrigin.GENERATED else None
    build = Build.objects.create(
        name=name,
        slug=slugify(name)[:160],
        origin=origin,
        description=description,
        signature=signature,
    )
    BuildPart.objects.bulk_create(
        BuildPart(build=build, part=part, quantity=qty) for part, qty in lines
    )
    return build

"""Reads. The simulation service calls `build_hardware`, `build_total_usd`,
`catalog_price_epoch`, `catalog_hardware_epoch`, `part_current_quotes` and
`candidate_builds` (catalog.generator) from here."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any, NamedTuple, TypeVar

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import connection
from django.db.models import Case as SqlCase
from django.db.models import Exists, Max, Q, QuerySet, Value, When
from django.utils import timezone

from catalog.compatibility import Problem, build_errors, build_problems
from catalog.generator import Candidate, CatalogSnapshot, candidate_builds, system_candidates
from catalog.models import (
    ESTIMATE_VENDOR,
    PART_MODELS,
    Build,
    BuildOrigin,
    Case,
    CaseSize,
    Condition,
    Cpu,
    Currency,
    ExchangeRate,
    Gpu,
    Part,
    PriceChange,
    PriceObservation,
    Region,
    System,
)
from catalog.spec import BuildSpec, HardwareDict, SystemHardwareDict, spec_from_lines


class BuildIncompatibleError(Exception):
    """The build has compatibility errors; `problems` says which, in words."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(problem.message for problem in problems))
        self.problems = problems


# --- prices ---------------------------------------------------------------------------
_Row = TypeVar("_Row")


def price_valid_list() -> QuerySet[PriceObservation]:
    """Observations that may be a current price: not withdrawn, in US dollars or a currency
    the rate table converts to them (`RateTable.convertible`), newest first. Lazy: the rate
    table is a subquery, so building the queryset reads nothing (the API schema builds it
    without a database)."""
    rated = ExchangeRate.objects.values("currency")
    dollar_rated = Exists(ExchangeRate.objects.filter(currency=Currency.USD))
    through_the_euro = (Q(currency=Currency.EUR) | Q(currency__in=rated)) & Q(dollar_rated)
    return PriceObservation.objects.filter(
        Q(currency=Currency.USD) | through_the_euro, withdrawn=False
    ).order_by("-observed_on", "-id")


class CurrentPrice(NamedTuple):
    """A part's current price: its newest valid published observation, or where it has none
    its newest planner estimate (a published price supersedes any estimate, however dated:
    an estimate observes no market), and that amount in US dollars. The rankings read the
    same (`part_ranking_quotes`' latest quote), so a part's page and its ranked builds quote
    one price."""

    observation: PriceObservation
    amount_usd: Decimal

    @property
    def converted(self) -> bool:
        """Published in another currency and converted with the rate table."""
        return self.observation.currency != Currency.USD


def _convertible_observations(
    rates: RateTable, part_ids: Sequence[int] | None
) -> QuerySet[PriceObservation]:
    """`price_valid_list` with the rate table already read (the currencies it converts),
    published prices first and the planner's estimates after them (`CurrentPrice`), each
    newest first."""
    rows = PriceObservation.objects.filter(withdrawn=False, currency__in=rates.convertible)
    if part_ids is not None:
        rows = rows.filter(part_id__in=list(part_ids))
    return _published_first(rows)


def _published_first(rows: QuerySet[PriceObservation]) -> QuerySet[PriceObservation]:
    """`rows` in the order a current price is chosen (`CurrentPrice`): published prices
    before the planner's estimates, each newest first."""
    estimate_last = SqlCase(When(vendor=ESTIMATE_VENDOR, then=Value(1)), default=Value(0))
    return rows.order_by(estimate_last, "-observed_on", "-id")


def _newest_in_dollars(
    rates: RateTable, rows: Iterable[_Row], read: Callable[[_Row], tuple[int, Decimal, str]]
) -> dict[int, tuple[_Row, Decimal]]:
    """Part id → its first row (the rows newest first) with that amount in US dollars;
    `read` gives a row's (part id, amount, currency)."""
    current: dict[int, tuple[_Row, Decimal]] = {}
    for row in rows:
        part_id, amount, currency = read(row)
        if part_id in current:
            continue
        amount_usd = rates.to_usd(amount, currency)
        if amount_usd is not None:
            current[part_id] = (row, amount_usd)
    return current


def part_current_price_map(*, part_ids: Sequence[int] | None = None) -> dict[int, CurrentPrice]:
    """Part id → its current price (`CurrentPrice`), for the parts that have one; every part
    without `part_ids`. Two queries (the rates, the observations)."""
    rates = exchange_rate_table()
    newest = _newest_in_dollars(
        rates,
        _convertible_observations(rates, part_ids),
        lambda o: (o.part_id, o.amount, o.currency),
    )
    return {pk: CurrentPrice(o, amount_usd) for pk, (o, amount_usd) in newest.items()}


def part_current_price(*, part: Part) -> CurrentPrice | None:
    return part_current_price_map(part_ids=[part.pk]).get(part.pk)


CENT = Decimal("0.01")


def price_stale(*, observed_on: date, today: date | None = None) -> bool:
    """Whether a price observed on that day is older than PRICE_STALE_AFTER_DAYS."""
    today = today or timezone.localdate()
    stale_after_days: int = settings.PRICE_STALE_AFTER_DAYS
    return (today - observed_on).days > stale_after_days


@dataclass(frozen=True, slots=True)
class RateTable:
    """Units of each currency one euro bought (the euro itself is 1), from the newest stored
    reference rate of each currency; `usd_rate_date` is the day of the dollar's rate."""

    units_per_eur: dict[str, Decimal]
    usd_rate_date: date | None

    @property
    def convertible(self) -> tuple[str, ...]:
        """The currencies a price may be published in and still be current: US dollars, and
        every currency with a rate once the dollar has one."""
        if Currency.USD not in self.units_per_eur:
            return (Currency.USD,)
        return tuple(sorted(self.units_per_eur))

    def to_usd(self, amount: Decimal, currency: str) -> Decimal | None:
        """The amount in US dollars, through the euro; None without a rate for it."""
        if currency == Currency.USD:
            return amount
        per_eur, usd = self.units_per_eur.get(currency), self.units_per_eur.get(Currency.USD)
        if per_eur is None or usd is None:
            return None
        return (amount / per_eur * usd).quantize(CENT)


def exchange_rate_epoch() -> str:
    """Changes whenever the rate table changes (a rate added, edited or removed): a ranking
    view converted with other rates is not served again. The table holds a few rows."""
    rows = ExchangeRate.objects.order_by("pk").values_list(
        "pk", "currency", "rate_date", "units_per_eur"
    )
    return hashlib.sha256(repr([tuple(map(str, row)) for row in rows]).encode()).hexdigest()


def exchange_rate_table() -> RateTable:
    units: dict[str, Decimal] = {Currency.EUR: Decimal(1)}
    dates: dict[str, date] = {}
    for rate in ExchangeRate.objects.order_by("-rate_date"):  # newest first
        units.setdefault(rate.currency, rate.units_per_eur)
        dates.setdefault(rate.currency, rate.rate_date)
    return RateTable(units_per_eur=units, usd_rate_date=dates.get(Currency.USD))


class Quote(NamedTuple):
    """A part's price as a ranking reads it: in US dollars (converted with the rate table
    when published in another currency), the date observed, whether it is the planner's
    estimate rather than a published price, the currency it was published in, and whether
    it is older than PRICE_STALE_AFTER_DAYS."""

    amount_usd: Decimal
    observed_on: date
    estimate: bool
    currency: str = Currency.USD
    stale: bool = False


@dataclass(frozen=True, slots=True)
class PartQuotes:
    """A part's current sourced price (None: none published) and its price with estimates
    included: the sourced one, or where none is published the newest estimate (None: no
    price at all)."""

    sourced: Quote | None
    latest: Quote | None

    def current(self, *, include_estimates: bool) -> Quote | None:
        return self.latest if include_estimates else self.sourced


def _quote(observation: PriceObservation, rates: RateTable, today: date) -> Quote | None:
    amount_usd = rates.to_usd(observation.amount, observation.currency)
    if amount_usd is None:
        return None
    return Quote(
        amount_usd=amount_usd,
        observed_on=observation.observed_on,
        estimate=observation.is_estimate,
        currency=observation.currency,
        stale=price_stale(observed_on=observation.observed_on, today=today),
    )


def part_ranking_quotes(
    *, part_ids: Sequence[int], new_only: bool = False, region: str | None = None
) -> dict[int, PartQuotes]:
    """Part id → its current quotes, sourced and with estimates: the first valid observation
    in any currency the rate table converts, published before estimated (`CurrentPrice`).
    `new_only` counts only prices of
    new parts (not used or refurbished); `region` only prices offered in that region or
    worldwide. Two queries; a part with no such price is left out."""
    rates, today = exchange_rate_table(), timezone.localdate()
    observations = PriceObservation.objects.filter(withdrawn=False, part_id__in=list(part_ids))
    if new_only:
        observations = observations.filter(condition=Condition.NEW)
    if region is not None:
        observations = observations.filter(region__in=(region, Region.WORLDWIDE))
    quotes: dict[int, PartQuotes] = {}
    for observation in _published_first(observations):
        if observation.part_id in quotes:
            continue
        quote = _quote(observation, rates, today)
        if quote is not None:
            quotes[observation.part_id] = PartQuotes(
                sourced=None if quote.estimate else quote, latest=quote
            )
    return quotes


class PartFacts(NamedTuple):
    """What a ranking filters a part by: the power it draws (a GPU's board power, a CPU's
    TDP, a whole system's maximum; None where the maker publishes none or the part draws
    no rated power of its own) and, for an enclosure, its size class (None: unknown)."""

    power_w: int | None = None
    case_size: str | None = None


def part_ranking_facts(*, part_ids: Sequence[int]) -> dict[int, PartFacts]:
    """Part id → its PartFacts, for the GPUs, CPUs, cases and whole systems among
    `part_ids` (other parts have none). Four queries."""
    ids = list(part_ids)
    facts: dict[int, PartFacts] = {}
    for model in (Gpu, Cpu):
        for pk, tdp_w in model.objects.filter(pk__in=ids).values_list("pk", "tdp_w"):
            facts[pk] = PartFacts(power_w=tdp_w)
    for pk, size in Case.objects.filter(pk__in=ids).values_list("pk", "size"):
        facts[pk] = PartFacts(case_size=size or None)
    for pk, power_w in System.objects.filter(pk__in=ids).values_list("pk", "max_power_w"):
        facts[pk] = PartFacts(power_w=power_w, case_size=CaseSize.COMPACT)
    return facts


def part_price_history(*, part: Part) -> QuerySet[PriceObservation]:
    """Every observation of the part, withdrawn and foreign-currency ones included."""
    return PriceObservation.objects.filter(part=part).order_by("-observed_on", "-id")


def part_list(*, kind: str | None = None) -> QuerySet[Part]:
    """Parts (their current prices: `part_current_price_map`)."""
    parts = Part.objects.all()
    return parts.filter(kind=kind) if kind else parts


class _CurrentFigures(NamedTuple):
    amount_usd: Decimal
    observed_on: date
    estimate: bool


def _current_figures(part_ids: Sequence[int] | None = None) -> dict[int, _CurrentFigures]:
    """`part_current_price_map`'s figures without building model instances: what the lists
    of every part (the parts API, the candidate generator) read on each request."""
    rates = exchange_rate_table()
    rows = _convertible_observations(rates, part_ids).values_list(
        "part_id", "amount", "currency", "observed_on", "vendor"
    )
    newest = _newest_in_dollars(rates, rows, lambda row: (row[0], row[1], row[2]))
    return {
        pk: _CurrentFigures(amount_usd, row[3], row[4] == ESTIMATE_VENDOR)
        for pk, (row, amount_usd) in newest.items()
    }


def part_current_quotes(*, part_ids: Sequence[int]) -> dict[int, tuple[Decimal, date]]:
    """Part id → (current price in US dollars, the date it was observed), for the parts that
    have one."""
    current = _current_figures(part_ids)
    return {pk: (price.amount_usd, price.observed_on) for pk, price in current.items()}


def current_prices_usd(*, part_ids: list[int] | None = None) -> dict[int, Decimal]:
    """Part id → its current price in US dollars (`part_current_price_map`)."""
    return {pk: price.amount_usd for pk, price in _current_figures(part_ids).items()}


def part_estimated_ids() -> frozenset[int]:
    """The parts whose current price (`part_current_price_map`) is the planner's estimate."""
    return frozenset(pk for pk, price in _current_figures().items() if price.estimate)


def parts_by_kind() -> dict[str, list[Part]]:
    """Every part as its kind-specific model (a `Gpu`, a `Cpu`, ...), grouped by kind."""
    return {kind: list(model.objects.order_by("pk")) for kind, model in PART_MODELS.items()}


# Adding a price needs what the admin's "add price observation" needs: a staff account
# holding this permission (POST /api/prices asks the same; superusers hold every one).
PRICE_ADD_PERMISSION = "catalog.add_priceobservation"


def price_add_permitted(*, user: User | AnonymousUser) -> bool:
    """Whether `user` may add a price observation (in the admin or through the API)."""
    return bool(user.is_authenticated and user.is_staff and user.has_perm(PRICE_ADD_PERMISSION))


# --- stale rankings -------------------------------------------------------------------
def catalog_price_epoch() -> str:
    """Changes whenever any price that can be current changes (an observation added,
    withdrawn, edited, or loaded from a fixture). A ranking stored with another epoch is
    stale. A sha256 over every observation's identity and value: on PostgreSQL one
    aggregate query (0.2 ms for the catalog; every ranking request asks), elsewhere in
    Python (1.5 ms). The two spell the digest differently; a database only meets its own."""
    if connection.vendor == "postgresql":
        return _price_epoch_postgresql()
    return price_epoch_python()


_EPOCH_COLUMNS = ("id", "part_id", "amount", "currency", "condition", "observed_on", "withdrawn")


def _price_epoch_postgresql() -> str:
    table = connection.ops.quote_name(PriceObservation._meta.db_table)
    row = ", ".join(_EPOCH_COLUMNS)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT encode(sha256(convert_to(coalesce(string_agg(concat_ws(',', {row}), ';' "
            f"ORDER BY id), ''), 'UTF8')), 'hex') FROM {table}"
        )
        digest: str = cursor.fetchone()[0]
    return digest


def price_epoch_python() -> str:
    rows = PriceObservation.objects.order_by("pk").values_list(*_EPOCH_COLUMNS)
    digest = hashlib.sha256()
    for row in rows:
        digest.update(repr(tuple(str(value) for value in row)).encode())
    return digest.hexdigest()


def catalog_hardware_epoch() -> str:
    """Changes whenever a part or its specification changes (added, renamed, edited,
    removed): what a ranking's candidate builds and their hardware are made of. No price
    enters it, so a price change keeps the stored rankings (their prices are read when they
    are shown). A sha256 over every part's id, kind and name and every kind table's rows:
    on PostgreSQL one query (about 1 ms), elsewhere in Python."""
    if connection.vendor == "postgresql":
        return _hardware_epoch_postgresql()
    return hardware_epoch_python()


# Of the row every part shares, only what a candidate is made of: a part's notes, source or
# manufacturer can be edited without planning the rankings again.
PART_IDENTITY_FIELDS = ("id", "kind", "name")


def _hardware_fields(model: type[Part]) -> list[tuple[str, str]]:
    """(attribute, column) of what the epoch covers in the model's own table."""
    if model is Part:
        return [(name, name) for name in PART_IDENTITY_FIELDS]
    return [(field.attname, field.column) for field in model._meta.local_concrete_fields]


def _hardware_models() -> list[type[Part]]:
    return [Part, *PART_MODELS.values()]


def _hardware_table_digest(model: type[Part]) -> str:
    """SQL: the covered columns of every row of the model's table, in primary key order."""
    quote = connection.ops.quote_name
    columns = ", ".join(f"t.{quote(column)}" for _, column in _hardware_fields(model))
    pk, table = quote(model._meta.pk.column), quote(model._meta.db_table)
    row = f"concat_ws(',', {columns})"
    return f"(SELECT coalesce(string_agg({row}, ';' ORDER BY t.{pk}), '') FROM {table} t)"


def _hardware_epoch_postgresql() -> str:
    digests = ", ".join(_hardware_table_digest(model) for model in _hardware_models())
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT encode(sha256(convert_to(concat_ws('|', {digests}), 'UTF8')), 'hex')"
        )
        digest: str = cursor.fetchone()[0]
    return digest


def hardware_epoch_python() -> str:
    digest = hashlib.sha256()
    for model in _hardware_models():
        names = [name for name, _ in _hardware_fields(model)]
        for row in model._base_manager.order_by("pk").values_list(*names):
            digest.update(repr(tuple(str(value) for value in row)).encode())
        digest.update(b"|")
    return digest.hexdigest()


def catalog_prices_observed_on() -> date | None:
    """The date of the newest observation among the prices that can be current."""
    latest: date | None = price_valid_list().aggregate(latest=Max("observed_on"))["latest"]
    return latest


def catalog_prices_observed_at() -> datetime | None:
    """When the newest price change was recorded (None before any recorded change)."""
    latest: datetime | None = PriceChange.objects.aggregate(latest=Max("changed_at"))["latest"]
    return latest


def price_change_latest_id() -> int:
    """The newest PriceChange id (0 before any): what an editor "saw" when reading prices,
    sent back as `seen_price_change_id` so a stale edit is refused."""
    latest: int | None = PriceChange.objects.aggregate(latest=Max("pk"))["latest"]
    return latest or 0


def price_change_list(*, since: datetime | None = None) -> QuerySet[PriceChange]:
    changes = PriceChange.objects.select_related("part", "changed_by")
    return changes.filter(changed_at__gt=since) if since else changes


def build_price_epoch(*, build: Build) -> str:
    """Changes when the current price of any part of this build changes."""
    part_ids = [part.pk for part, _, _ in build_lines(build=build)]
    prices = current_prices_usd(part_ids=part_ids)
    text = repr(sorted((pk, str(prices.get(pk))) for pk in part_ids))
    return hashlib.sha256(text.encode()).hexdigest()


# --- builds -----------------------------------------------------------------------------
# (part, quantity, the unit price the build's source quotes)
BuildLine = tuple[Part, int, Decimal | None]


def build_list(*, origin: str | None = None) -> QuerySet[Build]:
    builds = Build.objects.prefetch_related("lines__part")
    return builds.filter(origin=origin) if origin else builds


def build_unsaved_from_lines(
    lines: Sequence[tuple[Part, int]], name: str = "ad-hoc build"
) -> Build:
    """An unsaved build of (part, quantity) pairs that every build selector accepts, for
    checking or simulating a set of parts without storing it."""
    build = Build(name=name, origin=BuildOrigin.USER)
    build._unsaved_lines = [(part, quantity) for part, quantity in lines]  # type: ignore[attr-defined]
    return build


def build_lines(*, build: Build) -> list[BuildLine]:
    unsaved = getattr(build, "_unsaved_lines", None)
    if build.pk is None and unsaved is not None:
        return [(part, quantity, None) for part, quantity in unsaved]
    # One query: the lines with their parts' kind-specific rows (see part_detailed_map).
    lines = build.lines.select_related(*(f"part__{name}" for name in _DETAIL_NAMES))
    return [(line.part, line.quantity, line.quoted_unit_usd) for line in lines]


def build_spec(*, build: Build) -> BuildSpec:
    return spec_from_lines(
        (part.detail, quantity) for part, quantity, _ in build_lines(build=build)
    )


def build_check(*, build: Build) -> list[Problem]:
    """Every compatibility problem of the build, explained in words."""
    return build_problems(build_spec(build=build))


def _unit_prices(lines: list[BuildLine], *, quoted: bool) -> dict[int, Decimal | None]:
    if quoted:
        return {part.pk: unit for part, _, unit in lines}
    current = current_prices_usd(part_ids=[part.pk for part, _, _ in lines])
    return {part.pk: current.get(part.pk) for part, _, _ in lines}


def build_total_usd(*, build: Build, quoted: bool = False) -> Decimal | None:
    """Sum of quantity x unit price: current prices, or with `quoted` the prices the build's
    source quotes (seed builds). None when a part has no price."""
    lines = build_lines(build=build)
    units = _unit_prices(lines, quoted=quoted)
    total = Decimal(0)
    for part, quantity, _ in lines:
        unit = units[part.pk]
        if unit is None:
            return None
        total += quantity * unit
    return total


def build_priced_lines(*, build: Build) -> dict[str, Any]:
    """A JSON-safe summary of the build: its parts with current unit prices and totals."""
    lines = build_lines(build=build)
    units = _unit_prices(lines, quoted=False)
    total = build_total_usd(build=build)
    quoted = build_total_usd(build=build, quoted=True)
    return {
        "id": build.pk,
        "slug": build.slug or None,
        "name": build.name,
        "origin": build.origin,
        "price_usd": None if total is None else float(total),
        "quoted_price_usd": None if quoted is None else float(quoted),
        "parts": [
            {
                "part_id": part.pk,
                "kind": part.kind,
                "name": part.name,
                "quantity": quantity,
                "unit_usd": None if units[part.pk] is None else float(units[part.pk]),  # type: ignore[arg-type]
            }
            for part, quantity, _ in lines
        ],
    }


def build_hardware(*, build: Build) -> HardwareDict | SystemHardwareDict:
    """The engine's inline hardware form:
    {"gpu": {"name", "vram_gb", "bf16_tflops", "pcie_gbps", "fp4", "mem_gbps", "fp16_tflops"
     where the part has it},
     "gpu_count", "nvme_gbps", "ram_gb", "pinned_gb",
     "cpu": {"name", "cores", "mem_gbps", "flops_per_core_cycle", "ghz"}, "link_gbps"};
    for a whole system {"unified": {"name", "mem_gb", "mem_gbps", "tflops"}, "ram_gb"}.
    Raises BuildIncompatibleError when the build has compatibility errors."""
    spec = build_spec(build=build)
    errors = build_errors(spec)
    if errors:
        raise BuildIncompatibleError(errors)
    return spec.any_hardware()


_DETAIL_NAMES = tuple(str(model._meta.model_name) for model in PART_MODELS.values())


def part_detailed_map(*, part_ids: Sequence[int]) -> dict[int, Part]:
    """The parts with these ids, each with its kind-specific row joined (`part.detail` then
    needs no query of its own): one query instead of one a part."""
    return Part.objects.select_related(*_DETAIL_NAMES).in_bulk(list(part_ids))


def catalog_snapshot(*, with_unpriced: bool = False) -> CatalogSnapshot:
    """Every part and its current USD price, for the candidate generator (`with_unpriced`:
    parts without a price may be chosen too, after the priced ones)."""
    return CatalogSnapshot(
        parts=parts_by_kind(),
        prices_usd=current_prices_usd(),
        with_unpriced=with_unpriced,
        estimated=part_estimated_ids(),
    )


def candidate_build_list(*, with_unpriced: bool = False, **options: Any) -> list[Candidate]:
    """Candidate builds from the current catalog (see catalog.generator.candidate_builds
    for the options: gpu_counts, storage_tiers, ram_tiers_gb)."""
    return candidate_builds(catalog_snapshot(with_unpriced=with_unpriced), **options)


def system_candidate_list(*, with_unpriced: bool = False) -> list[Candidate]:
    """Every priced whole system (unified memory; with `with_unpriced`, every system), each
    a candidate build by itself."""
    return system_candidates(catalog_snapshot(with_unpriced=with_unpriced))


def part_detail_list(*, model: type[Part]) -> QuerySet[Part]:
    """Parts of one kind-specific model, by name (their current prices:
    `part_current_price_map`)."""
    return model.objects.order_by("name")

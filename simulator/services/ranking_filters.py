"""What a buyer can take: the filters of a ranking view (docs/catalog.md, "Filters for
every kind of buyer"). Prices: estimates, stale, new only, one region's offers. Builds: a
limit on rated power (GPU board power plus CPU TDP, or a whole system's published maximum)
and on the enclosure's size. Like the budget, they choose how a finished ranking is shown."""

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from catalog.models import CaseSize, Region
from catalog.selectors import PartFacts, part_ranking_facts
from simulator.models import SimulationRun
from simulator.ranking import Row

# The regions a buyer may ask prices from, in words (worldwide offers count in each).
REGION_WORDS: dict[str, str] = {Region.US: "the US", Region.EU: "the EU", Region.UK: "the UK"}
BUYER_REGIONS = [(region, Region(region).label) for region in REGION_WORDS]
CASE_SIZES = CaseSize.choices
# A limit on a build's rated power: one machine on a household circuit draws at most a few
# kW; the bound only refuses typos (a figure in mW), it is no physical claim.
MAX_POWER_W = 100_000
# Enclosures smallest first: a size limit keeps every build whose enclosure comes no later.
CASE_SIZE_ORDER = [size.value for size in CaseSize]


@dataclass(frozen=True, slots=True, kw_only=True)
class RankingFilters:
    """Which prices may price a row and which builds a buyer can take.

    Prices: the planner's estimates too (`include_estimates`); prices older than
    PRICE_STALE_AFTER_DAYS left out (`exclude_stale`); prices of new parts only
    (`new_only`: no used or refurbished); prices offered in one region (`region`, with
    worldwide offers). Builds: at most `power_w_max` watts of rated power (GPU board power
    plus CPU TDP, or a whole system's maximum) and an enclosure no bigger than
    `case_size_max` (CaseSize, smallest first)."""

    include_estimates: bool = False
    exclude_stale: bool = False
    new_only: bool = False
    region: str | None = None
    power_w_max: int | None = None
    case_size_max: str | None = None

    @classmethod
    def of_run(cls, run: SimulationRun) -> "RankingFilters":
        return cls.of_options(run.input.get("ranking", {}))

    @classmethod
    def of_options(cls, options: Mapping[str, Any]) -> "RankingFilters":
        """The filters of a ranking's options, a GET /api/rankings query or a ranking
        form's cleaned data."""
        return cls(
            include_estimates=bool(options.get("include_estimates", False)),
            exclude_stale=bool(options.get("exclude_stale", False)),
            new_only=bool(options.get("new_only", False)),
            # A form's empty choice ("any region", "any size") is no filter.
            region=options.get("region") or None,
            power_w_max=options.get("power_w_max"),
            case_size_max=options.get("case_size_max") or None,
        )

    def asdict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def digest(self) -> str:
        """A short key of these filters, for cached views."""
        canonical = json.dumps(self.asdict(), sort_keys=True)
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]

    def price_words(self) -> str:
        """The price kinds that count, in words ("a new price in the EU"), for reasons."""
        kind = "new " if self.new_only else ""
        where = f" in {REGION_WORDS[self.region]}" if self.region else ""
        return f"{kind}price{where}"


def _build_facts(row: Row, facts: Mapping[int, PartFacts]) -> PartFacts:
    """The build's own facts from its parts': rated power summed over its powered parts
    (None when one of them has no published figure), the enclosure's size class."""
    power_w: int | None = 0
    case_size: str | None = None
    for part in row["parts"]:
        fact = facts.get(part["part_id"])
        if fact is None:
            continue
        if part.get("kind") in POWERED_KINDS:
            power_w = None if power_w is None or fact.power_w is None else (
                power_w + fact.power_w * part["quantity"]
            )  # fmt: skip
        if part.get("kind") in ENCLOSURE_KINDS:
            case_size = fact.case_size
    return PartFacts(power_w=power_w, case_size=case_size)


# The parts whose rated power a build's figure adds up (what the PSU rule sizes against),
# and those that are its enclosure.
POWERED_KINDS = frozenset({"gpu", "cpu", "system"})
ENCLOSURE_KINDS = frozenset({"case", "system"})


@dataclass(frozen=True, slots=True)
class Sifted:
    """The rows a buyer can take under the power and case-size limits, and how many of
    the others were left out and why."""

    rows: list[Row]
    over_power: int = 0
    power_unknown: tuple[str, ...] = ()
    too_big: int = 0
    size_unknown: tuple[str, ...] = ()


def _left_out_by(build: PartFacts, filters: RankingFilters) -> str | None:
    """Which of the buyer's limits leaves the build out (None: none does)."""
    if filters.power_w_max is not None:
        if build.power_w is None:
            return "power_unknown"
        if build.power_w > filters.power_w_max:
            return "over_power"
    if filters.case_size_max is not None:
        if build.case_size is None:
            return "size_unknown"
        if CASE_SIZE_ORDER.index(build.case_size) > CASE_SIZE_ORDER.index(filters.case_size_max):
            return "too_big"
    return None


def ranking_sift(rows: list[Row], filters: RankingFilters) -> Sifted:
    """Each row with its `power_w` and `case_size`, less those over the buyer's limits
    (a build whose figure is not published is left out under a limit, and named)."""
    part_ids = sorted({part["part_id"] for row in rows for part in row["parts"]})
    facts = part_ranking_facts(part_ids=part_ids)
    kept: list[Row] = []
    left_out: dict[str, list[str]] = {
        "over_power": [], "power_unknown": [], "too_big": [], "size_unknown": []
    }  # fmt: skip
    for row in rows:
        build = _build_facts(row, facts)
        why = _left_out_by(build, filters)
        if why is None:
            kept.append({**row, "power_w": build.power_w, "case_size": build.case_size})
        else:
            left_out[why].append(row["name"])
    return Sifted(
        rows=kept,
        over_power=len(left_out["over_power"]),
        power_unknown=tuple(dict.fromkeys(left_out["power_unknown"])),
        too_big=len(left_out["too_big"]),
        size_unknown=tuple(dict.fromkeys(left_out["size_unknown"])),
    )


def left_out_note(sifted: Sifted, filters: RankingFilters) -> str:
    """The builds the buyer's power and size limits left out, in words."""
    notes = []
    if sifted.over_power:
        notes.append(f"{sifted.over_power} draw more than {filters.power_w_max:,} W")
    if sifted.power_unknown:
        notes.append(
            "no published power figure for " + ", ".join(sifted.power_unknown[:3])
            + (" and others" if len(sifted.power_unknown) > 3 else "")
        )  # fmt: skip
    if sifted.too_big:
        size = CaseSize(str(filters.case_size_max)).label
        notes.append(f"{sifted.too_big} need an enclosure bigger than a {size}")
    if sifted.size_unknown:
        notes.append("no published case size for " + ", ".join(sifted.size_unknown[:3]))
    if not notes:
        return ""
    return f" Left out by your limits: {'; '.join(notes)}."

"""The candidate generator: cheapest compatible parts per tier, valid, without duplicates,
counts over the shipped catalog, and the fast search (`candidate_builds`) giving the answers
of the plain one (`cheapest_build` of every GPU, count, tier and RAM size)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog import compatibility
from catalog.compatibility import Problem, Severity, build_problems
from catalog.generator import (
    GPU_COUNTS,
    RAM_TIERS_GB,
    Candidate,
    CatalogSnapshot,
    StorageTier,
    candidate_builds,
    cheapest_build,
)
from catalog.models import Build, BuildOrigin, Gpu, Part
from catalog.selectors import candidate_build_list, catalog_snapshot
from catalog.spec import BuildSpec
from tests.catalog.factories import (
    CaseFactory,
    CpuFactory,
    GpuFactory,
    MotherboardFactory,
    NvmeDriveFactory,
    PsuFactory,
    RamKitFactory,
)
from tests.catalog.strategies import KINDS


def snapshot(
    priced: Sequence[tuple[Part, int | str | None]], *, with_unpriced: bool = False
) -> CatalogSnapshot:
    """Unsaved parts with ids and prices (None: no price): the generator never touches the
    database."""
    parts: dict[str, list[Part]] = {}
    prices: dict[int, Decimal] = {}
    for pk, (part, usd) in enumerate(priced, start=1):
        part.pk = part.id = pk
        parts.setdefault(part.kind, []).append(part)
        if usd is not None:
            prices[pk] = Decimal(usd)
    return CatalogSnapshot(parts=parts, prices_usd=prices, with_unpriced=with_unpriced)


def small_catalog() -> list[tuple[Part, int]]:
    return [
        (GpuFactory.build(name="GPU"), 1800),
        (CpuFactory.build(name="cheap CPU", tdp_w=65), 180),
        (CpuFactory.build(name="dear CPU", tdp_w=65), 500),
        (MotherboardFactory.build(name="x8/x8 board"), 320),
        (MotherboardFactory.build(name="one-slot board", lane_split={"1": [16]}), 150),
        (RamKitFactory.build(name="32 GB kit"), 200),
        (NvmeDriveFactory.build(name="Gen4 drive"), 170),
        (PsuFactory.build(name="850 W", watts=850), 120),
        (PsuFactory.build(name="1600 W", watts=1600), 230),  # below 2 x 850 W
        (CaseFactory.build(name="mid tower"), 80),
    ]


def test_it_picks_the_cheapest_compatible_parts() -> None:
    catalog = snapshot(small_catalog())
    gpu = catalog.parts["gpu"][0]
    best = cheapest_build(catalog, gpu=gpu, count=1, tier=StorageTier.GEN4_X1, ram_gb=32)  # type: ignore[arg-type]
    assert best is not None
    names = {part.name for part, _ in best.spec.lines()}
    assert names == {
        "GPU",
        "cheap CPU",
        "one-slot board",
        "32 GB kit",
        "Gen4 drive",
        "850 W",
        "mid tower",
    }
    assert best.total_usd == Decimal(1800 + 180 + 150 + 200 + 170 + 120 + 80)


def test_it_moves_to_the_board_and_psu_that_two_gpus_need() -> None:
    catalog = snapshot(small_catalog())
    gpu = catalog.parts["gpu"][0]
    best = cheapest_build(catalog, gpu=gpu, count=2, tier=StorageTier.GEN4_X1, ram_gb=32)  # type: ignore[arg-type]
    assert best is not None
    assert (best.spec.motherboard.name, best.spec.psu.name) == ("x8/x8 board", "1600 W")  # type: ignore[union-attr]


def test_it_finds_nothing_for_more_gpus_than_any_board_takes() -> None:
    catalog = snapshot(small_catalog())
    gpu = catalog.parts["gpu"][0]
    assert cheapest_build(catalog, gpu=gpu, count=3, tier=StorageTier.GEN4_X1, ram_gb=32) is None  # type: ignore[arg-type]


def test_it_skips_tiers_the_catalog_cannot_supply() -> None:
    candidates = candidate_builds(snapshot(small_catalog()))
    # No Gen5 drive, no card; 128 GB would take 8 modules of the 32 GB kit in 4 slots.
    assert {(c.spec.gpu_count, c.storage_tier, c.ram_gb) for c in candidates} == {
        (count, tier, ram_gb)
        for count in (1, 2)
        for tier in (StorageTier.GEN4_X1, StorageTier.GEN4_RAID0_X4)
        for ram_gb in (32, 64)
    }


@pytest.fixture
def shipped_candidates(catalog_fixtures: None) -> list[Candidate]:
    return candidate_build_list()


@pytest.mark.django_db
def test_no_two_candidates_share_their_parts(shipped_candidates: list[Candidate]) -> None:
    signatures = [c.signature for c in shipped_candidates]
    assert len(signatures) == len(set(signatures))


@pytest.mark.django_db
def test_every_candidate_passes_every_rule(shipped_candidates: list[Candidate]) -> None:
    errors = [
        (c.name, p.message)
        for c in shipped_candidates
        for p in build_problems(c.spec)
        if p.severity == Severity.ERROR
    ]
    assert errors == []


def gpu_of(candidate: Candidate) -> Gpu:
    assert candidate.spec.gpu is not None
    return candidate.spec.gpu


@pytest.mark.django_db
def test_every_gpu_has_candidates_for_one_to_three_gpus(
    shipped_candidates: list[Candidate],
) -> None:
    counts = {(gpu_of(c).name, c.spec.gpu_count) for c in shipped_candidates}
    gpus = {gpu_of(c).name for c in shipped_candidates}
    assert len(gpus) >= 15
    assert [(g, n) for g in gpus for n in (1, 2, 3) if (g, n) not in counts] == []


@pytest.mark.django_db
def test_passively_cooled_gpus_are_built_only_into_the_rack_chassis(
    shipped_candidates: list[Candidate],
) -> None:
    cases = {
        (gpu_of(c).passive_cooling, c.spec.case.size if c.spec.case else "")
        for c in shipped_candidates
    }
    assert {size for passive, size in cases if passive is True} == {"rack"}
    # GPUs with a fan, or whose cooling no source states, go in towers too.
    assert {"mid_tower", "full_tower"} <= {size for passive, size in cases if passive is not True}


@pytest.mark.django_db
def test_four_gpus_need_cards_of_at_most_two_slots(shipped_candidates: list[Candidate]) -> None:
    # No case in the catalog has the 12 expansion slots four 3-slot cards need.
    widths = {gpu_of(c).slot_width for c in shipped_candidates if c.spec.gpu_count == 4}
    assert widths == {1, 2}


@pytest.mark.django_db
def test_eight_gpu_candidates_exist_only_on_the_8_slot_server(
    shipped_candidates: list[Candidate],
) -> None:
    boards = {
        c.spec.motherboard.name if c.spec.motherboard else ""
        for c in shipped_candidates
        if c.spec.gpu_count == 8
    }
    assert boards == {"ASRock Rack TURIN2D24G-2L+ (4U8G-TURIN2 system board)"}


@pytest.mark.django_db
def test_the_shipped_catalog_yields_candidates_in_every_storage_tier(
    shipped_candidates: list[Candidate],
) -> None:
    tiers = Counter(c.storage_tier for c in shipped_candidates)
    assert set(tiers) == set(StorageTier)


@pytest.mark.django_db
def test_the_cheapest_single_4090_candidate_is_no_dearer_than_seed_build_a(
    shipped_candidates: list[Candidate],
) -> None:
    totals = [
        c.total_usd
        for c in shipped_candidates
        if (gpu_of(c).name, c.spec.gpu_count, c.storage_tier, c.ram_gb)
        == ("RTX 4090", 1, StorageTier.GEN4_X1, 32)
    ]
    priced = [total for total in totals if total is not None]
    assert len(priced) == len(totals)  # without `with_unpriced`, every candidate is priced
    assert min(priced) <= Decimal(2700)


@pytest.mark.django_db
def test_seed_builds_stay_beside_the_candidates(shipped_candidates: list[Candidate]) -> None:
    assert Build.objects.filter(origin=BuildOrigin.SEED).count() == 4


def _with_unpriced(catalog: CatalogSnapshot, *parts: Part) -> CatalogSnapshot:
    """The snapshot a ranking plans from, with `parts` in the catalog but never priced."""
    by_kind = {kind: list(kind_parts) for kind, kind_parts in catalog.parts.items()}
    for pk, part in enumerate(parts, start=1000):
        part.pk = part.id = pk
        by_kind.setdefault(part.kind, []).append(part)
    return CatalogSnapshot(parts=by_kind, prices_usd=catalog.prices_usd, with_unpriced=True)


def test_a_gpu_without_a_price_is_planned_with_no_total() -> None:
    unpriced = GpuFactory.build(name="new GPU")
    planned = candidate_builds(_with_unpriced(snapshot(small_catalog()), unpriced))

    new = [c for c in planned if c.spec.gpu is unpriced]
    assert new
    assert all(c.total_usd is None for c in new)
    assert all(c.total_usd is not None for c in planned if c.spec.gpu is not unpriced)
    assert unpriced not in {c.spec.gpu for c in candidate_builds(snapshot(small_catalog()))}


def test_planning_takes_an_unpriced_part_only_where_no_priced_one_fits() -> None:
    # An unpriced CPU would fit every board; the priced one is still chosen.
    unpriced_cpu = CpuFactory.build(name="unpriced CPU", tdp_w=65)
    planned = candidate_builds(_with_unpriced(snapshot(small_catalog()), unpriced_cpu))

    assert {c.spec.cpu.name for c in planned if c.spec.cpu} == {"cheap CPU"}
    assert all(c.total_usd is not None for c in planned)


# --- the fast search against the plain one ---------------------------------------------
def plain_candidates(catalog: CatalogSnapshot, **options: Any) -> list[Candidate]:
    """What `candidate_builds` promises, done plainly: `cheapest_build` of each GPU, count,
    storage tier and RAM size in that order, the first of each set of parts kept."""
    found: dict[str, Candidate] = {}
    for gpu in catalog.priced("gpu"):
        for count in options.get("gpu_counts", GPU_COUNTS):
            for tier in options.get("storage_tiers", tuple(StorageTier)):
                for ram_gb in options.get("ram_tiers_gb", RAM_TIERS_GB):
                    best = cheapest_build(catalog, gpu=gpu, count=count, tier=tier, ram_gb=ram_gb)  # type: ignore[arg-type]
                    if best is not None:
                        found.setdefault(best.signature, best)
    return list(found.values())


def answers(candidates: list[Candidate]) -> list[tuple[object, ...]]:
    """What a ranking reads of each candidate, in order; prices to the digit."""
    return [
        (c.signature, c.name, str(c.total_usd), c.storage_tier, c.ram_gb, c.warnings)
        for c in candidates
    ]


def test_the_fast_search_answers_as_cheapest_build_on_the_small_catalog() -> None:
    catalog = snapshot(small_catalog())
    assert answers(candidate_builds(catalog)) == answers(plain_candidates(catalog))


def test_it_keeps_the_lane_split_warning_of_the_two_gpu_builds() -> None:
    two_gpus = [c for c in candidate_builds(snapshot(small_catalog())) if c.spec.gpu_count == 2]
    assert two_gpus
    assert {tuple(p.rule for p in c.warnings) for c in two_gpus} == {("lane_split",)}


def test_a_rule_the_picker_does_not_know_still_moves_the_build_to_the_next_board(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def not_the_one_slot_board(spec: BuildSpec) -> list[Problem]:
        if spec.motherboard is None or spec.motherboard.name != "one-slot board":
            return []
        return [Problem("test_rule", Severity.ERROR, "Not on this board.")]

    monkeypatch.setattr(compatibility, "RULES", [*compatibility.RULES, not_the_one_slot_board])
    catalog = snapshot(small_catalog())
    candidates = candidate_builds(catalog)

    assert {c.spec.motherboard.name for c in candidates if c.spec.motherboard} == {"x8/x8 board"}
    assert answers(candidates) == answers(plain_candidates(catalog))


# Equal prices make ties; "150" and "150.00" are equal in value, not in digits.
PRICES = ("99.50", "150", "150.00", "400", "1000")


@st.composite
def catalogs(draw: st.DrawFn) -> CatalogSnapshot:
    """The factories' working build, always priced, and up to three more parts of each kind,
    some without a price."""
    priced: list[tuple[Part, str | None]] = []
    for factory, strategy in KINDS:
        priced.append((draw(st.builds(factory.build)), draw(st.sampled_from(PRICES))))
        others = draw(st.lists(strategy, max_size=3))
        priced += [(part, draw(st.sampled_from((None, *PRICES)))) for part in others]
    return snapshot(priced, with_unpriced=draw(st.booleans()))


@settings(max_examples=80, deadline=None)
@given(catalogs())
def test_the_fast_search_answers_as_cheapest_build_on_any_catalog(
    catalog: CatalogSnapshot,
) -> None:
    candidates = candidate_builds(catalog)
    assert answers(candidates) == answers(plain_candidates(catalog))
    assert [c.name for c in candidates if compatibility.build_errors(c.spec)] == []


@pytest.mark.django_db
def test_the_fast_search_answers_as_cheapest_build_on_the_shipped_catalog(
    catalog_fixtures: None,
) -> None:
    catalog = catalog_snapshot(with_unpriced=True)  # what a ranking plans from
    counts = tuple(range(1, 9))
    assert answers(candidate_builds(catalog, gpu_counts=counts)) == answers(
        plain_candidates(catalog, gpu_counts=counts)
    )

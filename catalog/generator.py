"""Candidate builds: for each GPU model and count (1-4, and 8 where a board takes eight),
each storage tier and each RAM size, the cheapest compatible build.

Supporting parts are chosen greedily per board (cheapest CPU, RAM, storage, case, then
the cheapest PSU that carries the result) with the compatibility rules' own tests, and the
cheapest valid board wins; every candidate passes every compatibility rule (warnings such
as an x8/x8 split are allowed). The generator is pure: it reads a `CatalogSnapshot`, never
the database.

`cheapest_build` is the readable specification: a build assembled on every board and every
rule run on each. `candidate_builds` gives its answers for every GPU, count and tier at once
(`_Search`): each part is chosen once for what it depends on, the boards are ranked by the
lines in which their builds differ (a build's cost is the sum of its lines), and the full
rule set runs only on the cheapest, down the ranking until one passes."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from functools import cached_property
from typing import TypeVar

from catalog.compatibility import (
    Problem,
    build_problems,
    case_fits,
    case_psu_error,
    cpu_fits_board,
    has_error,
    psu_headroom_error,
    ram_fits_board,
    storage_fits,
)
from catalog.hardware import NVME_DRIVE_CAP_GBPS_BY_GEN
from catalog.models import (
    Case,
    Cpu,
    Gpu,
    Motherboard,
    NvmeCard,
    NvmeDrive,
    Part,
    PartKind,
    Psu,
    PsuFormFactor,
    RamKit,
    System,
)
from catalog.spec import BuildSpec, HardwareDict, SystemHardwareDict

GPU_COUNTS = (1, 2, 3, 4, 8)
RAM_TIERS_GB = (32, 64, 128, 256, 512)
# Clusters of one whole system over its own network port, as people build them (kyuz0's two
# Framework Desktops over llama.cpp RPC): two machines, port to port on one cable. More would
# need a switch, which the catalog does not price.
CLUSTER_SIZES = (2,)
# Desktop builds may pair two ATX supplies; server chassis take up to four modules.
MAX_PSUS = {PsuFormFactor.ATX: 2, PsuFormFactor.SERVER: 4}


# A line's or a build's sort key: (penalty, cost of the priced lines); see cost_order. The
# penalty counts lines priced only by the planner's estimate, and lines with no price at all
# at this weight: any number of estimates (a build has far fewer lines) weighs less than one
# missing price.
Order = tuple[int, Decimal]
UNPRICED_PENALTY = 1000
K = TypeVar("K")
V = TypeVar("V")


class StorageTier(StrEnum):
    """The storage set-ups of seed 000 / reference-model.md §8."""

    GEN4_X1 = "gen4_x1"
    GEN5_X1 = "gen5_x1"
    GEN4_RAID0_X4 = "gen4_raid0_x4"
    GEN5_AIC_X4 = "gen5_aic_x4"


@dataclass(frozen=True, slots=True)
class TierShape:
    gen: int
    drives: int
    on_card: bool
    label: str


TIER_SHAPES = {
    StorageTier.GEN4_X1: TierShape(4, 1, False, "1x Gen4 NVMe"),
    StorageTier.GEN5_X1: TierShape(5, 1, False, "1x Gen5 NVMe"),
    StorageTier.GEN4_RAID0_X4: TierShape(4, 4, False, "Gen4 RAID0 x4"),
    StorageTier.GEN5_AIC_X4: TierShape(5, 4, True, "Gen5 AIC x4"),
}


@dataclass(frozen=True)
class CatalogSnapshot:
    """Parts (kind-specific models) by kind and their current USD prices by part id.

    With `with_unpriced` (planning a ranking, whose prices are read later) a part without a
    current price may be chosen too, but only after every priced part that fits: a new part
    is planned before it is priced, and its builds show as unpriced until it is."""

    parts: dict[str, list[Part]]
    prices_usd: dict[int, Decimal]
    with_unpriced: bool = False
    # Parts whose current price is the planner's estimate: chosen only after every part of
    # the same role with a published price, so that a default ranking (published prices
    # only) can price the build.
    estimated: frozenset[int] = frozenset()

    def priced(self, kind: str) -> list[Part]:
        """Parts of a kind a build may use, cheapest first (ties by id); with
        `with_unpriced`, the parts without a price follow, by id."""
        parts = self.parts.get(kind, [])
        if not self.with_unpriced:
            parts = [part for part in parts if part.pk in self.prices_usd]
        return sorted(parts, key=lambda part: (*self.line_order(part, 1), part.pk))

    def line_order(self, part: Part, count: int) -> Order:
        """Sort key of `count` of a part: lines with a published price first, then those
        priced by an estimate, then unpriced ones; within each, by cost."""
        price = self.prices_usd.get(part.pk)
        if price is None:
            return UNPRICED_PENALTY, Decimal(0)
        return int(part.pk in self.estimated), price * count

    def cost(self, spec: BuildSpec) -> Decimal | None:
        """The build's price; None when a part has no price (never an estimate)."""
        return self.lines_cost([(part.pk, count) for part, count in spec.lines()])

    def lines_cost(self, lines: list[tuple[int, int]]) -> Decimal | None:
        """The price of (part id, quantity) lines; None when a part has no price."""
        if any(pk not in self.prices_usd for pk, _ in lines):
            return None
        return sum((self.prices_usd[pk] * count for pk, count in lines), Decimal(0))

    def cost_order(self, spec: BuildSpec) -> Order:
        """Sort key of builds: fewer unpriced parts first, then fewer estimated ones, then
        the cost of the priced ones."""
        orders = [self.line_order(part, count) for part, count in spec.lines()]
        return sum(unpriced for unpriced, _ in orders), sum((c for _, c in orders), Decimal(0))


@dataclass(frozen=True)
class Candidate:
    """A build to rank. A whole system (unified memory) has no storage tier."""

    spec: BuildSpec
    total_usd: Decimal | None  # None: a part has no current price (planning only)
    storage_tier: StorageTier | None
    ram_gb: int
    warnings: tuple[Problem, ...] = field(default=())

    @cached_property
    def signature(self) -> str:
        """sha256 of the sorted (part id, quantity) pairs: equal parts, equal signature."""
        pairs = sorted((part.pk, count) for part, count in self.spec.lines())
        return hashlib.sha256(repr(pairs).encode()).hexdigest()

    @property
    def name(self) -> str:
        spec = self.spec
        if spec.system is not None:
            if spec.system_count == 1:
                return spec.system.name
            network = f"{spec.system.network_gbit_per_s:g} Gbit/s"
            return f"{spec.system_count}x {spec.system.name} | {network} network"
        assert spec.gpu is not None
        assert self.storage_tier is not None
        assert spec.motherboard is not None
        tier = TIER_SHAPES[self.storage_tier].label
        gpus = f"{spec.gpu_count}x {spec.gpu.name}"
        return f"{gpus} | {spec.motherboard.name} | {self.ram_gb} GB | {tier}"

    def hardware(self) -> HardwareDict | SystemHardwareDict:
        return self.spec.any_hardware()


def _memo(table: dict[K, V], key: K, make: Callable[[], V]) -> V:
    """`table[key]`, made on first use."""
    if key not in table:
        table[key] = make()
    return table[key]


@dataclass(frozen=True, slots=True)
class _Housing:
    """The case and PSUs one board takes for one GPU, count and add-in card."""

    case: Case
    psu: Psu
    psu_count: int
    order: Order  # of the case and PSU lines


class _Picker:
    """Cheapest compatible supporting parts for one board, each chosen once. The memos key
    parts by id(): they are the snapshot's own objects, alive as long as the picker, and
    Django's pk-based hash would cost more than the lookups save."""

    def __init__(self, snapshot: CatalogSnapshot) -> None:
        self.snapshot = snapshot
        self.cpus: list[Cpu] = snapshot.priced(PartKind.CPU)  # type: ignore[assignment]
        self.kits: list[RamKit] = snapshot.priced(PartKind.RAM_KIT)  # type: ignore[assignment]
        self.drives: list[NvmeDrive] = snapshot.priced(PartKind.NVME_DRIVE)  # type: ignore[assignment]
        self.cards: list[NvmeCard] = snapshot.priced(PartKind.NVME_CARD)  # type: ignore[assignment]
        self.cases: list[Case] = snapshot.priced(PartKind.CASE)  # type: ignore[assignment]
        self.psus: list[Psu] = snapshot.priced(PartKind.PSU)  # type: ignore[assignment]
        self._orders: dict[tuple[int, int], Order] = {}
        self._cpus: dict[int, Cpu | None] = {}
        self._rams: dict[tuple[int, int], tuple[RamKit, int] | None] = {}
        self._housings: dict[tuple[int, int, int, int], _Housing | None] = {}
        self._psus: dict[tuple[int, int], tuple[Psu, int] | None] = {}

    def order(self, part: Part, count: int) -> Order:
        return _memo(self._orders, (id(part), count), lambda: self.snapshot.line_order(part, count))

    def cpu(self, board: Motherboard) -> Cpu | None:
        return _memo(self._cpus, id(board), lambda: self._cpu(board))

    def _cpu(self, board: Motherboard) -> Cpu | None:
        return next((cpu for cpu in self.cpus if cpu_fits_board(cpu, board)), None)

    def ram(self, board: Motherboard, ram_gb: int) -> tuple[RamKit, int] | None:
        return _memo(self._rams, (id(board), ram_gb), lambda: self._ram(board, ram_gb))

    def _ram(self, board: Motherboard, ram_gb: int) -> tuple[RamKit, int] | None:
        options = [
            (kit, ram_gb // kit.capacity_gb)
            for kit in self.kits
            if ram_gb % kit.capacity_gb == 0
            and ram_fits_board(kit, ram_gb // kit.capacity_gb, board)
        ]
        return min(options, key=lambda o: (*self.order(*o), o[0].pk), default=None)

    def storage(self, tier: StorageTier) -> tuple[NvmeDrive, int, NvmeCard | None] | None:
        shape = TIER_SHAPES[tier]
        # A tier means full-speed drives of its generation (reference §8 figures).
        full_speed = NVME_DRIVE_CAP_GBPS_BY_GEN[shape.gen]
        drive = next(
            (d for d in self.drives if d.pcie_gen == shape.gen and d.seq_read_gbps >= full_speed),
            None,
        )
        if drive is None:
            return None
        if not shape.on_card:
            return drive, shape.drives, None
        card = next(
            (c for c in self.cards if c.pcie_gen >= shape.gen and c.m2_slots >= shape.drives),
            None,
        )
        return None if card is None else (drive, shape.drives, card)

    def housing(
        self, board: Motherboard, gpu: Gpu, count: int, card: NvmeCard | None
    ) -> _Housing | None:
        """The cheapest case, then the cheapest PSUs that carry the GPUs and CPUs in it."""
        key = (id(board), id(gpu), count, id(card))
        return _memo(self._housings, key, lambda: self._housing(board, gpu, count, card))

    def _housing(
        self, board: Motherboard, gpu: Gpu, count: int, card: NvmeCard | None
    ) -> _Housing | None:
        fits = (
            c for c in self.cases if case_fits(c, board=board, gpu=gpu, gpu_count=count, card=card)
        )
        case, cpu = next(fits, None), self.cpu(board)
        if case is None or cpu is None:
            return None
        power = self.psu(case, gpu.tdp_w * count + cpu.tdp_w * board.cpu_sockets)
        if power is None:
            return None
        return _Housing(case, *power, _add(self.order(case, 1), self.order(*power)))

    def psu(self, case: Case, tdp_sum_w: int) -> tuple[Psu, int] | None:
        return _memo(self._psus, (id(case), tdp_sum_w), lambda: self._psu(case, tdp_sum_w))

    def _psu(self, case: Case, tdp_sum_w: int) -> tuple[Psu, int] | None:
        options = [
            (psu, count)
            for psu in self.psus
            if case_psu_error(case, psu) is None
            for count in range(1, MAX_PSUS[PsuFormFactor(psu.psu_form_factor)] + 1)
            if psu_headroom_error(psu.watts * count, tdp_sum_w) is None
        ]
        return min(options, key=lambda o: (*self.order(*o), o[1], o[0].pk), default=None)


def _add(a: Order, b: Order) -> Order:
    return a[0] + b[0], a[1] + b[1]


def _assemble(
    picker: _Picker, board: Motherboard, gpu: Gpu, count: int, tier: StorageTier, ram_gb: int
) -> BuildSpec | None:
    cpu, ram, storage = picker.cpu(board), picker.ram(board, ram_gb), picker.storage(tier)
    if cpu is None or ram is None or storage is None:
        return None
    housing = picker.housing(board, gpu, count, storage[2])
    if housing is None:
        return None
    return _spec(gpu, count, board, cpu, ram, storage, housing)


def _spec(
    gpu: Gpu, count: int, board: Motherboard, cpu: Cpu, ram: tuple[RamKit, int],
    storage: tuple[NvmeDrive, int, NvmeCard | None], housing: _Housing,
) -> BuildSpec:  # fmt: skip
    drive, drives, card = storage
    return BuildSpec(
        gpu=gpu, gpu_count=count, cpu=cpu, cpu_count=board.cpu_sockets, motherboard=board,
        ram_kit=ram[0], ram_kit_count=ram[1], nvme_drive=drive, nvme_count=drives,
        nvme_card=card, nvme_card_count=1 if card else 0, psu=housing.psu,
        psu_count=housing.psu_count, case=housing.case,
    )  # fmt: skip


def cheapest_build(
    snapshot: CatalogSnapshot,
    *,
    gpu: Gpu,
    count: int,
    tier: StorageTier,
    ram_gb: int,
    picker: _Picker | None = None,
) -> Candidate | None:
    """The cheapest build with no compatibility error for this GPU, count and tiers (on a
    tie, the first board in price order)."""
    picker = picker or _Picker(snapshot)
    cards = count + (1 if TIER_SHAPES[tier].on_card else 0)
    best: Candidate | None = None
    best_order: Order | None = None
    for board in snapshot.priced(PartKind.MOTHERBOARD):
        assert isinstance(board, Motherboard)
        if board.lanes_for(cards) is None:
            continue
        spec = _assemble(picker, board, gpu, count, tier, ram_gb)
        if spec is None:
            continue
        problems = build_problems(spec)
        if has_error(problems):
            continue
        order = snapshot.cost_order(spec)
        if best_order is None or order < best_order:
            best_order = order
            best = Candidate(spec, snapshot.cost(spec), tier, ram_gb, tuple(problems))
    return best


@dataclass(frozen=True, slots=True)
class _Fit:
    """A board's build for one GPU, count and storage tier, RAM aside."""

    index: int  # the board's place in price order: the first board wins a tie
    board: Motherboard
    cpu: Cpu
    housing: _Housing
    order: Order  # of the lines in which boards differ, RAM aside: board, CPUs, case, PSUs


# Sorted (part id, quantity) pairs: what `Candidate.signature` digests.
PartsKey = tuple[tuple[int, int], ...]


class _Search:
    """`cheapest_build` for every GPU, count, tier and RAM size at once."""

    def __init__(self, snapshot: CatalogSnapshot) -> None:
        self.snapshot = snapshot
        self.picker = picker = _Picker(snapshot)
        boards: list[Motherboard] = snapshot.priced(PartKind.MOTHERBOARD)  # type: ignore[assignment]
        # The boards some CPU fits, in price order, with the order of their board and CPU lines.
        self.boards = [
            (board, cpu, _add(picker.order(board, 1), picker.order(cpu, board.cpu_sockets)))
            for board in boards
            if (cpu := picker.cpu(board)) is not None
        ]
        self.storage = {tier: picker.storage(tier) for tier in StorageTier}
        self._takes: dict[tuple[int, int, StorageTier], bool] = {}
        self._rams: dict[int, list[tuple[tuple[RamKit, int], Order] | None]] = {}
        self._pks: dict[int, int] = {}

    def takes(self, index: int, count: int, tier: StorageTier) -> bool:
        """The board has a lane split for the cards and holds the tier's drives beside them."""
        return _memo(
            self._takes, (index, count, tier), lambda: self._board_takes(index, count, tier)
        )

    def _board_takes(self, index: int, count: int, tier: StorageTier) -> bool:
        board, storage = self.boards[index][0], self.storage[tier]
        assert storage is not None
        drive, drives, card = storage
        cards = count + (1 if TIER_SHAPES[tier].on_card else 0)
        return board.lanes_for(cards) is not None and storage_fits(
            board=board, gpu_count=count, drive=drive, drive_count=drives, card=card
        )

    def rams(self, ram_gb: int) -> list[tuple[tuple[RamKit, int], Order] | None]:
        """Each board's RAM of the size (by index) with the order of its line."""
        return _memo(
            self._rams, ram_gb, lambda: [self._ram(board, ram_gb) for board, *_ in self.boards]
        )

    def _ram(self, board: Motherboard, ram_gb: int) -> tuple[tuple[RamKit, int], Order] | None:
        ram = self.picker.ram(board, ram_gb)
        return None if ram is None else (ram, self.picker.order(*ram))

    def fits(self, gpu: Gpu, count: int, tier: StorageTier) -> list[_Fit]:
        """Every board that takes the build, RAM aside."""
        storage = self.storage[tier]
        if storage is None:
            return []
        fits = []
        for index, (board, cpu, order) in enumerate(self.boards):
            if not self.takes(index, count, tier):
                continue
            housing = self.picker.housing(board, gpu, count, storage[2])
            if housing is not None:
                fits.append(_Fit(index, board, cpu, housing, _add(order, housing.order)))
        return fits

    def cheapest(
        self, gpu: Gpu, count: int, tier: StorageTier, ram_gb: int, *, fits: list[_Fit],
        found: dict[PartsKey, Candidate],
    ) -> tuple[PartsKey, Candidate] | None:  # fmt: skip
        """`cheapest_build`: the boards ranked by the lines in which they differ (the GPU and
        storage lines are the same on every board), the first with no error wins. A set of
        parts already `found` passed every rule before."""
        storage = self.storage[tier]
        if storage is None:
            return None
        rams = self.rams(ram_gb)
        ranked = sorted(
            (_add(fit.order, choice[1]), fit.index, fit, choice[0])
            for fit in fits
            if (choice := rams[fit.index]) is not None
        )
        for _, _, fit, ram in ranked:
            spec = _spec(gpu, count, fit.board, fit.cpu, ram, storage, fit.housing)
            lines = [(self.pk(part), quantity) for part, quantity in spec.lines()]
            key = tuple(sorted(lines))
            if key in found:
                return key, found[key]
            problems = build_problems(spec)
            if not has_error(problems):
                total = self.snapshot.lines_cost(lines)
                return key, Candidate(spec, total, tier, ram_gb, tuple(problems))
        return None

    def pk(self, part: Part) -> int:
        return _memo(self._pks, id(part), lambda: part.pk)


def candidate_builds(
    snapshot: CatalogSnapshot,
    *,
    gpu_counts: tuple[int, ...] = GPU_COUNTS,
    storage_tiers: tuple[StorageTier, ...] = tuple(StorageTier),
    ram_tiers_gb: tuple[int, ...] = RAM_TIERS_GB,
) -> list[Candidate]:
    """Every valid cheapest build (`cheapest_build` of each GPU, count, storage tier and RAM
    size, in that order), one per distinct set of parts."""
    search = _Search(snapshot)
    found: dict[PartsKey, Candidate] = {}
    for gpu in snapshot.priced(PartKind.GPU):
        assert isinstance(gpu, Gpu)
        for count in gpu_counts:
            for tier in storage_tiers:
                fits = search.fits(gpu, count, tier)
                for ram_gb in ram_tiers_gb:
                    best = search.cheapest(gpu, count, tier, ram_gb, fits=fits, found=found)
                    if best is not None:
                        found.setdefault(*best)
    return list(found.values())


def system_candidates(
    snapshot: CatalogSnapshot, *, cluster_sizes: tuple[int, ...] = CLUSTER_SIZES
) -> list[Candidate]:
    """Every priced whole system, each a build by itself (inference only: the training
    engine streams layers to a discrete GPU), and `cluster_sizes` of each whose built-in
    network port has a published speed, joined by it (llama.cpp RPC splits the layers)."""
    found = []
    for system in snapshot.priced(PartKind.SYSTEM):
        assert isinstance(system, System)
        sizes = (1,) if system.network_gbit_per_s is None else (1, *cluster_sizes)
        for count in sizes:
            spec = BuildSpec(system=system, system_count=count)
            found.append(Candidate(spec, snapshot.cost(spec), None, system.memory_gb * count))
    return found

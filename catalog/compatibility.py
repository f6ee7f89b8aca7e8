"""Compatibility rules. Each rule is a small function of a `BuildSpec` that returns the
problems it finds, each explained in words; `build_problems` runs them all.

A rule stays silent when a part it needs is missing: `required_parts` reports that.

Where a rule's test needs only a few parts, it is written once as a function of those
parts that returns the error in words, or None when they fit (`cpu_socket_error`, ...).
The rule calls it on a build; the candidate generator picks parts with the same functions,
through `cpu_fits_board`, `ram_fits_board`, `case_fits` and `storage_fits`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from catalog.hardware import M2_LANES_PER_DRIVE, pcie_label
from catalog.models import (
    Case,
    CaseSize,
    Cpu,
    Gpu,
    Motherboard,
    NvmeCard,
    NvmeDrive,
    PartKind,
    Psu,
    RamKit,
)
from catalog.spec import REQUIRED_KINDS, BuildSpec

# A PSU should carry the parts' summed TDP with 25 % headroom for transients (issue #4).
PSU_HEADROOM = 1.25


class Severity(StrEnum):
    ERROR = "error"  # the build cannot work as listed
    WARNING = "warning"  # it works, at a cost the user should know about


@dataclass(frozen=True, slots=True)
class Problem:
    rule: str
    severity: Severity
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "severity": str(self.severity), "message": self.message}


Rule = Callable[[BuildSpec], list[Problem]]
RULES: list[Rule] = []


def rule(function: Rule) -> Rule:
    RULES.append(function)
    return function


def _error(name: str, message: str | None) -> list[Problem]:
    """The rule's error, if it has a message."""
    return [] if message is None else [Problem(name, Severity.ERROR, message)]


@rule
def required_parts(spec: BuildSpec) -> list[Problem]:
    if spec.system is not None:
        return _system_alone(spec)
    present = {part.kind for part, _ in spec.lines()}  # PartKind members equal their values
    problems = [
        Problem("required_parts", Severity.ERROR, f"The build has no {kind.label}.")
        for kind in REQUIRED_KINDS
        if kind not in present
    ]
    problems += [
        Problem("required_parts", Severity.ERROR, f"The build mixes two {kind} models.")
        for kind in spec.mixed_kinds
    ]
    return problems


def _system_alone(spec: BuildSpec) -> list[Problem]:
    """A whole system (unified memory) is a build by itself: one of it, or several of the same
    joined by their built-in network port (a cluster), nothing else."""
    assert spec.system is not None
    others = [part.name for part, _ in spec.lines() if part.kind != PartKind.SYSTEM]
    problems = []
    if others or spec.mixed_kinds:
        listed = ", ".join(others) or "another system"
        problems.append(
            Problem("required_parts", Severity.ERROR,
                    f"The {spec.system.name} is a whole system and takes no other parts "
                    f"(the build also lists {listed}).")
        )  # fmt: skip
    if spec.system_count > 1 and spec.system.network_gbit_per_s is None:
        problems.append(
            Problem("required_parts", Severity.ERROR,
                    f"{spec.system_count} {spec.system.name} systems split a model over their "
                    "network port (llama.cpp RPC), and the catalog records no published speed "
                    "for its port. POST /api/simulate models such a cluster with "
                    "hardware.machines and network_gbit_per_s.")
        )  # fmt: skip
    return problems


def cpu_socket_error(cpu: Cpu, board: Motherboard) -> str | None:
    if cpu.socket != board.socket:
        return (
            f"Socket mismatch: the {cpu.name} is {cpu.socket}, the {board.name} is {board.socket}."
        )
    if cpu.chipsets and board.chipset not in cpu.chipsets:
        return (
            f"The {cpu.name} fits {cpu.socket} but runs only on "
            f"{', '.join(cpu.chipsets)} boards, and the {board.name} is {board.chipset}."
        )
    return None


def cpu_count_error(cpu: Cpu, count: int, board: Motherboard) -> str | None:
    if count != board.cpu_sockets:
        return (
            f"The {board.name} has {board.cpu_sockets} CPU socket(s); the build lists "
            f"{count} CPU(s)."
        )
    if count > cpu.max_cpus:
        return f"The {cpu.name} is a single-socket part."
    return None


def cpu_fits_board(cpu: Cpu, board: Motherboard) -> bool:
    """The CPU rules, one CPU in each of the board's sockets."""
    return (
        cpu_socket_error(cpu, board) is None
        and cpu_count_error(cpu, board.cpu_sockets, board) is None
    )


@rule
def cpu_socket(spec: BuildSpec) -> list[Problem]:
    cpu, board = spec.cpu, spec.motherboard
    if cpu is None or board is None:
        return []
    return _error("cpu_socket", cpu_socket_error(cpu, board))


@rule
def cpu_count(spec: BuildSpec) -> list[Problem]:
    cpu, board = spec.cpu, spec.motherboard
    if cpu is None or board is None:
        return []
    return _error("cpu_count", cpu_count_error(cpu, spec.cpu_count, board))


@rule
def gpu_slots(spec: BuildSpec) -> list[Problem]:
    board = spec.motherboard
    if board is None or spec.card_count <= board.max_cards:
        return []
    cards = f"{spec.gpu_count} GPU(s)"
    if spec.nvme_card and spec.nvme_card_count:
        cards += f" and {spec.nvme_card_count} NVMe add-in card(s)"
    return _error(
        "gpu_slots",
        f"More cards than slots: {cards} need {spec.card_count} CPU-attached x16 slots; the "
        f"{board.name} has {board.max_cards}.",
    )


@rule
def lane_split(spec: BuildSpec) -> list[Problem]:
    gpu, links = spec.gpu, spec.gpu_links()
    if gpu is None or not links:
        return []
    if all(link.lanes >= gpu.pcie_lanes and link.gen >= gpu.pcie_gen for link in links):
        return []
    each = "; ".join(
        f"GPU {index} gets {pcie_label(gen=link.gen, lanes=link.lanes)}"
        for index, link in enumerate(links, start=1)
    )
    full = pcie_label(gen=gpu.pcie_gen, lanes=gpu.pcie_lanes)
    return [
        Problem(
            "lane_split",
            Severity.WARNING,
            f"Lane split on the {spec.motherboard}: {each} (the {gpu.name} supports {full}).",
        )
    ]


@rule
def nvme_card_lanes(spec: BuildSpec) -> list[Problem]:
    card = spec.nvme_card
    if card is None or spec.motherboard is None or spec.slot_lanes() is None:
        return []
    needed = min(card.m2_slots, spec.nvme_count) * M2_LANES_PER_DRIVE
    short = [lanes for lanes in spec.card_lanes() if lanes < needed]
    if not short:
        return []
    return _error(
        "nvme_card_lanes",
        f"The {card.name} needs x{needed} (x4 per drive) but its slot gets x{short[0]} with "
        f"{spec.gpu_count} GPU(s) installed on the {spec.motherboard.name}.",
    )


def psu_headroom_error(watts: int, tdp_sum_w: int) -> str | None:
    needed_w = PSU_HEADROOM * tdp_sum_w
    if watts >= needed_w:
        return None
    return (
        f"PSU too small: {watts} W is below 1.25 x {tdp_sum_w} W of GPU and CPU "
        f"TDP = {needed_w:g} W."
    )


def case_psu_error(case: Case, psu: Psu) -> str | None:
    if psu.psu_form_factor == case.psu_form_factor:
        return None
    return f"The {case.name} takes {case.psu_form_factor} PSUs, not the {psu.name}."


@rule
def psu_headroom(spec: BuildSpec) -> list[Problem]:
    if spec.psu is None:
        return []
    return _error("psu_headroom", psu_headroom_error(spec.psu_watts, spec.tdp_sum_w))


def ram_capacity_error(ram_gb: int, board: Motherboard) -> str | None:
    if ram_gb <= board.max_ram_gb:
        return None
    return f"{ram_gb} GB of RAM is over the {board.name}'s maximum of {board.max_ram_gb} GB."


def ram_slots_error(modules: int, board: Motherboard) -> str | None:
    if modules <= board.ram_slots:
        return None
    return f"{modules} memory modules but the {board.name} has {board.ram_slots} slots."


def ram_type_error(kit: RamKit, board: Motherboard) -> str | None:
    if (kit.memory_gen, kit.module_type) == (board.memory_gen, board.module_type):
        return None
    return (
        f"The {kit.name} is {kit.memory_gen} {kit.module_type}; the {board.name} takes "
        f"{board.memory_gen} {board.module_type}."
    )


def ram_fits_board(kit: RamKit, count: int, board: Motherboard) -> bool:
    """The RAM rules, for `count` of the kit."""
    return (
        ram_type_error(kit, board) is None
        and ram_capacity_error(kit.capacity_gb * count, board) is None
        and ram_slots_error(kit.modules * count, board) is None
    )


@rule
def ram_capacity(spec: BuildSpec) -> list[Problem]:
    board = spec.motherboard
    if board is None or spec.ram_kit is None:
        return []
    return _error("ram_capacity", ram_capacity_error(spec.ram_gb, board))


@rule
def ram_slots(spec: BuildSpec) -> list[Problem]:
    board = spec.motherboard
    if board is None or spec.ram_kit is None:
        return []
    return _error("ram_slots", ram_slots_error(spec.ram_modules, board))


@rule
def ram_type(spec: BuildSpec) -> list[Problem]:
    board, kit = spec.motherboard, spec.ram_kit
    if board is None or kit is None:
        return []
    return _error("ram_type", ram_type_error(kit, board))


def case_board_error(case: Case, board: Motherboard) -> str | None:
    if board.form_factor in case.board_form_factors:
        return None
    return (
        f"The {case.name} holds {', '.join(case.board_form_factors)} boards, not the "
        f"{board.form_factor} {board.name}."
    )


def gpu_length_error(case: Case, gpu: Gpu) -> str | None:
    if gpu.length_mm <= case.max_gpu_length_mm:
        return None
    return (
        f"GPU too long: the {gpu.name} is {gpu.length_mm} mm; the {case.name} takes "
        f"{case.max_gpu_length_mm} mm."
    )


def gpu_airflow_error(case: Case, gpu: Gpu) -> str | None:
    if gpu.passive_cooling is not True or case.size == CaseSize.RACK:
        return None
    return (
        f"GPU without a fan: the {gpu.name} is passively cooled and needs a rack chassis's "
        f"forced airflow; the {case.name} is {_size_words(case)}."
    )


def _size_words(case: Case) -> str:
    if not case.size:
        return "not a rack chassis"
    return f"a {CaseSize(case.size).label}"


def gpu_thickness_error(
    case: Case, gpu: Gpu, gpu_count: int, card: NvmeCard | None, card_count: int
) -> str | None:
    if gpu.slot_width > case.max_gpu_slot_width:
        return (
            f"GPU too thick: the {gpu.name} takes {gpu.slot_width} slots; the {case.name}'s "
            f"GPU bays take {case.max_gpu_slot_width}."
        )
    card_slots = card.slot_width * card_count if card else 0
    used = gpu.slot_width * gpu_count + card_slots
    if used <= case.expansion_slots:
        return None
    return (
        f"GPUs too thick: {gpu_count} x {gpu.slot_width}-slot {gpu.name} (plus add-in "
        f"cards) need {used} expansion slots; the {case.name} has {case.expansion_slots}."
    )


def case_fits(
    case: Case, *, board: Motherboard, gpu: Gpu, gpu_count: int, card: NvmeCard | None
) -> bool:
    """The case rules, for the board, `gpu_count` of the GPU and one add-in card if any."""
    return (
        case_board_error(case, board) is None
        and gpu_length_error(case, gpu) is None
        and gpu_airflow_error(case, gpu) is None
        and gpu_thickness_error(case, gpu, gpu_count, card, 1 if card else 0) is None
    )


@rule
def case_board(spec: BuildSpec) -> list[Problem]:
    board, case = spec.motherboard, spec.case
    if board is None or case is None:
        return []
    return _error("case_board", case_board_error(case, board))


@rule
def case_psu(spec: BuildSpec) -> list[Problem]:
    psu, case = spec.psu, spec.case
    if psu is None or case is None:
        return []
    return _error("case_psu", case_psu_error(case, psu))


@rule
def gpu_length(spec: BuildSpec) -> list[Problem]:
    gpu, case = spec.gpu, spec.case
    if gpu is None or case is None:
        return []
    return _error("gpu_length", gpu_length_error(case, gpu))


@rule
def gpu_airflow(spec: BuildSpec) -> list[Problem]:
    gpu, case = spec.gpu, spec.case
    if gpu is None or case is None:
        return []
    return _error("gpu_airflow", gpu_airflow_error(case, gpu))


@rule
def gpu_thickness(spec: BuildSpec) -> list[Problem]:
    gpu, case = spec.gpu, spec.case
    if gpu is None or case is None:
        return []
    error = gpu_thickness_error(case, gpu, spec.gpu_count, spec.nvme_card, spec.nvme_card_count)
    return _error("gpu_thickness", error)


@rule
def nvme_slots(spec: BuildSpec) -> list[Problem]:
    if spec.nvme_drive is None or spec.motherboard is None:
        return []
    unplaced = spec.drive_slot_gens().count(None)
    if not unplaced:
        return []
    return _error(
        "nvme_slots",
        f"{unplaced} of {spec.nvme_count} NVMe drive(s) have no M.2 slot left on the "
        f"{spec.motherboard.name} (or its add-in card).",
    )


@rule
def nvme_generation(spec: BuildSpec) -> list[Problem]:
    drive = spec.nvme_drive
    if drive is None:
        return []
    slower = sorted({gen for gen in spec.drive_slot_gens() if gen and gen < drive.pcie_gen})
    if not slower:
        return []
    return _error(
        "nvme_generation",
        f"NVMe generation above the slot's: the {drive.name} is PCIe {drive.pcie_gen}.0 but "
        f"lands in a PCIe {slower[0]}.0 slot.",
    )


def storage_fits(
    *, board: Motherboard, gpu_count: int, drive: NvmeDrive, drive_count: int, card: NvmeCard | None
) -> bool:
    """The storage rules for the drives (on the add-in card first) on the board beside
    `gpu_count` GPUs: no other part enters them."""
    spec = BuildSpec(
        gpu_count=gpu_count, motherboard=board, nvme_drive=drive, nvme_count=drive_count,
        nvme_card=card, nvme_card_count=1 if card else 0,
    )  # fmt: skip
    return not has_error(nvme_card_lanes(spec) + nvme_slots(spec) + nvme_generation(spec))


def build_problems(spec: BuildSpec) -> list[Problem]:
    """Every problem of every rule, errors and warnings, in rule order."""
    return [problem for check in RULES for problem in check(spec)]


def has_error(problems: list[Problem]) -> bool:
    return any(problem.severity == Severity.ERROR for problem in problems)


def build_errors(spec: BuildSpec) -> list[Problem]:
    return [problem for problem in build_problems(spec) if problem.severity == Severity.ERROR]

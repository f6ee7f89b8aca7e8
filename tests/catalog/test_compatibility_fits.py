"""The tests the candidate generator picks parts with (`cpu_fits_board`, `ram_fits_board`,
`case_fits`, `storage_fits`) say what the registered rules say about a whole build made of
those parts and the factories' others. Pure: unsaved parts, no database."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from catalog.compatibility import (
    Severity,
    build_problems,
    case_fits,
    cpu_fits_board,
    ram_fits_board,
    storage_fits,
)
from catalog.models import Case, Cpu, Gpu, Motherboard, NvmeCard, NvmeDrive, RamKit
from catalog.spec import BuildSpec
from tests.catalog.conftest import make_spec
from tests.catalog.strategies import (
    BOARDS,
    CASES,
    CPUS,
    GPUS,
    NVME_CARDS,
    NVME_DRIVES,
    RAM_KITS,
)

COUNTS = st.integers(min_value=1, max_value=8)
CARDS = st.none() | NVME_CARDS  # no add-in card, or one


def one_card(card: NvmeCard | None) -> dict[str, object]:
    return {"nvme_card": card, "nvme_card_count": 1 if card else 0}


def passes(spec: BuildSpec, *rules: str) -> bool:
    """No error from any of these rules."""
    return not [p for p in build_problems(spec) if p.rule in rules and p.severity == Severity.ERROR]


@settings(max_examples=150, deadline=None)
@given(cpu=CPUS, board=BOARDS)
def test_cpu_fits_board_is_the_cpu_rules_with_a_cpu_in_each_socket(
    cpu: Cpu, board: Motherboard
) -> None:
    spec = make_spec(cpu=cpu, cpu_count=board.cpu_sockets, motherboard=board)
    assert cpu_fits_board(cpu, board) == passes(spec, "cpu_socket", "cpu_count")


@settings(max_examples=150, deadline=None)
@given(kit=RAM_KITS, count=COUNTS, board=BOARDS)
def test_ram_fits_board_is_the_ram_rules(kit: RamKit, count: int, board: Motherboard) -> None:
    spec = make_spec(ram_kit=kit, ram_kit_count=count, motherboard=board)
    assert ram_fits_board(kit, count, board) == passes(
        spec, "ram_type", "ram_capacity", "ram_slots"
    )


@settings(max_examples=150, deadline=None)
@given(case=CASES, board=BOARDS, gpu=GPUS, count=COUNTS, card=CARDS)
def test_case_fits_is_the_case_rules_with_one_add_in_card_at_most(
    case: Case, board: Motherboard, gpu: Gpu, count: int, card: NvmeCard | None
) -> None:
    spec = make_spec(case=case, motherboard=board, gpu=gpu, gpu_count=count, **one_card(card))
    fits = case_fits(case, board=board, gpu=gpu, gpu_count=count, card=card)
    assert fits == passes(spec, "case_board", "gpu_length", "gpu_airflow", "gpu_thickness")


@settings(max_examples=150, deadline=None)
@given(board=BOARDS, count=COUNTS, drive=NVME_DRIVES, drives=st.integers(1, 4), card=CARDS)
def test_storage_fits_is_the_storage_rules_whatever_the_other_parts(
    board: Motherboard, count: int, drive: NvmeDrive, drives: int, card: NvmeCard | None
) -> None:
    storage = {"nvme_drive": drive, "nvme_count": drives, **one_card(card)}
    spec = make_spec(motherboard=board, gpu_count=count, **storage)
    fits = storage_fits(board=board, gpu_count=count, drive=drive, drive_count=drives, card=card)
    assert fits == passes(spec, "nvme_card_lanes", "nvme_slots", "nvme_generation")

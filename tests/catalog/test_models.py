"""Model validation and database constraints."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError

from catalog.models import Part
from tests.catalog.factories import (
    BuildPartFactory,
    CaseFactory,
    GpuFactory,
    MotherboardFactory,
    PriceObservationFactory,
)


def test_a_part_knows_its_kind_from_its_model() -> None:
    assert GpuFactory.build(kind="").part_kind == "gpu"


@pytest.mark.django_db
def test_saving_a_gpu_sets_its_kind() -> None:
    gpu = GpuFactory.create(kind="")
    assert Part.objects.get(pk=gpu.pk).kind == "gpu"


@pytest.mark.django_db
def test_a_part_row_reaches_its_kind_specific_row() -> None:
    gpu = GpuFactory.create(vram_gb=48)
    assert Part.objects.get(pk=gpu.pk).detail.vram_gb == 48  # type: ignore[attr-defined]


def test_a_lane_split_listing_the_wrong_number_of_slots_is_invalid() -> None:
    board = MotherboardFactory.build(lane_split={"2": [16]})
    with pytest.raises(ValidationError, match="must list 2 lane widths"):
        board.clean()


def test_a_lane_split_with_an_odd_width_is_invalid() -> None:
    board = MotherboardFactory.build(lane_split={"1": [12]})
    with pytest.raises(ValidationError, match="width outside"):
        board.clean()


def test_a_board_takes_as_many_cards_as_its_largest_split() -> None:
    board = MotherboardFactory.build(lane_split={"1": [16], "2": [8, 8]})
    assert (board.max_cards, board.lanes_for(2), board.lanes_for(3)) == (2, [8, 8], None)


def test_unknown_m2_generations_are_invalid() -> None:
    with pytest.raises(ValidationError, match="m2_slot_gens"):
        MotherboardFactory.build(m2_slot_gens=[6]).clean()


def test_a_case_must_name_known_board_form_factors() -> None:
    with pytest.raises(ValidationError, match="board_form_factors"):
        CaseFactory.build(board_form_factors=["XL-ATX"]).clean()


@pytest.mark.django_db
def test_the_database_rejects_a_gpu_with_no_vram() -> None:
    with pytest.raises(IntegrityError):
        GpuFactory.create(vram_gb=0)


@pytest.mark.django_db
def test_the_database_rejects_an_odd_lane_count() -> None:
    with pytest.raises(IntegrityError):
        GpuFactory.create(pcie_lanes=12)


@pytest.mark.django_db
def test_the_database_rejects_a_negative_price() -> None:
    with pytest.raises(IntegrityError):
        PriceObservationFactory.create(amount=Decimal(-1))


@pytest.mark.django_db
def test_the_database_rejects_a_part_without_a_source() -> None:
    with pytest.raises(IntegrityError):
        GpuFactory.create(source="")


@pytest.mark.django_db
def test_the_database_rejects_a_build_line_of_zero() -> None:
    with pytest.raises(IntegrityError):
        BuildPartFactory.create(quantity=0)

"""A SimulatedBuild is one hardware's physics under one workload and engine version: stored
once for that key, holding either its figures or why the workload cannot run on it."""

import pytest
from django.db import IntegrityError

from tests.simulator.factories import SimulatedBuildFactory


@pytest.mark.django_db
def test_one_hardware_is_stored_once_per_workload_and_engine_version() -> None:
    stored = SimulatedBuildFactory.create()
    SimulatedBuildFactory.create(hardware_signature=stored.hardware_signature, engine_version="2")

    with pytest.raises(IntegrityError):
        SimulatedBuildFactory.create(hardware_signature=stored.hardware_signature)


@pytest.mark.django_db
def test_a_build_that_cannot_run_keeps_its_reason_and_no_figures() -> None:
    build = SimulatedBuildFactory.create(physics=None, reason="does not fit in 24 GB")

    assert not build.can_run


@pytest.mark.django_db
def test_figures_and_a_reason_together_are_refused() -> None:
    with pytest.raises(IntegrityError):
        SimulatedBuildFactory.create(reason="does not fit")


@pytest.mark.django_db
def test_neither_figures_nor_a_reason_is_refused() -> None:
    with pytest.raises(IntegrityError):
        SimulatedBuildFactory.create(physics=None)

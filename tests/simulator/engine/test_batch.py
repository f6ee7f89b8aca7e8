"""`best_splits`, the rankings' path (vectorised in both modes), gives exactly what `simulate`
gives one configuration at a time: the same best split, or the same refusal."""

from __future__ import annotations

import itertools

import pytest

from simulator.engine import SimulationRequest
from simulator.engine.devices import Gpu, devices
from simulator.engine.errors import EngineInputError
from simulator.engine.formats.training import quant_format
from simulator.engine.hardware import Hardware, default_pinned_gib, gpu_spec
from simulator.engine.model.registry import load_model
from simulator.engine.simulate import simulate
from simulator.engine.train import refined_sweep
from simulator.engine.train.batch import best_splits
from simulator.engine.train.workload import MODE_REFINED, TrainWorkload

GPU_COUNTS = (1, 2, 3, 4, 8)
NVME_GBPS = (7.0, 28.0, 48.0)  # reference-model.md §8: Gen4 x1, Gen4 RAID0 x4, Gen5 AIC x4
RAM_GIB = (32.0, 128.0)


def catalog_grid() -> list[Hardware]:
    """Every GPU of the device table in every count, storage and RAM tier."""
    return [
        Hardware(
            gpu=gpu_spec(gpu),
            gpu_count=count,
            nvme_gbps=nvme,
            ram_gib=ram,
            pinned_gib=default_pinned_gib(ram),
        )
        for gpu, count, nvme, ram in itertools.product(devices(Gpu), GPU_COUNTS, NVME_GBPS, RAM_GIB)
    ]


def one_at_a_time(workload: TrainWorkload, hardware: Hardware) -> object:
    try:
        return simulate(SimulationRequest(workload=workload, hardware=hardware)).best
    except EngineInputError as error:
        return (error.field, error.message)


def as_comparable(answer: object) -> object:
    return (answer.field, answer.message) if isinstance(answer, EngineInputError) else answer


WORKLOADS = [("glm-4.7", "NF4d+NF2e"), ("glm-4.7", "NVFP4"), ("llama-3.1-70b", "NF4")]
REFINED_SAMPLE = 5  # every 5th configuration: the scalar refined path takes ~10 ms each


@pytest.mark.parametrize(("model", "quant"), WORKLOADS)
def test_reference_mode_matches_simulate_for_every_catalog_configuration(
    model: str, quant: str
) -> None:
    workload = TrainWorkload(model=load_model(model), quant=quant_format(quant))
    grid = catalog_grid()

    batch = [as_comparable(answer) for answer in best_splits(workload, grid)]

    assert batch == [one_at_a_time(workload, hardware) for hardware in grid]


def test_the_batch_has_both_kinds_of_answer() -> None:
    workload = TrainWorkload(model=load_model("glm-4.7"), quant=quant_format("NVFP4"))

    answers = best_splits(workload, catalog_grid())

    refusals = [a for a in answers if isinstance(a, EngineInputError)]
    assert refusals  # GPUs without FP4 tensor cores, and 16 GB cards that cannot fit
    assert len(refusals) < len(answers)


@pytest.mark.parametrize(("model", "quant"), WORKLOADS)
def test_refined_mode_matches_simulate_too(model: str, quant: str) -> None:
    workload = TrainWorkload(model=load_model(model), quant=quant_format(quant), mode=MODE_REFINED)
    grid = catalog_grid()[::REFINED_SAMPLE]

    batch = [as_comparable(answer) for answer in best_splits(workload, grid)]

    assert batch == [one_at_a_time(workload, hardware) for hardware in grid]


def test_no_configurations_give_no_answers() -> None:
    workload = TrainWorkload(model=load_model("glm-4.7"), quant=quant_format("NF4"))

    assert best_splits(workload, []) == []


def test_refined_answers_do_not_depend_on_how_the_configurations_are_sliced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    workload = TrainWorkload(
        model=load_model("glm-4.7"), quant=quant_format("NF4d+NF2e"), mode=MODE_REFINED
    )
    grid = catalog_grid()[::REFINED_SAMPLE]
    whole = [as_comparable(answer) for answer in best_splits(workload, grid)]

    monkeypatch.setattr(refined_sweep, "ELEMENTS_PER_ARRAY", 1)  # one configuration a slice

    assert [as_comparable(answer) for answer in best_splits(workload, grid)] == whole

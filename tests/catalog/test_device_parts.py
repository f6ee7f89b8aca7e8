"""The catalog's GPUs, CPUs and whole systems are the engine's device records."""

from dataclasses import asdict
from typing import Any

import pytest

from catalog.models import Cpu as CpuPart
from catalog.models import Gpu as GpuPart
from catalog.models import System as SystemPart
from simulator.engine.devices import Cpu, Gpu, System, find_device

PAIRS = [(GpuPart, Gpu), (CpuPart, Cpu), (SystemPart, System)]


@pytest.mark.django_db
@pytest.mark.parametrize(("part_model", "kind"), PAIRS)
def test_each_catalog_part_has_its_device_records_figures(
    catalog_fixtures: None, part_model: Any, kind: type
) -> None:
    parts = list(part_model.objects.all())
    assert parts
    for part in parts:
        device = find_device(kind, part.slug)
        assert device is not None, part.name
        record = asdict(device)
        assert (part.name, part.source, part.notes) == (device.name, device.source, device.notes)
        for field in part_model._meta.local_concrete_fields:
            if field.name in record:
                expected = record[field.name]
                expected = list(expected) if isinstance(expected, tuple) else expected
                assert getattr(part, field.name) == expected, (part.name, field.name)

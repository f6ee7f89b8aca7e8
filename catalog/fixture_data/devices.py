"""Catalog parts made from the engine's device table (simulator/engine/data/devices.json):
the catalog sells these records, adding only its own part number and prices."""

from dataclasses import asdict
from typing import Any

from simulator.engine import Cpu, Device, Gpu, System, require_device

PART_KIND = {Gpu: "gpu", Cpu: "cpu", System: "system"}
# Figures of the device table that are not columns of the catalog's part tables.
NOT_PART_FIELDS = {"slug", "name", "aliases", "manufacturer", "source", "notes"}
# Engine figures the catalog's parts do not carry: a build's inline GPU names its device, and
# the engine fills these from its table by that name (FP8 training, NVLink, the per-SM cap on
# streamed bandwidth, the measured streaming bandwidth, RDNA 4's vector FP16 peak).
ENGINE_ONLY_FIELDS = {
    "fp8_tflops",
    "vector_fp16_tflops",
    "nvlink_gbps",
    "bf16_sustained_tflops",
    "fp8_sustained_tflops",
    "sustained_source",
    "compute_units",
    "units_source",
    "mem_sustained_gbps",
    "bandwidth_source",
}


def device_part(pk: int, kind: type[Device], slug: str) -> dict[str, Any]:
    """The catalog part `pk` for the device `slug` of the table."""
    device = require_device(kind, slug, field="slug")
    record = asdict(device)
    fields = {
        key: value
        for key, value in record.items()
        if key not in NOT_PART_FIELDS | ENGINE_ONLY_FIELDS
    }
    if "chipsets" in fields:
        fields["chipsets"] = list(fields["chipsets"])
    return {
        "pk": pk,
        "kind": PART_KIND[kind],
        "name": device.name,
        "manufacturer": device.manufacturer,
        "source": device.source,
        "notes": device.notes,
        "fields": fields,
    }

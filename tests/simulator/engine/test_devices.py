"""The one device table: lookup by slug, name or alias, the closest names for an unknown one,
and the figures a request takes from it."""

import pytest

from simulator.engine import InferWorkload, parse_request
from simulator.engine.devices import Cpu, Gpu, System, closest_names, devices, find_device
from simulator.engine.errors import EngineInputError
from simulator.engine.io.hardware import parse_cpu, parse_gpu, parse_unified
from simulator.engine.units import GB, GIB, ddr_gbps, pcie_gbps, seed_transfer_s, transfer_s


@pytest.mark.parametrize("kind", [Gpu, Cpu, System])
def test_every_device_is_found_by_its_slug_name_and_aliases_in_any_case(kind: type) -> None:
    for device in devices(kind):
        for key in (device.slug, device.name, *device.aliases):
            assert find_device(kind, key.upper()) is device


@pytest.mark.parametrize("kind", [Gpu, Cpu, System])
def test_slugs_names_and_aliases_name_one_device_each(kind: type) -> None:
    keys = [k for d in devices(kind) for k in {k.lower() for k in (d.slug, d.name, *d.aliases)}]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("kind", [Gpu, Cpu, System])
def test_every_device_cites_a_source(kind: type) -> None:
    assert all(device.source.strip() for device in devices(kind))


def test_an_unknown_gpu_is_refused_with_the_closest_names() -> None:
    with pytest.raises(EngineInputError) as caught:
        parse_gpu("RTX 3095")

    assert caught.value.field == "hardware.gpu"
    assert "unknown GPU 'RTX 3095'" in caught.value.message
    for name in closest_names(Gpu, "RTX 3095"):
        assert name in caught.value.message
    assert "RTX 3090" in closest_names(Gpu, "RTX 3095")


def test_a_name_like_nothing_known_lists_every_known_gpu() -> None:
    with pytest.raises(EngineInputError) as caught:
        parse_gpu("zzzz")

    assert all(device.name in caught.value.message for device in devices(Gpu))


def test_a_named_gpu_takes_the_tables_figures() -> None:
    device = find_device(Gpu, "rtx-3090")
    assert device is not None

    spec = parse_gpu("rtx-3090")

    assert spec.name == "RTX 3090"
    assert spec.vram_gib == device.vram_gb
    assert spec.bf16_tflops == device.bf16_tflops
    assert spec.mem_gbps == device.mem_bandwidth_gbps
    # Gen4 x16: reference-model.md §7's 22 GB/s
    assert spec.pcie_gbps == pcie_gbps(gen=device.pcie_gen, lanes=device.pcie_lanes) == 22.0


def test_an_object_naming_a_known_gpu_keeps_the_figures_it_gives() -> None:
    spec = parse_gpu({"name": "RTX 4090", "pcie_gbps": 11})

    assert (spec.pcie_gbps, spec.vram_gib) == (11, 24)


def test_an_object_with_an_unknown_name_and_missing_figures_lists_the_closest_names() -> None:
    with pytest.raises(EngineInputError) as caught:
        parse_gpu({"name": "RTX 4099"})

    assert "RTX 4090" in caught.value.message


def test_a_named_cpu_has_the_bandwidth_of_every_channel_at_its_rated_speed() -> None:
    epyc = find_device(Cpu, "EPYC 9124")
    assert epyc is not None

    cpu = parse_cpu("epyc-9124")

    assert cpu.name == "EPYC 9124"  # the table's name, whichever key named it
    # 12 channels x 4800 MT/s x 8 bytes = 460.8 GB/s
    assert cpu.mem_gbps == pytest.approx(12 * 4800 * 8 / 1000)
    assert cpu.mem_gbps == ddr_gbps(channels=epyc.memory_channels, speed_mts=4800)
    assert (cpu.cores, cpu.ghz) == (epyc.cores, epyc.all_core_ghz)


@pytest.mark.parametrize(
    ("name", "per_socket_gbps"),
    # AMD's "Per Socket Mem BW" as the dataset the records cite prints it: 8 DDR4-3200
    # channels on SP3 (Rome, Milan), 12 DDR5-4800 on SP5 (Genoa, Bergamo)
    [("AMD EPYC 7742", 204.8), ("EPYC 7713P", 204.8), ("AMD EPYC 9754", 460.8),
     ("EPYC 9684X", 460.8)],
)  # fmt: skip
def test_a_server_cpu_has_the_per_socket_bandwidth_its_maker_states(
    name: str, per_socket_gbps: float
) -> None:
    assert parse_cpu(name).mem_gbps == pytest.approx(per_socket_gbps)


def test_a_named_system_has_its_memory_bandwidth_and_gpu_peak() -> None:
    unified = parse_unified("Mac Studio M4 Max 128GB")

    assert (unified.mem_gib, unified.mem_gbps, unified.tflops) == (128, 546, 16.2)


def test_a_chip_without_a_memory_size_asks_for_one() -> None:
    with pytest.raises(EngineInputError) as caught:
        parse_unified("Apple M4 Max (40-core GPU)")

    assert caught.value.field == "hardware.unified.mem_gb"
    assert parse_unified({"name": "M4 Max", "mem_gb": 64}).mem_gib == 64


def test_a_serving_request_runs_on_a_gpu_and_cpu_given_by_name() -> None:
    request = parse_request(
        {
            "workload": {"kind": "infer", "model": "glm-4.7-flash", "quant": "Q4_K_M"},
            "hardware": {"gpu": "RTX 3090", "cpu": "EPYC 9124", "ram_gb": 128},
        }
    )

    assert isinstance(request.workload, InferWorkload)
    gpu, cpu = request.hardware.gpu, request.hardware.cpu
    assert gpu is not None
    assert gpu.mem_gbps == 936
    assert cpu is not None
    assert cpu.cores == 16


def test_a_gib_over_a_gbps_link_takes_longer_than_the_seeds_convention_says() -> None:
    # units.py: GiB are binary, GB/s decimal; the seed divides them as they stand.
    assert transfer_s(1.0, 1.0) == pytest.approx(GIB / GB)
    assert seed_transfer_s(1.0, 1.0) == 1.0


def test_a_cpu_object_with_an_unknown_name_and_missing_figures_lists_the_closest_names() -> None:
    with pytest.raises(EngineInputError) as caught:
        parse_cpu({"name": "EPYC 9125", "cores": 16})

    assert caught.value.field == "hardware.cpu.name"
    assert "EPYC 9124" in caught.value.message


def test_the_m5_max_has_apples_bandwidth_and_four_times_the_m4_maxs_matrix_peak() -> None:
    """Apple (3 March 2026): 614 GB/s and "over 4x the peak AI compute" of the M4 Max."""
    m5 = parse_unified({"name": "Apple M5 Max (40-core GPU)", "mem_gb": 128})
    m4 = parse_unified({"name": "Apple M4 Max (40-core GPU)", "mem_gb": 128})

    assert m5.mem_gbps == 614
    assert m5.tflops == pytest.approx(4 * m4.tflops)

"""Derived figures handed to the engine: PCIe per GPU after the lane split, storage read
bandwidth, pinned RAM (reference-model.md §7-§8). Pure: unsaved parts."""

from __future__ import annotations

import pytest

from catalog.hardware import pinned_gb
from catalog.spec import BuildSpec
from simulator.engine.units import pcie_gbps
from tests.catalog.conftest import make_spec
from tests.catalog.factories import (
    CpuFactory,
    GpuFactory,
    MotherboardFactory,
    NvmeCardFactory,
    NvmeDriveFactory,
    PsuFactory,
    RamKitFactory,
    SystemFactory,
)

GEN4_X16_GBPS = 22.0  # reference §7
GEN5_X16_GBPS = 44.0  # reference §7


def test_an_x8_link_gets_half_the_x16_bandwidth() -> None:
    assert pcie_gbps(gen=4, lanes=8) == GEN4_X16_GBPS / 2


def test_two_4090s_on_am5_x870e_get_11_gbps_each() -> None:
    gpu = GpuFactory.build(pcie_gen=4)
    spec = make_spec(gpu=gpu, gpu_count=2, psu=PsuFactory.build(watts=1600))
    # Seed 000, "Consumer AM5 x8/x8": Gen4 x8 = 22 / 2.
    assert spec.hardware()["gpu"]["pcie_gbps"] == GEN4_X16_GBPS / 2


def test_two_5090s_on_am5_x870e_get_22_gbps_each() -> None:
    gpu = GpuFactory.build(pcie_gen=5, tdp_w=575, slot_width=2)
    spec = make_spec(gpu=gpu, gpu_count=2, psu=PsuFactory.build(watts=1600))
    # Seed 000: "Gen5 x8 = 22 GB/s, matching Gen4 x16".
    assert spec.hardware()["gpu"]["pcie_gbps"] == GEN5_X16_GBPS / 2


def test_a_gen5_gpu_on_a_gen4_board_runs_at_gen4() -> None:
    spec = make_spec(
        gpu=GpuFactory.build(pcie_gen=5), motherboard=MotherboardFactory.build(pcie_gen=4)
    )
    assert spec.hardware()["gpu"]["pcie_gbps"] == GEN4_X16_GBPS


def test_one_gen4_drive_reads_7_gbps() -> None:
    spec = make_spec(nvme_drive=NvmeDriveFactory.build(pcie_gen=4, seq_read_gbps=7.45))
    assert spec.hardware()["nvme_gbps"] == 7.0


def test_a_slower_drive_keeps_its_datasheet_read() -> None:
    spec = make_spec(nvme_drive=NvmeDriveFactory.build(pcie_gen=4, seq_read_gbps=5.0))
    assert spec.hardware()["nvme_gbps"] == 5.0


def test_a_gen4_raid0_of_four_reads_28_gbps() -> None:
    drive = NvmeDriveFactory.build(pcie_gen=4, seq_read_gbps=7.45)
    board = MotherboardFactory.build(m2_slot_gens=[4, 4, 4, 4])
    spec = make_spec(nvme_drive=drive, nvme_count=4, motherboard=board)
    assert spec.hardware()["nvme_gbps"] == 4 * 7.0


def test_a_gen5_aic_of_four_reads_48_gbps() -> None:
    board = MotherboardFactory.build(lane_split={"1": [16], "2": [16, 16]})
    drive = NvmeDriveFactory.build(pcie_gen=5, seq_read_gbps=14.5)
    spec = make_spec(motherboard=board, nvme_drive=drive, nvme_count=4,
                     nvme_card=NvmeCardFactory.build(pcie_gen=5), nvme_card_count=1)  # fmt: skip
    assert spec.hardware()["nvme_gbps"] == 48.0


@pytest.mark.parametrize(("ram_gb", "expected_gb"), [(32, 26), (64, 56), (128, 120), (256, 248)])
def test_pinned_ram_follows_the_reference_and_keeps_8_gb_beyond_it(
    ram_gb: int, expected_gb: int
) -> None:
    assert pinned_gb(ram_gb=ram_gb) == expected_gb


def test_the_hardware_dict_has_exactly_the_engines_inline_form() -> None:
    spec = make_spec(ram_kit=RamKitFactory.build(capacity_gb=64))
    hardware = spec.hardware()
    training = {"gpu", "gpu_count", "nvme_gbps", "ram_gb", "pinned_gb"}
    assert set(hardware) == training | {"cpu", "link_gbps"}
    assert set(hardware["gpu"]) == {
        "name",
        "vram_gb",
        "bf16_tflops",
        "pcie_gbps",
        "fp4",
        "mem_gbps",
    }
    assert (hardware["ram_gb"], hardware["pinned_gb"]) == (64, 56)


def test_the_cpu_form_gives_cores_simd_width_and_clock() -> None:
    cpu = CpuFactory.build(cores=16, flops_per_core_cycle=64, all_core_ghz=4.2)
    hardware = make_spec(cpu=cpu).hardware()
    assert "cpu" in hardware
    assert (hardware["cpu"]["cores"], hardware["cpu"]["flops_per_core_cycle"]) == (16, 64)
    assert hardware["cpu"]["ghz"] == 4.2


def test_cpu_bandwidth_counts_only_the_channels_the_modules_fill() -> None:
    # Twelve channels of DDR5-6400 (seed 003's EPYC 9175F) but two modules: two channels.
    cpu = CpuFactory.build(socket="SP5", memory_channels=12, memory_speed_mts=6400)
    spec = make_spec(cpu=cpu, ram_kit=RamKitFactory.build(modules=2, speed_mts=6400))
    assert spec.cpu_mem_gbps == 2 * 6400 * 8 / 1000


def test_cpu_bandwidth_runs_at_the_slower_of_cpu_and_ram_speed() -> None:
    cpu = CpuFactory.build(memory_channels=2, memory_speed_mts=5200)
    spec = make_spec(cpu=cpu, ram_kit=RamKitFactory.build(modules=2, speed_mts=6000))
    assert spec.cpu_mem_gbps == 2 * 5200 * 8 / 1000


def test_twelve_filled_ddr5_6400_channels_give_seed_003s_614_gbps() -> None:
    cpu = CpuFactory.build(socket="SP5", memory_channels=12, memory_speed_mts=6400)
    spec = make_spec(cpu=cpu, ram_kit=RamKitFactory.build(modules=12, speed_mts=6400))
    assert spec.cpu_mem_gbps == 614.4


def test_the_link_to_the_gpus_is_the_slowest_gpus_pcie() -> None:
    gpu = GpuFactory.build(pcie_gen=4)
    hardware = make_spec(gpu=gpu, gpu_count=2, psu=PsuFactory.build(watts=1600)).hardware()
    assert hardware["link_gbps"] == GEN4_X16_GBPS / 2


def test_a_whole_system_gives_the_unified_memory_form() -> None:
    system = SystemFactory.build(name="Mac Studio M4 Max 128GB")
    spec = BuildSpec(system=system, system_count=1)
    assert spec.any_hardware() == {
        "unified": {"name": "Mac Studio M4 Max 128GB", "mem_gb": 128, "mem_gbps": 546.0,
                    "tflops": 16.2},
        "ram_gb": 128,
    }  # fmt: skip


def test_a_whole_system_has_no_training_hardware() -> None:
    spec = BuildSpec(system=SystemFactory.build(), system_count=1)
    with pytest.raises(ValueError, match="without a GPU"):
        spec.hardware()


def test_an_amd_card_and_a_strix_halo_system_name_their_maker_for_the_engine() -> None:
    """The engine serves a GPU or system with its maker's llama.cpp backend; NVIDIA's GPUs and
    Apple's systems are its default, so only other makers are named (keys stay as they were)."""
    amd = make_spec(gpu=GpuFactory.build(name="Radeon RX 7900 XTX", manufacturer="AMD"))
    assert amd.hardware()["gpu"]["maker"] == "AMD"
    assert "maker" not in make_spec(gpu=GpuFactory.build()).hardware()["gpu"]
    strix = BuildSpec.system_hardware(SystemFactory.build(manufacturer="AMD"))
    assert strix["unified"]["maker"] == "AMD"

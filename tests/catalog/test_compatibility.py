"""Every compatibility rule: one build it accepts, one it rejects, with the words it uses.
Pure: unsaved factory parts, no database."""

from __future__ import annotations

from collections.abc import Callable

from catalog.compatibility import Severity, build_problems
from catalog.spec import BuildSpec
from tests.catalog.conftest import make_spec
from tests.catalog.factories import (
    CaseFactory,
    CpuFactory,
    GpuFactory,
    MotherboardFactory,
    NvmeCardFactory,
    NvmeDriveFactory,
    PsuFactory,
    RamKitFactory,
)

SpecMaker = Callable[..., BuildSpec]


def messages(spec: BuildSpec, rule: str) -> list[str]:
    return [problem.message for problem in build_problems(spec) if problem.rule == rule]


def test_the_default_spec_has_no_problem_at_all() -> None:
    assert build_problems(make_spec()) == []


def test_it_names_a_missing_part_kind() -> None:
    assert messages(make_spec(psu=None, psu_count=0), "required_parts") == [
        "The build has no power supply."
    ]


def test_it_reports_a_build_mixing_two_gpu_models() -> None:
    assert messages(make_spec(mixed_kinds=("gpu",)), "required_parts") == [
        "The build mixes two gpu models."
    ]


def test_it_accepts_a_cpu_of_the_boards_socket() -> None:
    assert messages(make_spec(), "cpu_socket") == []


def test_it_rejects_a_socket_mismatch() -> None:
    cpu = CpuFactory.build(name="Core Ultra 5 245K", socket="LGA1851")
    board = MotherboardFactory.build(name="X870E board")
    assert messages(make_spec(cpu=cpu, motherboard=board), "cpu_socket") == [
        "Socket mismatch: the Core Ultra 5 245K is LGA1851, the X870E board is AM5."
    ]


def test_it_rejects_a_non_pro_threadripper_on_a_wrx90_board() -> None:
    cpu = CpuFactory.build(socket="sTR5", chipsets=["TRX50"])
    board = MotherboardFactory.build(socket="sTR5", chipset="WRX90", module_type="RDIMM")
    assert (
        "runs only on TRX50 boards"
        in messages(make_spec(cpu=cpu, motherboard=board), "cpu_socket")[0]
    )


def test_it_accepts_two_2p_cpus_on_a_dual_socket_board() -> None:
    cpu = CpuFactory.build(socket="SP5", max_cpus=2)
    board = MotherboardFactory.build(socket="SP5", cpu_sockets=2)
    assert messages(make_spec(cpu=cpu, cpu_count=2, motherboard=board), "cpu_count") == []


def test_it_rejects_a_single_socket_cpu_twice() -> None:
    cpu = CpuFactory.build(name="EPYC 9354P", socket="SP5", max_cpus=1)
    board = MotherboardFactory.build(socket="SP5", cpu_sockets=2)
    assert messages(make_spec(cpu=cpu, cpu_count=2, motherboard=board), "cpu_count") == [
        "The EPYC 9354P is a single-socket part."
    ]


def test_it_accepts_as_many_gpus_as_the_board_has_slots() -> None:
    assert messages(make_spec(gpu_count=2, psu=PsuFactory.build(watts=1600)), "gpu_slots") == []


def test_it_rejects_more_gpus_than_slots() -> None:
    board = MotherboardFactory.build(name="X870E board")
    assert messages(make_spec(gpu_count=3, motherboard=board), "gpu_slots") == [
        "More cards than slots: 3 GPU(s) need 3 CPU-attached x16 slots; the X870E board has 2."
    ]


def test_it_is_silent_about_lanes_when_the_gpu_gets_its_full_link() -> None:
    assert messages(make_spec(), "lane_split") == []


def test_it_warns_what_each_gpu_gets_when_the_board_splits_x8_x8() -> None:
    gpu = GpuFactory.build(name="RTX 4090")
    board = MotherboardFactory.build(name="X870E board")
    spec = make_spec(gpu=gpu, gpu_count=2, motherboard=board, psu=PsuFactory.build(watts=1600))
    problems = [p for p in build_problems(spec) if p.rule == "lane_split"]
    assert [p.severity for p in problems] == [Severity.WARNING]
    assert problems[0].message == (
        "Lane split on the X870E board: GPU 1 gets PCIe 4.0 x8 (11 GB/s); GPU 2 gets PCIe 4.0 "
        "x8 (11 GB/s) (the RTX 4090 supports PCIe 4.0 x16 (22 GB/s))."
    )


def test_it_accepts_an_nvme_card_with_a_full_x16_slot() -> None:
    board = MotherboardFactory.build(lane_split={"1": [16], "2": [16, 16]})
    spec = make_spec(motherboard=board, nvme_card=NvmeCardFactory.build(), nvme_card_count=1,
                     nvme_count=4)  # fmt: skip
    assert messages(spec, "nvme_card_lanes") == []


def test_it_rejects_an_nvme_card_left_with_x8() -> None:
    card = NvmeCardFactory.build(name="Hyper M.2 Gen5")
    board = MotherboardFactory.build(name="X870E board")
    spec = make_spec(motherboard=board, nvme_card=card, nvme_card_count=1, nvme_count=4)
    assert messages(spec, "nvme_card_lanes") == [
        "The Hyper M.2 Gen5 needs x16 (x4 per drive) but its slot gets x8 with 1 GPU(s) "
        "installed on the X870E board."
    ]


def test_it_accepts_a_psu_at_exactly_1_25_times_the_tdp_sum() -> None:
    gpu = GpuFactory.build(tdp_w=575)
    cpu = CpuFactory.build(tdp_w=120)
    # Seed build D: 2 x 575 W + 120 W = 1270 W; x 1.25 = 1587.5 W <= 1600 W.
    spec = make_spec(gpu=gpu, gpu_count=2, cpu=cpu, psu=PsuFactory.build(watts=1600))
    assert messages(spec, "psu_headroom") == []


def test_it_rejects_a_psu_below_1_25_times_the_tdp_sum() -> None:
    spec = make_spec(gpu_count=2, psu=PsuFactory.build(watts=1000))
    # 2 x 450 W + 65 W = 965 W; x 1.25 = 1206.25 W.
    assert messages(spec, "psu_headroom") == [
        "PSU too small: 1000 W is below 1.25 x 965 W of GPU and CPU TDP = 1206.25 W."
    ]


def test_it_counts_every_psu_of_a_multi_psu_build() -> None:
    spec = make_spec(gpu_count=2, psu=PsuFactory.build(watts=850), psu_count=2)
    assert messages(spec, "psu_headroom") == []


def test_it_accepts_ram_up_to_the_boards_maximum() -> None:
    kit = RamKitFactory.build(capacity_gb=128, modules=2)
    assert messages(make_spec(ram_kit=kit, ram_kit_count=2), "ram_capacity") == []


def test_it_rejects_ram_over_the_boards_maximum() -> None:
    board = MotherboardFactory.build(name="B650 board", max_ram_gb=192)
    kit = RamKitFactory.build(capacity_gb=128, modules=2)
    spec = make_spec(motherboard=board, ram_kit=kit, ram_kit_count=2)
    assert messages(spec, "ram_capacity") == [
        "256 GB of RAM is over the B650 board's maximum of 192 GB."
    ]


def test_it_rejects_more_modules_than_ram_slots() -> None:
    board = MotherboardFactory.build(name="B650 board", ram_slots=4)
    spec = make_spec(motherboard=board, ram_kit=RamKitFactory.build(modules=4), ram_kit_count=2)
    assert messages(spec, "ram_slots") == ["8 memory modules but the B650 board has 4 slots."]


def test_it_rejects_rdimms_on_a_udimm_board() -> None:
    kit = RamKitFactory.build(name="RDIMM kit", module_type="RDIMM")
    board = MotherboardFactory.build(name="X870E board")
    assert messages(make_spec(ram_kit=kit, motherboard=board), "ram_type") == [
        "The RDIMM kit is DDR5 RDIMM; the X870E board takes DDR5 UDIMM."
    ]


def test_it_rejects_a_board_the_case_cannot_hold() -> None:
    board = MotherboardFactory.build(name="WRX90 board", form_factor="SSI-EEB")
    case = CaseFactory.build(name="Mid tower")
    assert messages(make_spec(motherboard=board, case=case), "case_board") == [
        "The Mid tower holds mATX, ATX boards, not the SSI-EEB WRX90 board."
    ]


def test_it_rejects_a_server_psu_in_an_atx_case() -> None:
    psu = PsuFactory.build(name="CRPS module", psu_form_factor="server")
    case = CaseFactory.build(name="Mid tower")
    assert messages(make_spec(psu=psu, case=case), "case_psu") == [
        "The Mid tower takes ATX PSUs, not the CRPS module."
    ]


def test_it_accepts_a_gpu_exactly_as_long_as_the_case_allows() -> None:
    spec = make_spec(
        gpu=GpuFactory.build(length_mm=400), case=CaseFactory.build(max_gpu_length_mm=400)
    )
    assert messages(spec, "gpu_length") == []


def test_it_rejects_a_gpu_too_long_for_the_case() -> None:
    gpu = GpuFactory.build(name="RTX 4090", length_mm=357)
    case = CaseFactory.build(name="Small case", max_gpu_length_mm=330)
    assert messages(make_spec(gpu=gpu, case=case), "gpu_length") == [
        "GPU too long: the RTX 4090 is 357 mm; the Small case takes 330 mm."
    ]


def test_it_accepts_two_3_slot_gpus_in_a_7_slot_case() -> None:
    spec = make_spec(gpu_count=2, psu=PsuFactory.build(watts=1600))
    assert messages(spec, "gpu_thickness") == []


def test_it_rejects_gpus_thicker_than_the_cases_slots() -> None:
    gpu = GpuFactory.build(name="RTX 4090", slot_width=3)
    board = MotherboardFactory.build(lane_split={"1": [16], "2": [16, 16], "3": [16, 16, 16]})
    case = CaseFactory.build(name="Full tower", expansion_slots=8)
    spec = make_spec(gpu=gpu, gpu_count=3, motherboard=board, case=case,
                     psu=PsuFactory.build(watts=2000))  # fmt: skip
    assert messages(spec, "gpu_thickness") == [
        "GPUs too thick: 3 x 3-slot RTX 4090 (plus add-in cards) need 9 expansion slots; the "
        "Full tower has 8."
    ]


def test_it_rejects_a_3_slot_gpu_in_double_width_server_bays() -> None:
    gpu = GpuFactory.build(name="RTX 4090", slot_width=3)
    case = CaseFactory.build(name="GPU server", expansion_slots=16, max_gpu_slot_width=2)
    assert messages(make_spec(gpu=gpu, case=case), "gpu_thickness") == [
        "GPU too thick: the RTX 4090 takes 3 slots; the GPU server's GPU bays take 2."
    ]


def test_it_accepts_a_passively_cooled_gpu_in_a_rack_chassis() -> None:
    gpu = GpuFactory.build(name="L40S", passive_cooling=True)
    case = CaseFactory.build(name="GPU server", size="rack")
    assert messages(make_spec(gpu=gpu, case=case), "gpu_airflow") == []


def test_it_rejects_a_passively_cooled_gpu_in_a_tower() -> None:
    gpu = GpuFactory.build(name="L40S", passive_cooling=True)
    tower = CaseFactory.build(name="Meshify", size="full_tower")
    unsized = CaseFactory.build(name="Some case", size="")
    assert messages(make_spec(gpu=gpu, case=tower), "gpu_airflow") == [
        "GPU without a fan: the L40S is passively cooled and needs a rack chassis's forced "
        "airflow; the Meshify is a full tower."
    ]
    assert messages(make_spec(gpu=gpu, case=unsized), "gpu_airflow") == [
        "GPU without a fan: the L40S is passively cooled and needs a rack chassis's forced "
        "airflow; the Some case is not a rack chassis."
    ]
    # A card with its own fan goes in either.
    fan = GpuFactory.build(name="RTX 4090")
    assert messages(make_spec(gpu=fan, case=tower), "gpu_airflow") == []


def test_it_accepts_four_drives_in_four_m2_slots() -> None:
    assert messages(make_spec(nvme_count=4), "nvme_slots") == []


def test_it_rejects_drives_beyond_the_m2_slots() -> None:
    board = MotherboardFactory.build(name="B650 board", m2_slot_gens=[4, 4])
    assert messages(make_spec(motherboard=board, nvme_count=4), "nvme_slots") == [
        "2 of 4 NVMe drive(s) have no M.2 slot left on the B650 board (or its add-in card)."
    ]


def test_it_accepts_a_gen5_drive_in_a_gen5_slot() -> None:
    assert (
        messages(make_spec(nvme_drive=NvmeDriveFactory.build(pcie_gen=5)), "nvme_generation") == []
    )


def test_it_rejects_a_gen5_drive_in_a_gen4_slot() -> None:
    drive = NvmeDriveFactory.build(name="Crucial T705 2TB", pcie_gen=5)
    board = MotherboardFactory.build(m2_slot_gens=[4, 4])
    assert messages(make_spec(nvme_drive=drive, motherboard=board), "nvme_generation") == [
        "NVMe generation above the slot's: the Crucial T705 2TB is PCIe 5.0 but lands in a "
        "PCIe 4.0 slot."
    ]

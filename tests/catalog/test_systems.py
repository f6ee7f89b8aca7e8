"""Whole systems (unified memory): a build by themselves, candidates for inference, and the
shipped ones with their bandwidth, GPU FLOPS, source and dated price."""

from __future__ import annotations

from decimal import Decimal

import pytest

from catalog.compatibility import build_problems
from catalog.fixture_data.systems import gpu_tflops
from catalog.generator import CatalogSnapshot, system_candidates
from catalog.models import Cpu, PriceObservation, System
from catalog.selectors import system_candidate_list
from catalog.spec import BuildSpec
from tests.catalog.conftest import make_spec
from tests.catalog.factories import SystemFactory

# Apple's figures: M4 Pro 273 GB/s, M4 Max (40-core GPU) 546 GB/s, M3 Ultra 819 GB/s.
APPLE_GBPS = {
    "Mac mini M4 Pro 64GB": 273,
    "Mac Studio M4 Max 128GB": 546,
    "Mac Studio M3 Ultra 96GB": 819,
    "Mac Studio M3 Ultra 512GB": 819,
    # the binned M4 Max (14-core CPU, 32-core GPU) and M4 Pro (12/16): Apple's launch figures as
    # launch coverage quotes them
    "Mac Studio M4 Max 36GB": 410,
    "Mac mini M4 Pro 24GB": 273,
}
# The integrated machines of other makers: DGX Spark (GB10, LPDDR5x on 256 bits) and Strix
# Halo (Ryzen AI Max+ 395): their makers' bandwidth figures.
OTHER_GBPS = {
    "NVIDIA DGX Spark Founders Edition 128GB": 273,
    "Framework Desktop Ryzen AI Max+ 395 128GB": 256,
    "Bosgame M5 128GB": 256,
}


def test_a_system_alone_is_a_complete_build() -> None:
    assert build_problems(BuildSpec(system=SystemFactory.build(), system_count=1)) == []


def test_a_system_takes_no_other_parts() -> None:
    spec = make_spec(system=SystemFactory.build(name="Mac X"), system_count=1)
    [problem] = build_problems(spec)
    assert problem.rule == "required_parts"
    assert problem.message.startswith("The Mac X is a whole system and takes no other parts")


def test_a_cluster_of_a_system_without_a_published_network_speed_is_refused() -> None:
    system = SystemFactory.build(name="Mac X", network_gbit_per_s=None)
    problems = build_problems(BuildSpec(system=system, system_count=2))
    assert [p.rule for p in problems] == ["required_parts"]
    assert problems[0].message.startswith("2 Mac X systems split a model over their network")
    assert "hardware.machines and network_gbit_per_s" in problems[0].message
    with pytest.raises(ValueError, match="no published network port speed"):
        BuildSpec(system=system, system_count=2).any_hardware()


def test_a_cluster_over_the_systems_own_network_port_is_a_complete_build() -> None:
    system = SystemFactory.build(network_gbit_per_s=10.0)
    spec = BuildSpec(system=system, system_count=4)
    assert build_problems(spec) == []
    assert spec.any_hardware() == BuildSpec.system_hardware(system, machines=4)
    hardware = BuildSpec.system_hardware(system, machines=4)
    assert (hardware.get("machines"), hardware.get("network_gbit_per_s")) == (4, 10.0)
    # each machine's memory as the engine takes it: it adds them up itself
    assert hardware["unified"]["mem_gb"] == system.memory_gb
    assert "machines" not in BuildSpec(system=system, system_count=1).any_hardware()


def test_clusters_of_two_are_candidates_where_the_port_speed_is_published() -> None:
    studio = SystemFactory.build(name="Mac Studio", memory_gb=96, network_gbit_per_s=10.0)
    mini = SystemFactory.build(name="Mac mini", memory_gb=64, network_gbit_per_s=None)
    studio.pk = studio.id = 1
    mini.pk = mini.id = 2
    snapshot = CatalogSnapshot(
        parts={"system": [studio, mini]}, prices_usd={1: Decimal(3999), 2: Decimal(1999)}
    )
    found = {
        c.name: (c.total_usd, c.ram_gb, c.spec.system_count) for c in system_candidates(snapshot)
    }
    assert found == {
        "Mac Studio": (Decimal(3999), 96, 1),
        "2x Mac Studio | 10 Gbit/s network": (Decimal(7998), 192, 2),
        "Mac mini": (Decimal(1999), 64, 1),
    }
    four = system_candidates(snapshot, cluster_sizes=(4,))
    assert [(c.name, c.total_usd) for c in four if c.spec.system_count > 1] == [
        ("4x Mac Studio | 10 Gbit/s network", Decimal(15996))
    ]


def test_every_priced_system_is_a_candidate_by_itself() -> None:
    mac = SystemFactory.build(name="Mac Studio", memory_gb=96)
    mac.pk = mac.id = 1
    snapshot = CatalogSnapshot(parts={"system": [mac]}, prices_usd={1: Decimal(3999)})
    [candidate] = system_candidates(snapshot, cluster_sizes=())
    assert (candidate.name, candidate.total_usd, candidate.ram_gb) == (
        "Mac Studio",
        Decimal(3999),
        96,
    )
    assert candidate.storage_tier is None
    assert candidate.spec.lines() == [(mac, 1)]


def test_m4_max_gpu_flops_are_cores_times_lanes_times_fma_times_clock() -> None:
    # 40 GPU cores x 128 FP32 lanes x 2 FLOPs per FMA x 1.578 GHz = 16.16 TFLOPS.
    assert gpu_tflops(40, 1.578) == 16.2


@pytest.mark.django_db
@pytest.mark.usefixtures("catalog_fixtures")
def test_the_shipped_systems_have_their_makers_memory_bandwidth() -> None:
    shipped = dict(System.objects.values_list("name", "mem_bandwidth_gbps"))
    assert shipped == APPLE_GBPS | OTHER_GBPS


@pytest.mark.django_db
@pytest.mark.usefixtures("catalog_fixtures")
def test_every_shipped_system_cites_a_source_and_has_a_dated_price() -> None:
    for system in System.objects.all():
        assert system.name in APPLE_GBPS | OTHER_GBPS
        assert system.source.count("https://") >= 2
        observation = PriceObservation.objects.filter(part=system).latest("observed_on")
        assert observation.observed_on.year >= 2024
        assert observation.source_url


@pytest.mark.django_db
@pytest.mark.usefixtures("catalog_fixtures")
def test_the_shipped_systems_are_inference_candidates_alone_and_two_over_their_port() -> None:
    names = {candidate.name for candidate in system_candidate_list()}
    ports = dict(System.objects.values_list("name", "network_gbit_per_s"))
    pairs = {f"2x {name} | {gbit:g} Gbit/s network" for name, gbit in ports.items()}
    assert names == set(APPLE_GBPS) | set(OTHER_GBPS) | pairs


@pytest.mark.django_db
@pytest.mark.usefixtures("catalog_fixtures")
def test_every_shipped_systems_network_port_has_its_published_speed_and_source() -> None:
    ports = {s.name: (s.network_gbit_per_s, s.network_source) for s in System.objects.all()}
    assert {name: gbit for name, (gbit, _) in ports.items()} == {
        "Mac mini M4 Pro 64GB": 1.0,  # standard Gigabit Ethernet
        "Mac mini M4 Pro 24GB": 1.0,
        "Mac Studio M4 Max 36GB": 10.0,
        "Mac Studio M4 Max 128GB": 10.0,
        "Mac Studio M3 Ultra 96GB": 10.0,
        "Mac Studio M3 Ultra 512GB": 10.0,
        "NVIDIA DGX Spark Founders Edition 128GB": 10.0,  # the RJ-45 port
        "Framework Desktop Ryzen AI Max+ 395 128GB": 5.0,  # RTL8126
        "Bosgame M5 128GB": 2.5,  # RTL8125
    }
    for _, source in ports.values():
        assert "read 2026-12-06" in source
        assert "https://" in source or "GitHub " in source


@pytest.mark.django_db
@pytest.mark.usefixtures("catalog_fixtures")
def test_every_shipped_cpu_has_a_simd_width_and_clock() -> None:
    widths = set(Cpu.objects.values_list("flops_per_core_cycle", flat=True))
    assert widths == {32, 64}  # Zen 4 / Arrow Lake, Zen 5
    assert not Cpu.objects.filter(all_core_ghz__lte=2.0).exists()

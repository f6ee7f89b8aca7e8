"""CPUs and motherboards per platform: AM5, LGA1851, sTR5 (TRX50, WRX90), SP5.

`pcie_lanes` is the CPU's usable lanes; `lane_split` lists, per number of x16 cards, the
lanes each CPU-attached x16 slot gets (from the board manual's slot table). Only slots the
CPU feeds are listed: chipset-fed x4 slots are not counted as GPU slots."""

from typing import Any

from catalog.fixture_data.sources import EST, FEB_2026, SEED, SEED_000


def _cpu(
    pk: int, name: str, maker: str, socket: str, cores: int, channels: int, speed: int,
    lanes: int, tdp: int, simd: tuple[int, float], source: str, *,
    chipsets: list[str] | None = None, max_cpus: int = 1, notes: str = "",
) -> dict[str, Any]:  # fmt: skip
    """`simd`: (FP32 FLOPs per core per cycle, all-core GHz), see FLOPS_PER_CYCLE."""
    flops, ghz = simd
    return {
        "pk": pk, "kind": "cpu", "name": name, "manufacturer": maker, "source": source,
        "notes": notes,
        "fields": {
            "socket": socket, "cores": cores, "memory_channels": channels,
            "memory_gen": "DDR5", "memory_speed_mts": speed, "pcie_lanes": lanes,
            "pcie_gen": 5, "tdp_w": tdp, "chipsets": chipsets or [], "max_cpus": max_cpus,
            "flops_per_core_cycle": flops, "all_core_ghz": ghz,
        },
    }  # fmt: skip


def _board(
    pk: int, name: str, maker: str, socket: str, chipset: str, form: str, gen: int,
    split: dict[str, list[int]], m2: list[int], slots: int, max_gb: int, source: str,
    *, module: str = "UDIMM", sockets: int = 1, notes: str = "",
) -> dict[str, Any]:  # fmt: skip
    return {
        "pk": pk, "kind": "motherboard", "name": name, "manufacturer": maker,
        "source": source, "notes": notes,
        "fields": {
            "socket": socket, "cpu_sockets": sockets, "chipset": chipset, "form_factor": form,
            "pcie_gen": gen, "lane_split": split, "m2_slot_gens": m2, "ram_slots": slots,
            "max_ram_gb": max_gb, "memory_gen": "DDR5", "module_type": module,
        },
    }  # fmt: skip


def _x16(count: int) -> dict[str, list[int]]:
    """Every card at x16, up to `count` cards (boards with enough CPU lanes)."""
    return {str(n): [16] * n for n in range(1, count + 1)}


AMD_RYZEN = "https://www.amd.com/en/products/processors/desktops/ryzen.html"
AMD_TR = "https://www.amd.com/en/products/processors/workstations/ryzen-threadripper.html"
AMD_EPYC = "https://www.amd.com/en/products/processors/server/epyc.html"
INTEL_ARK = "https://www.intel.com/content/www/us/en/products/details/processors/core-ultra.html"
SEED_A = f"{SEED_000} (build A)"
SEED_BC = f"{SEED_000} (builds B, C)"
SEED_D = f"{SEED_000} (build D)"
TRX50 = ["TRX50"]
REPRESENTATIVE = (
    "The seed names only the class and price; this model is the planner's representative "
    "of that class, with the seed's price."
)

# FP32 FLOPs per core per cycle, an FMA counting two: Zen 4 runs AVX-512 on 256-bit units
# (2 FMA x 8 lanes x 2 = 32), Zen 5 desktop and server cores have full 512-bit units (64;
# AMD "Zen 5" architecture disclosure, Hot Chips 2024), Arrow Lake has no AVX-512: Lion
# Cove P-cores 2 x 256-bit FMA (32), Skymont E-cores 4 x 128-bit FMA (32) (Intel
# Architecture Day 2024). All-core GHz is the datasheet base clock, the frequency held
# under sustained all-core vector load (seed 003's EPYC 9175F validation uses its base
# 4.2 GHz); Intel's is the core-count-weighted mean of P- and E-core base clocks.
ZEN4, ZEN5, ARROW_LAKE = 32, 64, 32


def _mean_ghz(p_cores: int, p_ghz: float, e_cores: int, e_ghz: float) -> float:
    return round((p_cores * p_ghz + e_cores * e_ghz) / (p_cores + e_cores), 2)


CPUS = [
    # AM5: 28 lanes, 24 usable (4 go to the chipset); 2 DDR5 channels.
    _cpu(201, "Ryzen 5 7600", "AMD", "AM5", 6, 2, 5200, 24, 65, (ZEN4, 3.8),
         f"{SEED_A}; {AMD_RYZEN}"),
    _cpu(202, "Ryzen 7 9700X", "AMD", "AM5", 8, 2, 5600, 24, 65, (ZEN5, 3.8),
         f"{SEED_BC}; {AMD_RYZEN}"),
    _cpu(203, "Ryzen 9 9900X", "AMD", "AM5", 12, 2, 5600, 24, 120, (ZEN5, 4.4),
         f"{SEED_D}; {AMD_RYZEN}"),
    _cpu(204, "Ryzen 9 9950X", "AMD", "AM5", 16, 2, 5600, 24, 170, (ZEN5, 4.3), AMD_RYZEN),
    # LGA1851: 24 CPU lanes (20 Gen5 + 4 Gen4); TDP is Intel's processor base power.
    _cpu(211, "Core Ultra 5 245K", "Intel", "LGA1851", 14, 2, 6400, 24, 125,
         (ARROW_LAKE, _mean_ghz(6, 4.2, 8, 3.6)), INTEL_ARK),
    _cpu(212, "Core Ultra 7 265K", "Intel", "LGA1851", 20, 2, 6400, 24, 125,
         (ARROW_LAKE, _mean_ghz(8, 3.9, 12, 3.3)), INTEL_ARK),
    _cpu(213, "Core Ultra 9 285K", "Intel", "LGA1851", 24, 2, 6400, 24, 125,
         (ARROW_LAKE, _mean_ghz(8, 3.7, 16, 3.2)), INTEL_ARK),
    # sTR5: non-PRO Threadripper runs on TRX50 only; PRO runs on TRX50 and WRX90.
    _cpu(221, "Threadripper 7960X", "AMD", "sTR5", 24, 4, 5200, 88, 350, (ZEN4, 4.2), AMD_TR,
         chipsets=TRX50),
    _cpu(222, "Threadripper 9960X", "AMD", "sTR5", 24, 4, 6400, 88, 350, (ZEN5, 4.2), AMD_TR,
         chipsets=TRX50),
    _cpu(223, "Threadripper PRO 7965WX", "AMD", "sTR5", 24, 8, 5200, 144, 350, (ZEN4, 4.2),
         AMD_TR),
    _cpu(224, "Threadripper PRO 7975WX", "AMD", "sTR5", 32, 8, 5200, 144, 350, (ZEN4, 4.0),
         AMD_TR),
    # SP5: 12 DDR5 channels, 128 Gen5 lanes per socket. "P" parts are single-socket only.
    _cpu(231, "EPYC 9124", "AMD", "SP5", 16, 12, 4800, 128, 200, (ZEN4, 3.0), AMD_EPYC,
         max_cpus=2),
    _cpu(232, "EPYC 9135", "AMD", "SP5", 16, 12, 6000, 128, 200, (ZEN5, 3.65), AMD_EPYC,
         max_cpus=2),
    _cpu(233, "EPYC 9354P", "AMD", "SP5", 32, 12, 4800, 128, 280, (ZEN4, 3.25), AMD_EPYC),
]  # fmt: skip

BOARDS = [
    # --- AM5 ----------------------------------------------------------------------------
    _board(301, "MSI PRO B650-P WIFI", "MSI", "AM5", "B650", "ATX", 4, _x16(1), [4, 4], 4, 192,
           f"{SEED_000} (build A: 'B650 / X670E AM5', $150); https://www.msi.com/Motherboard/"
           "PRO-B650-P-WIFI/Specification", notes=REPRESENTATIVE),
    _board(302, "ASUS ProArt X870E-CREATOR WIFI", "ASUS", "AM5", "X870E", "ATX", 5,
           {"1": [16], "2": [8, 8]}, [5, 4, 4, 4], 4, 256,
           f"{SEED_000} (builds B-D: 'X870E with dual x16', $320); https://www.asus.com/"
           "motherboards-components/motherboards/proart/proart-x870e-creator-wifi/techspec/",
           notes=f"{REPRESENTATIVE} x16, or x8/x8 with two cards. M.2 lane sharing with the "
           "second x16 slot is not modelled; the non-CPU M.2 slots count as Gen4."),
    _board(303, "ASRock X870E Taichi", "ASRock", "AM5", "X870E", "E-ATX", 5,
           {"1": [16], "2": [8, 8]}, [5, 5, 4, 4], 4, 256,
           "https://www.asrock.com/mb/AMD/X870E%20Taichi/Specification.asp"),
    _board(304, "MSI PRO X870-P WIFI", "MSI", "AM5", "X870", "ATX", 5, _x16(1), [5, 4, 4], 4,
           256, "https://www.msi.com/Motherboard/PRO-X870-P-WIFI/Specification"),
    # --- LGA1851 --------------------------------------------------------------------------
    _board(311, "ASUS PRIME Z890-P WIFI", "ASUS", "LGA1851", "Z890", "ATX", 5, _x16(1),
           [5, 4, 4, 4], 4, 192,
           "https://www.asus.com/motherboards-components/motherboards/prime/prime-z890-p-wifi/"
           "techspec/"),
    _board(312, "MSI MAG Z890 TOMAHAWK WIFI", "MSI", "LGA1851", "Z890", "ATX", 5, _x16(1),
           [5, 4, 4, 4], 4, 256,
           "https://www.msi.com/Motherboard/MAG-Z890-TOMAHAWK-WIFI/Specification"),
    _board(313, "ASUS ProArt Z890-CREATOR WIFI", "ASUS", "LGA1851", "Z890", "ATX", 5,
           {"1": [16], "2": [8, 8]}, [5, 4, 4, 4], 4, 192,
           "https://www.asus.com/motherboards-components/motherboards/proart/"
           "proart-z890-creator-wifi/techspec/"),
    # --- sTR5: TRX50 (4 RDIMM channels) and WRX90 (8 channels) ---------------------------
    _board(321, "ASUS Pro WS TRX50-SAGE WIFI", "ASUS", "sTR5", "TRX50", "E-ATX", 5, _x16(3),
           [5, 5, 4], 4, 512,
           "https://www.asus.com/motherboards-components/motherboards/workstation/"
           "pro-ws-trx50-sage-wifi/techspec/", module="RDIMM",
           notes="Three CPU x16 Gen5 slots; the fourth slot (Gen4 x8) is not used for GPUs."),
    _board(322, "ASRock TRX50 WS", "ASRock", "sTR5", "TRX50", "E-ATX", 5, _x16(2),
           [5, 5, 4, 4], 4, 512,
           "https://www.asrock.com/mb/AMD/TRX50%20WS/Specification.asp", module="RDIMM"),
    _board(323, "GIGABYTE TRX50 AERO D", "GIGABYTE", "sTR5", "TRX50", "E-ATX", 5, _x16(3),
           [5, 5, 5, 4], 4, 512,
           "https://www.gigabyte.com/Motherboard/TRX50-AERO-D-rev-10/sp", module="RDIMM"),
    _board(324, "ASUS Pro WS WRX90E-SAGE SE", "ASUS", "sTR5", "WRX90", "SSI-EEB", 5,
           {**_x16(6), "7": [16, 16, 16, 16, 16, 16, 8]}, [5, 5, 5, 5], 8, 2048,
           "https://www.asus.com/motherboards-components/motherboards/workstation/"
           "pro-ws-wrx90e-sage-se/techspec/", module="RDIMM",
           notes="Seven x16 slots: six wired x16, one x8."),
    _board(325, "ASRock WRX90 WS EVO", "ASRock", "sTR5", "WRX90", "SSI-EEB", 5, _x16(7),
           [5, 5], 8, 2048,
           "https://www.asrock.com/mb/AMD/WRX90%20WS%20EVO/Specification.asp", module="RDIMM"),
    # --- SP5 ------------------------------------------------------------------------------
    _board(331, "Supermicro H13SSL-N", "Supermicro", "SP5", "SoC", "E-ATX", 5, _x16(3), [5, 5],
           12, 3072, "https://www.supermicro.com/en/products/motherboard/h13ssl-n",
           module="RDIMM", notes="Three x16 Gen5 slots plus two x8 (not used for GPUs)."),
    _board(332, "GIGABYTE MZ33-AR0", "GIGABYTE", "SP5", "SoC", "E-ATX", 5, _x16(4), [5], 24,
           3072, "https://www.gigabyte.com/Enterprise/Server-Motherboard/MZ33-AR0-rev-1x",
           module="RDIMM"),
    _board(333, "ASRock Rack TURIN2D24G-2L+ (4U8G-TURIN2 system board)", "ASRock Rack", "SP5",
           "SoC", "proprietary", 5, _x16(8), [5, 5, 5, 5, 3, 3], 24, 3072,
           "https://www.asrockrack.com/general/productdetail.asp?Model=4U8G-TURIN2; "
           "https://www.servethehome.com/asrock-rack-4u8g-turin2-amd-nvidia-broadcom-"
           "classic-ai-8-gpu/2/ (eight Gen5 x16 double-width slots, 12 RDIMM per socket, "
           "four front NVMe bays on 16 Gen5 lanes, two Gen3 M.2)", module="RDIMM", sockets=2,
           notes="Dual SP5. Sold only inside the 4U8G-TURIN2 barebone. Storage slots: the "
           "four front Gen5 x4 NVMe bays (U.2; an M.2 drive needs an adapter) counted as "
           "Gen5, then the two Gen3 M.2 slots under the storage."),
]  # fmt: skip

PLATFORM_PRICES = [
    (201, "180", "new", SEED, FEB_2026),
    (202, "300", "new", SEED, FEB_2026),
    (203, "400", "new", SEED, FEB_2026),
    (204, "550", "new", EST, FEB_2026),
    (211, "230", "new", EST, FEB_2026),
    (212, "290", "new", EST, FEB_2026),
    (213, "560", "new", EST, FEB_2026),
    (221, "1400", "new", EST, FEB_2026),
    (222, "1500", "new", EST, FEB_2026),
    (223, "2650", "new", EST, FEB_2026),
    (224, "4000", "new", EST, FEB_2026),
    (231, "1100", "new", EST, FEB_2026),
    (232, "1200", "new", EST, FEB_2026),
    (233, "2700", "new", EST, FEB_2026),
    (301, "150", "new", SEED, FEB_2026),
    (302, "320", "new", SEED, FEB_2026),
    (303, "450", "new", EST, FEB_2026),
    (304, "230", "new", EST, FEB_2026),
    (311, "230", "new", EST, FEB_2026),
    (312, "300", "new", EST, FEB_2026),
    (313, "480", "new", EST, FEB_2026),
    (321, "950", "new", EST, FEB_2026),
    (322, "800", "new", EST, FEB_2026),
    (323, "900", "new", EST, FEB_2026),
    (324, "1300", "new", EST, FEB_2026),
    (325, "1200", "new", EST, FEB_2026),
    (331, "750", "new", EST, FEB_2026),
    (332, "900", "new", EST, FEB_2026),
    (333, "3000", "new", EST, FEB_2026),
]

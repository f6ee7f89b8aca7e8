"""CPUs and motherboards per platform: AM5, LGA1851, sTR5 (TRX50, WRX90), SP5.

`pcie_lanes` is the CPU's usable lanes; `lane_split` lists, per number of x16 cards, the
lanes each CPU-attached x16 slot gets (from the board manual's slot table). Only slots the
CPU feeds are listed: chipset-fed x4 slots are not counted as GPU slots."""

from typing import Any

from catalog.fixture_data.devices import device_part
from catalog.fixture_data.sources import EST, FEB_2026, SEED, SEED_000
from simulator.engine import Cpu


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


TRX50 = ["TRX50"]
REPRESENTATIVE = (
    "The seed names only the class and price; this model is the planner's representative "
    "of that class, with the seed's price."
)

# CPUs: records of the engine's device table (cores, memory channels, FLOPs per cycle
# and their sources there).
CPUS = [
    device_part(201, Cpu, "ryzen-5-7600"),
    device_part(202, Cpu, "ryzen-7-9700x"),
    device_part(203, Cpu, "ryzen-9-9900x"),
    device_part(204, Cpu, "ryzen-9-9950x"),
    device_part(211, Cpu, "core-ultra-5-245k"),
    device_part(212, Cpu, "core-ultra-7-265k"),
    device_part(213, Cpu, "core-ultra-9-285k"),
    device_part(221, Cpu, "threadripper-7960x"),
    device_part(222, Cpu, "threadripper-9960x"),
    device_part(223, Cpu, "threadripper-pro-7965wx"),
    device_part(224, Cpu, "threadripper-pro-7975wx"),
    device_part(231, Cpu, "epyc-9124"),
    device_part(232, Cpu, "epyc-9135"),
    device_part(233, Cpu, "epyc-9354p"),
]

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

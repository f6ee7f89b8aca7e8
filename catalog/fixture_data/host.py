"""NVMe drives and add-in cards, RAM kits, power supplies and cases."""

from typing import Any

from catalog.fixture_data.sources import EST, FEB_2026, SEED, SEED_000

MID_2025 = "2025-07-01"


def _part(pk: int, kind: str, name: str, maker: str, source: str, notes: str = "",
          **fields: Any) -> dict[str, Any]:  # fmt: skip
    return {"pk": pk, "kind": kind, "name": name, "manufacturer": maker, "source": source,
            "notes": notes, "fields": fields}  # fmt: skip


def _nvme(pk: int, name: str, maker: str, gb: int, gen: int, read: float, source: str,
          notes: str = "") -> dict[str, Any]:  # fmt: skip
    return _part(pk, "nvme_drive", name, maker, source, notes, capacity_gb=gb, pcie_gen=gen,
                 seq_read_gbps=read)  # fmt: skip


def _ram(pk: int, name: str, maker: str, gb: int, module: str, speed: int, modules: int,
         source: str, notes: str = "") -> dict[str, Any]:  # fmt: skip
    return _part(pk, "ram_kit", name, maker, source, notes, capacity_gb=gb, memory_gen="DDR5",
                 module_type=module, speed_mts=speed, modules=modules)  # fmt: skip


def _psu(pk: int, name: str, maker: str, watts: int, efficiency: str, source: str,
         form: str = "ATX", notes: str = "") -> dict[str, Any]:  # fmt: skip
    return _part(pk, "psu", name, maker, source, notes, watts=watts, psu_form_factor=form,
                 efficiency=efficiency)  # fmt: skip


def _case(pk: int, name: str, maker: str, boards: list[str], slots: int, gpu_mm: int,
          source: str, size: str, psu: str = "ATX", notes: str = "", bay_width: int = 4,
          ) -> dict[str, Any]:  # fmt: skip
    return _part(pk, "case", name, maker, source, notes, board_form_factors=boards,
                 psu_form_factor=psu, expansion_slots=slots, max_gpu_length_mm=gpu_mm,
                 max_gpu_slot_width=bay_width, size=size)  # fmt: skip


REPRESENTATIVE = (
    "The seed names only the class and price; this model is the planner's representative "
    "of that class, with the seed's price."
)
# Where the maker's own page could not be read, a case's size class is a retailer's or
# catalogue's, named with its pointer in the part's notes.
THIRD_PARTY_CLASS = "from third-party listings, the maker's page not read"
ATX_BOARDS = ["mATX", "ATX"]
BIG_BOARDS = ["mATX", "ATX", "E-ATX", "SSI-EEB"]

NVME_DRIVES = [
    _nvme(401, "Samsung 970 EVO Plus 2TB", "Samsung", 2000, 3, 3.5,
          "https://semiconductor.samsung.com/consumer-storage/internal-ssd/970evoplus/"),
    _nvme(402, "Crucial P3 2TB", "Crucial", 2000, 3, 3.5,
          "https://www.crucial.com/ssd/p3/ct2000p3ssd8"),
    _nvme(411, "Samsung 990 PRO 2TB", "Samsung", 2000, 4, 7.45,
          f"{SEED_000} (builds A, B: '2TB Gen4 (Samsung 990 Pro)', $170); "
          "https://semiconductor.samsung.com/consumer-storage/internal-ssd/990-pro/"),
    _nvme(412, "Samsung 990 PRO 4TB", "Samsung", 4000, 4, 7.45,
          "https://semiconductor.samsung.com/consumer-storage/internal-ssd/990-pro/"),
    _nvme(413, "WD_BLACK SN850X 2TB", "Western Digital", 2000, 4, 7.3,
          "https://www.westerndigital.com/products/internal-drives/wd-black-sn850x-nvme-ssd"),
    _nvme(414, "Crucial P3 Plus 2TB", "Crucial", 2000, 4, 5.0,
          "https://www.crucial.com/ssd/p3-plus/ct2000p3pssd8"),
    _nvme(415, "Crucial T500 2TB", "Crucial", 2000, 4, 7.4,
          "https://www.crucial.com/ssd/t500/ct2000t500ssd8"),
    _nvme(421, "Crucial T705 2TB", "Crucial", 2000, 5, 14.5,
          f"{SEED_000} (builds C, D: '2TB Gen5 (Crucial T705)', $225); "
          "https://www.crucial.com/ssd/t705/ct2000t705ssd3"),
    _nvme(422, "Crucial T700 2TB", "Crucial", 2000, 5, 12.4,
          "https://www.crucial.com/ssd/t700/ct2000t700ssd3"),
    _nvme(423, "Samsung 9100 PRO 2TB", "Samsung", 2000, 5, 14.7,
          "https://semiconductor.samsung.com/consumer-storage/internal-ssd/9100-pro/"),
    _nvme(424, "WD_BLACK SN8100 2TB", "Western Digital", 2000, 5, 14.9,
          "https://www.westerndigital.com/products/internal-drives/wd-black-sn8100-nvme-ssd"),
]  # fmt: skip

NVME_CARDS = [
    _part(451, "nvme_card", "ASUS Hyper M.2 x16 Gen5 Card", "ASUS",
          "https://www.asus.com/motherboards-components/motherboards/accessories/"
          "hyper-m-2-x16-gen5-card/techspec/", "Needs x4x4x4x4 bifurcation of an x16 slot.",
          pcie_gen=5, m2_slots=4, host_lanes=16, slot_width=1),
    _part(452, "nvme_card", "ASUS Hyper M.2 x16 Gen 4 Card", "ASUS",
          "https://www.asus.com/motherboards-components/motherboards/accessories/"
          "hyper-m-2-x16-gen-4-card/techspec/", "Needs x4x4x4x4 bifurcation of an x16 slot.",
          pcie_gen=4, m2_slots=4, host_lanes=16, slot_width=1),
]  # fmt: skip

KINGSTON_FURY = "https://www.kingston.com/en/memory/gaming/kingston-fury-beast-ddr5-memory"
KINGSTON_SERVER = "https://www.kingston.com/en/memory/server-premier"
RAM_KITS = [
    _ram(501, "Kingston FURY Beast 32GB (2x16GB) DDR5-6000", "Kingston", 32, "UDIMM", 6000, 2,
         f"{SEED_000} (builds A-C: '32GB DDR5 (2x16)', $200); {KINGSTON_FURY}",
         REPRESENTATIVE),
    _ram(502, "Kingston FURY Beast 64GB (2x32GB) DDR5-6000", "Kingston", 64, "UDIMM", 6000, 2,
         f"{SEED_000} (build D: '64GB DDR5 (2x32)', $400; '$200 in mid-2025'); "
         f"{KINGSTON_FURY}", REPRESENTATIVE),
    _ram(503, "G.Skill Flare X5 96GB (2x48GB) DDR5-6000", "G.Skill", 96, "UDIMM", 6000, 2,
         "https://www.gskill.com/product/165/390/1693212937/F5-6000J3040G48GX2-FX5"),
    _ram(504, "Corsair Vengeance 128GB (4x32GB) DDR5-5600", "Corsair", 128, "UDIMM", 5600, 4,
         "https://www.corsair.com/us/en/c/memory/vengeance-ddr5"),
    _ram(505, "Crucial 128GB (2x64GB) DDR5-5600 UDIMM", "Crucial", 128, "UDIMM", 5600, 2,
         "https://www.crucial.com/memory/ddr5/ct2k64g56c46u5"),
    _ram(506, "Corsair Vengeance 192GB (4x48GB) DDR5-5200", "Corsair", 192, "UDIMM", 5200, 4,
         "https://www.corsair.com/us/en/c/memory/vengeance-ddr5"),
    _ram(511, "Kingston Server Premier 128GB (4x32GB) DDR5-5600 RDIMM", "Kingston", 128,
         "RDIMM", 5600, 4, KINGSTON_SERVER),
    _ram(512, "Kingston Server Premier 256GB (8x32GB) DDR5-5600 RDIMM", "Kingston", 256,
         "RDIMM", 5600, 8, KINGSTON_SERVER),
    _ram(513, "Kingston Server Premier 256GB (4x64GB) DDR5-5600 RDIMM", "Kingston", 256,
         "RDIMM", 5600, 4, KINGSTON_SERVER),
    _ram(514, "Kingston Server Premier 512GB (8x64GB) DDR5-5600 RDIMM", "Kingston", 512,
         "RDIMM", 5600, 8, KINGSTON_SERVER),
    _ram(515, "Kingston Server Premier 64GB (2x32GB) DDR5-5600 RDIMM", "Kingston", 64,
         "RDIMM", 5600, 2, KINGSTON_SERVER),
    _ram(516, "Kingston Server Premier 32GB (2x16GB) DDR5-5600 RDIMM", "Kingston", 32,
         "RDIMM", 5600, 2, KINGSTON_SERVER),
]  # fmt: skip

PSUS = [
    _psu(601, "Corsair RM850e", "Corsair", 850, "80 PLUS Gold",
         f"{SEED_000} (build A: '850W', $120); https://www.corsair.com/us/en/c/"
         "power-supply-units", notes=REPRESENTATIVE),
    _psu(602, "Corsair RM1000e", "Corsair", 1000, "80 PLUS Gold",
         f"{SEED_000} (build C: '1000W', $150); https://www.corsair.com/us/en/c/"
         "power-supply-units", notes=REPRESENTATIVE),
    _psu(603, "EVGA SuperNOVA 1600 G+", "EVGA", 1600, "80 PLUS Gold",
         f"{SEED_000} (build B: '1600W', $250); https://www.evga.com/products/"
         "product.aspx?pn=120-GP-1600-X1", notes=REPRESENTATIVE),
    _psu(604, "Seasonic PRIME PX-1600", "Seasonic", 1600, "80 PLUS Platinum",
         f"{SEED_000} (build D: '1600W', $300); https://seasonic.com/prime-px/",
         notes=REPRESENTATIVE),
    _psu(605, "Corsair RM1200x SHIFT", "Corsair", 1200, "80 PLUS Gold",
         "https://www.corsair.com/us/en/c/power-supply-units"),
    _psu(606, "Corsair HX1500i", "Corsair", 1500, "80 PLUS Platinum",
         "https://www.corsair.com/us/en/c/power-supply-units",
         notes="The 2025 model (ATX 3.1), the one on sale and the one priced."),
    _psu(607, "Corsair RM750e", "Corsair", 750, "80 PLUS Gold",
         "https://www.corsair.com/us/en/c/power-supply-units",
         notes="The 2025 model (ATX 3.1), the one on sale and the one priced."),
    _psu(611, "2.7 kW Titanium CRPS module (4U8G-TURIN2)", "ASRock Rack", 2700,
         "80 PLUS Titanium",
         "https://www.servethehome.com/asrock-rack-4u8g-turin2-amd-nvidia-broadcom-classic-"
         "ai-8-gpu/4/ (spec: 2.7 kW 80 PLUS Titanium supplies)", form="server",
         notes="Redundancy is not modelled: the planner adds the watts of every module."),
]  # fmt: skip

CASES = [
    _case(701, "Phanteks XT PRO", "Phanteks", ATX_BOARDS, 7, 415,
          f"{SEED_000} (build A: 'Mid-tower', $80); https://phanteks.com/xt-pro",
          "mid_tower", notes=REPRESENTATIVE),
    _case(702, "Fractal Design Pop Air", "Fractal Design", ATX_BOARDS, 7, 405,
          f"{SEED_000} (build C: 'Mid-tower', $100); https://www.fractal-design.com/products/"
          "cases/pop/pop-air/", "mid_tower", notes=REPRESENTATIVE),
    _case(703, "Phanteks Enthoo Pro 2 Server Edition", "Phanteks", BIG_BOARDS, 8, 503,
          f"{SEED_000} (builds B, D: 'Full tower', $160); https://phanteks.com/"
          "enthoo-pro-2-server-edition", "full_tower", notes=REPRESENTATIVE),
    _case(704, "Fractal Design Meshify 2 XL", "Fractal Design", BIG_BOARDS, 9, 524,
          "https://www.fractal-design.com/products/cases/meshify/meshify-2-xl/", "full_tower",
          notes=f"Size class {THIRD_PARTY_CLASS}: 'Full Tower' (case catalogues, GitHub index "
          "ids 62453801787 and 56702289012, read 2026-11-26)."),
    _case(705, "Lian Li O11 Dynamic EVO XL", "Lian Li", ["mATX", "ATX", "E-ATX"], 8, 460,
          "https://lian-li.com/product/o11d-evo-xl/", "full_tower",
          notes=f"Size class {THIRD_PARTY_CLASS}: 'eATX full tower', 'Full-Tower Modular Glass "
          "Gaming Case' (case catalogues, GitHub index ids 58186870542 and 67222149505, read "
          "2026-11-26)."),
    _case(711, "ASRock Rack 4U8G-TURIN2 chassis", "ASRock Rack", ["proprietary"], 16, 312,
          "https://www.asrockrack.com/general/productdetail.asp?Model=4U8G-TURIN2 (eight "
          "double-width full-height full-length Gen5 slots)", "rack", psu="server", bay_width=2,
          notes="Barebone chassis with fans; board and PSU modules listed separately."),
]  # fmt: skip

HOST_PRICES = [
    (401, "130", "new", EST, FEB_2026),
    (402, "110", "new", EST, FEB_2026),
    (411, "170", "new", SEED, FEB_2026),
    (412, "320", "new", EST, FEB_2026),
    (413, "160", "new", EST, FEB_2026),
    (414, "120", "new", EST, FEB_2026),
    (415, "150", "new", EST, FEB_2026),
    (421, "225", "new", SEED, FEB_2026),
    (422, "200", "new", EST, FEB_2026),
    (423, "250", "new", EST, FEB_2026),
    (424, "230", "new", EST, FEB_2026),
    (451, "90", "new", EST, FEB_2026),
    (452, "70", "new", EST, FEB_2026),
    (501, "200", "new", SEED, FEB_2026),
    (502, "200", "new", SEED, MID_2025),
    (502, "400", "new", SEED, FEB_2026),
    (503, "650", "new", EST, FEB_2026),
    (504, "850", "new", EST, FEB_2026),
    (505, "900", "new", EST, FEB_2026),
    (506, "1300", "new", EST, FEB_2026),
    (511, "1000", "new", EST, FEB_2026),
    (512, "2000", "new", EST, FEB_2026),
    (513, "2100", "new", EST, FEB_2026),
    (514, "4200", "new", EST, FEB_2026),
    (515, "520", "new", EST, FEB_2026),
    (516, "300", "new", EST, FEB_2026),
    (601, "120", "new", SEED, FEB_2026),
    (602, "150", "new", SEED, FEB_2026),
    (603, "250", "new", SEED, FEB_2026),
    (604, "300", "new", SEED, FEB_2026),
    (605, "230", "new", EST, FEB_2026),
    (606, "350", "new", EST, FEB_2026),
    (607, "100", "new", EST, FEB_2026),
    (611, "600", "new", EST, FEB_2026),
    (701, "80", "new", SEED, FEB_2026),
    (702, "100", "new", SEED, FEB_2026),
    (703, "160", "new", SEED, FEB_2026),
    (704, "230", "new", EST, FEB_2026),
    (705, "230", "new", EST, FEB_2026),
    (711, "6000", "new", EST, FEB_2026),
]

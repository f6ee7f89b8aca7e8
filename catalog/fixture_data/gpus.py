"""GPUs the catalog sells: records of the engine's device table (datasheet figures and sources
there), with the catalog's part numbers and prices."""

from catalog.fixture_data.devices import device_part
from catalog.fixture_data.sources import EST, FEB_2026, SEED
from simulator.engine import Gpu

GPUS = [
    device_part(101, Gpu, "rtx-4090"),
    device_part(102, Gpu, "rtx-5090"),
    device_part(103, Gpu, "a100-80g"),
    device_part(104, Gpu, "h100-80g-pcie"),
    device_part(105, Gpu, "rtx-pro-6000"),
    device_part(106, Gpu, "rtx-3090"),
    device_part(107, Gpu, "rtx-4080"),
    device_part(108, Gpu, "rtx-5080"),
    device_part(109, Gpu, "rtx-a5000"),
    device_part(110, Gpu, "rtx-a6000"),
    device_part(111, Gpu, "rtx-6000-ada"),
    device_part(112, Gpu, "l4"),
    device_part(113, Gpu, "a40"),
    device_part(114, Gpu, "l40s"),
    device_part(115, Gpu, "a100-40g"),
    device_part(116, Gpu, "h100-nvl"),
    device_part(117, Gpu, "h200-nvl"),
    device_part(118, Gpu, "rtx-3090-ti"),
    device_part(119, Gpu, "rtx-4080-super"),
    device_part(120, Gpu, "rtx-4070-ti-super"),
    device_part(121, Gpu, "rtx-5060-ti-16gb"),
    device_part(122, Gpu, "rtx-5070-ti"),
    device_part(123, Gpu, "rtx-pro-6000-blackwell-max-q"),
    device_part(124, Gpu, "radeon-rx-7900-xtx"),
    device_part(125, Gpu, "radeon-rx-7900-xt"),
    device_part(126, Gpu, "rtx-3060-12gb"),
    device_part(127, Gpu, "rtx-3080"),
    device_part(128, Gpu, "rtx-4070-super"),
    device_part(129, Gpu, "radeon-rx-9070-xt"),
    device_part(130, Gpu, "radeon-pro-w7900"),
    device_part(131, Gpu, "rtx-5070"),
    # No published price found (2026-11-29): listed unpriced, not ranked.
    device_part(132, Gpu, "instinct-mi100"),
    device_part(133, Gpu, "instinct-mi210"),
    device_part(134, Gpu, "radeon-ai-pro-r9700"),
    device_part(135, Gpu, "rtx-4060-ti-16gb"),
    # Sold used only; no dated price of one 32 GB card was found (2026-12-06): unpriced.
    device_part(136, Gpu, "radeon-instinct-mi50-32gb"),
    device_part(137, Gpu, "rtx-pro-4000-blackwell"),
    device_part(138, Gpu, "rtx-pro-4500-blackwell"),
    # The one MSRP found is the 72 GB card's (Hugging Face's hardware page): unpriced.
    device_part(139, Gpu, "rtx-pro-5000-blackwell"),
]

# (part pk, amount USD, condition, (vendor, source), observed on). Parts 118-125 have no row
# here: their only prices are the published ones in price_observations.py, and those the
# search found no price for stay unpriced.
GPU_PRICES = [
    (101, "1800", "used", SEED, FEB_2026),
    (102, "2900", "new", SEED, FEB_2026),
    (103, "12000", "new", SEED, FEB_2026),
    (104, "25000", "new", SEED, FEB_2026),
    (105, "8000", "new", SEED, FEB_2026),
    (106, "800", "used", EST, FEB_2026),
    (107, "850", "used", EST, FEB_2026),
    (108, "1300", "new", EST, FEB_2026),
    (109, "1500", "used", EST, FEB_2026),
    (110, "4000", "used", EST, FEB_2026),
    (111, "6800", "new", EST, FEB_2026),
    (112, "2300", "new", EST, FEB_2026),
    (113, "4000", "used", EST, FEB_2026),
    (114, "8500", "new", EST, FEB_2026),
    (115, "4500", "used", EST, FEB_2026),
    (116, "28000", "new", EST, FEB_2026),
    (117, "32000", "new", EST, FEB_2026),
]

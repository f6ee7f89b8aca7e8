"""Whole systems (Apple silicon, NVIDIA's DGX Spark, AMD's Strix Halo): one part is the whole
build; each a record of the engine's device table (figures and sources there).

Unified memory bandwidth is Apple's figure. Apple publishes no GPU FLOPS; `gpu_tflops` is
derived as GPU cores x 128 FP32 lanes x 2 (FMA) x GPU clock, with the clock measured by
third parties (M4 family 1.578 GHz, M3 family 1.38 GHz). Apple GPUs run FP16 at the FP32
rate, so the figure is also the FP16 peak the engine's unified device takes.
"""

from typing import Any

from catalog.fixture_data.devices import device_part
from simulator.engine import System

FP32_LANES_PER_GPU_CORE = 128
FLOPS_PER_FMA = 2

APPLE_STORE = "Apple Store (US)"
PLANNER_ESTIMATE = "planner estimate"
STUDIO_CONFIGURATOR = "https://www.apple.com/shop/buy-mac/mac-studio"
MINI_CONFIGURATOR = "https://www.apple.com/shop/buy-mac/mac-mini"
MACWORLD_STUDIO = (
    "Macworld, 'Apple unveils Mac Studio with M4 Max and M3 Ultra', 5 March 2025: "
    "M3 Ultra 28-core CPU, 60-core GPU, 96 GB, 1 TB standard configuration $3,999"
)
CONFIGURED = (
    "the planner's record of the Apple US configurator price of this configuration at "
    "launch (standard model plus chip, memory and SSD options), not a saved listing; "
    "replace with a dated listing through the admin import"
)
STUDIO_LAUNCH = "2025-03-05"
MINI_LAUNCH = "2024-10-29"


def gpu_tflops(cores: int, ghz: float) -> float:
    return round(cores * FP32_LANES_PER_GPU_CORE * FLOPS_PER_FMA * ghz / 1000, 1)


# Apple's "Mac Studio power consumption and thermal output" (support.apple.com/en-us/102027,
# 2025-03-12) gives one configuration per chip, measured at the wall: "Mac Studio (2025) M3
# Ultra 32-Core CPU & 80-Core GPU, 512GB unified memory, 16TB SSD / Idle: 9 W / Max: 270 W",
# read 2026-11-26 from a verbatim quote (GitHub index id 63172777841; the page itself was not
# readable here). The other configurations have no figure of their own: their power is left
# unpublished (a power limit leaves them out, naming them) rather than borrowed.
APPLE_MAX_POWER_W = {804: 270}


# The built-in wired Ethernet port of each system (the standard configuration's), which two of
# them joined by one cable split a model over (llama.cpp RPC). Values as published, read
# 2026-12-06; a system without one is not offered as a cluster.
POCKET_LINT_STUDIO = (
    "Pocket-lint, 'The Mac Studio gets the M4 Max and M3 Ultra chip' (spec box quoting Apple's "
    "sheet): 'Ports M4 Max: ... 10Gb Ethernet port'; 'M3 Ultra: ... 10Gb Ethernet port', "
    "https://www.pocket-lint.com/the-mac-studio-gets-the-m4-max-and-m3-ultra-chip/, read "
    "2026-12-06"
)
MINI_GIGABIT = (
    "ChannelNews launch report (2024-10-30): 'Mac Mini comes standard with Gigabit Ethernet, "
    "configurable up to 10Gb Ethernet', https://www.channelnews.com.au/small-but-fierce-new-mac-"
    "mini-has-m4-chip-and-plenty-of-ports/, read 2026-12-06 (the catalog's configurations are the "
    "standard port's)"
)
SPARK_10GBE = (
    "NVIDIA DGX Spark User Guide, Hardware Overview: 'Network | 1x RJ-45 (10 GbE), ConnectX-7 "
    "Smart NIC, Wi-Fi 7, Bluetooth 5.4', https://docs.nvidia.com/dgx/dgx-spark/hardware.html "
    "(a stored copy retrieved 2026-06-05), read 2026-12-06; the RJ-45 port, not the ConnectX-7 "
    "QSFP ports (up to 200 Gbps) a QSFP cable would join"
)
FRAMEWORK_5GBE = (
    "the board's Ethernet controller as lspci lists it on a 128GB Framework Desktop: 'Realtek "
    "Semiconductor Co., Ltd. RTL8126 5GbE Controller', GitHub kyuz0/strixhalo-homelab "
    "Hardware/Boards/Framework_Desktop_Mainboard.md, read 2026-12-06 (no Framework spec text "
    "found)"
)
BOSGAME_2_5GBE = (
    "the board's Ethernet controller as lspci lists it on a Bosgame M5 128GiB (board AXB35-02): "
    "'Realtek Semiconductor Co., Ltd. RTL8125 2.5GbE Controller (rev 05)', GitHub "
    "kyuz0/strixhalo-homelab Hardware/PCs/Bosgame_M5.md @ a52f32e8b22b714c943617edd5d95115925abbd7,"
    " read 2026-12-06 (no Bosgame spec text found)"
)
NETWORK_BY_PK: dict[int, tuple[float, str]] = {
    801: (1.0, MINI_GIGABIT),
    802: (10.0, POCKET_LINT_STUDIO),
    803: (10.0, POCKET_LINT_STUDIO),
    804: (10.0, POCKET_LINT_STUDIO),
    805: (10.0, SPARK_10GBE),
    806: (5.0, FRAMEWORK_5GBE),
    807: (2.5, BOSGAME_2_5GBE),
    808: (10.0, POCKET_LINT_STUDIO),
    809: (1.0, MINI_GIGABIT),
}


def _with_power(part: dict[str, Any]) -> dict[str, Any]:
    gbit, source = NETWORK_BY_PK.get(part["pk"], (None, ""))
    fields = {
        **part["fields"],
        "max_power_w": APPLE_MAX_POWER_W.get(part["pk"]),
        "network_gbit_per_s": gbit,
        "network_source": source,
    }
    return {**part, "fields": fields}


SYSTEMS = [
    _with_power(device_part(801, System, "mac-mini-m4-pro-64gb")),
    _with_power(device_part(802, System, "mac-studio-m4-max-128gb")),
    _with_power(device_part(803, System, "mac-studio-m3-ultra-96gb")),
    _with_power(device_part(804, System, "mac-studio-m3-ultra-512gb")),
    # Integrated machines of other makers (prices in price_observations.py)
    _with_power(device_part(805, System, "nvidia-dgx-spark-founders-edition-128gb")),
    _with_power(device_part(806, System, "framework-desktop-ryzen-ai-max-395-128gb")),
    _with_power(device_part(807, System, "bosgame-m5-128gb")),
    _with_power(device_part(808, System, "mac-studio-m4-max-36gb")),
    _with_power(device_part(809, System, "mac-mini-m4-pro-24gb")),
]

# (part pk, amount USD, condition, (vendor, source), observed on)
SYSTEM_PRICES = [
    (801, "2199", "new", (PLANNER_ESTIMATE, f"{MINI_CONFIGURATOR}; {CONFIGURED}"),
     MINI_LAUNCH),
    (802, "3499", "new", (PLANNER_ESTIMATE, f"{STUDIO_CONFIGURATOR}; {CONFIGURED}"),
     STUDIO_LAUNCH),
    (803, "3999", "new", (APPLE_STORE, f"{STUDIO_CONFIGURATOR}; {MACWORLD_STUDIO}"),
     STUDIO_LAUNCH),
    (804, "9499", "new", (PLANNER_ESTIMATE, f"{STUDIO_CONFIGURATOR}; {CONFIGURED}"),
     STUDIO_LAUNCH),
]  # fmt: skip

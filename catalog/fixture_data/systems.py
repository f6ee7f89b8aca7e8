"""Whole systems (Apple silicon): one part is the whole build.

Unified memory bandwidth is Apple's figure. Apple publishes no GPU FLOPS; `gpu_tflops` is
derived as GPU cores x 128 FP32 lanes x 2 (FMA) x GPU clock, with the clock measured by
third parties (M4 family 1.578 GHz, M3 family 1.38 GHz). Apple GPUs run FP16 at the FP32
rate, so the figure is also the FP16 peak the engine's unified device takes.
"""

from typing import Any

FP32_LANES_PER_GPU_CORE = 128
FLOPS_PER_FMA = 2
M4_GPU_GHZ = 1.578
M3_GPU_GHZ = 1.38

APPLE_NEWSROOM = "https://www.apple.com/newsroom/2025/03/"
APPLE_NEWSROOM_STUDIO = f"{APPLE_NEWSROOM}apple-unveils-new-mac-studio-the-most-powerful-mac-ever/"
APPLE_NEWSROOM_M3_ULTRA = (
    f"{APPLE_NEWSROOM}apple-reveals-m3-ultra-taking-apple-silicon-to-a-new-extreme/"
)
APPLE_NEWSROOM_MINI = (
    "https://www.apple.com/newsroom/2024/10/apples-all-new-mac-mini-is-more-mighty-more-mini-"
    "and-built-for-apple-intelligence/"
)
APPLE_STUDIO_SPECS = "https://www.apple.com/mac-studio/specs/"
APPLE_MINI_SPECS = "https://www.apple.com/mac-mini/specs/"
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


def _system(
    pk: int, name: str, chip: str, cpu_cores: int, gpu_cores: int, gpu_ghz: float,
    memory_gb: int, gbps: float, storage_gb: int, source: str, notes: str = "",
) -> dict[str, Any]:  # fmt: skip
    return {
        "pk": pk, "kind": "system", "name": name, "manufacturer": "Apple", "source": source,
        "notes": notes,
        "fields": {
            "chip": chip, "cpu_cores": cpu_cores, "gpu_cores": gpu_cores,
            "memory_gb": memory_gb, "mem_bandwidth_gbps": gbps,
            "gpu_tflops": gpu_tflops(gpu_cores, gpu_ghz), "storage_gb": storage_gb,
        },
    }  # fmt: skip


SYSTEMS = [
    _system(801, "Mac mini M4 Pro 64GB", "M4 Pro 14-core CPU, 20-core GPU", 14, 20, M4_GPU_GHZ,
            64, 273, 512, f"{APPLE_NEWSROOM_MINI} (M4 Pro: up to 64 GB, 273 GB/s); "
            f"{APPLE_MINI_SPECS}"),
    _system(802, "Mac Studio M4 Max 128GB", "M4 Max 16-core CPU, 40-core GPU", 16, 40,
            M4_GPU_GHZ, 128, 546, 512, f"{APPLE_NEWSROOM_STUDIO} (M4 Max: up to 128 GB, "
            f"546 GB/s with the 40-core GPU); {APPLE_STUDIO_SPECS}",
            notes="The machine of seed 001 (M4 Max, 546 GB/s)."),
    _system(803, "Mac Studio M3 Ultra 96GB", "M3 Ultra 28-core CPU, 60-core GPU", 28, 60,
            M3_GPU_GHZ, 96, 819, 1000, f"{APPLE_NEWSROOM_M3_ULTRA} (819 GB/s); "
            f"{APPLE_STUDIO_SPECS}; {MACWORLD_STUDIO}"),
    _system(804, "Mac Studio M3 Ultra 512GB", "M3 Ultra 32-core CPU, 80-core GPU", 32, 80,
            M3_GPU_GHZ, 512, 819, 1000, f"{APPLE_NEWSROOM_M3_ULTRA} (up to 512 GB, 819 GB/s); "
            f"{APPLE_STUDIO_SPECS}"),
]  # fmt: skip

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

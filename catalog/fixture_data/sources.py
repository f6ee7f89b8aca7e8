"""Citations reused by many rows."""

SEED_000 = "seed 000 (GLM-4.7 streaming QLoRA analysis), February 2026"
SEED_GPU_TABLE = f"{SEED_000}: 'GPU Hardware' table (VRAM, BF16 TFLOPS, PCIe, price)"
SEED_KEPT_TFLOPS = (
    "BF16 TFLOPS kept at the seed's value so the reference model reproduces the seed "
    "(reference-model.md §9); the datasheet figure is given in notes."
)
ADA_WHITEPAPER = (
    "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf"
)
AMPERE_WHITEPAPER = (
    "https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf"
)
BLACKWELL_WHITEPAPER = (
    "https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/"
    "nvidia-rtx-blackwell-gpu-architecture.pdf"
)
ESTIMATE = (
    "planner estimate of the typical US street price, February 2026 (not one listing); "
    "replace with a dated listing through the admin import"
)

# (vendor, source) pairs for price observations.
SEED = ("seed 000", SEED_000)
EST = ("planner estimate", ESTIMATE)
FEB_2026 = "2026-02-01"

"""Citations reused by many rows."""

SEED_000 = "seed 000 (GLM-4.7 streaming QLoRA analysis), February 2026"
ESTIMATE = (
    "planner estimate of the typical US street price, February 2026 (not one listing); "
    "replace with a dated listing through the admin import"
)

# (vendor, source) pairs for price observations.
SEED = ("seed 000", SEED_000)
EST = ("planner estimate", ESTIMATE)
FEB_2026 = "2026-02-01"

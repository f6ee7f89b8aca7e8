"""Seed 000's builds A-D ("Hardware Build Recommendations"), exactly as printed: each
line is (part pk, quantity, the seed's unit price in USD)."""

from typing import Any

from catalog.fixture_data.sources import SEED_000

SEED_BUILDS: list[dict[str, Any]] = [
    {
        "pk": 1,
        "name": "Build A: Budget Single GPU",
        "slug": "seed-a-budget-single-gpu",
        "description": "1x RTX 4090 (used) on a minimal AM5 system. The seed prints ~$2,700.",
        "lines": [(101, 1, "1800"), (301, 1, "150"), (201, 1, "180"), (501, 1, "200"),
                  (411, 1, "170"), (601, 1, "120"), (701, 1, "80")],
    },
    {
        "pk": 2,
        "name": "Build B: Dual 4090 Consumer",
        "slug": "seed-b-dual-4090-consumer",
        "description": "2x RTX 4090 (used) at x8/x8 on AM5 X870E. The seed prints ~$5,000.",
        "lines": [(101, 2, "1800"), (302, 1, "320"), (202, 1, "300"), (501, 1, "200"),
                  (411, 1, "170"), (603, 1, "250"), (703, 1, "160")],
    },
    {
        "pk": 3,
        "name": "Build C: Single RTX 5090",
        "slug": "seed-c-single-rtx-5090",
        "description": "1x RTX 5090 on AM5 X870E. The seed prints ~$4,200; its parts sum to "
        "$4,195.",
        "lines": [(102, 1, "2900"), (302, 1, "320"), (202, 1, "300"), (501, 1, "200"),
                  (421, 1, "225"), (602, 1, "150"), (702, 1, "100")],
    },
    {
        "pk": 4,
        "name": "Build D: Dual RTX 5090",
        "slug": "seed-d-dual-rtx-5090",
        "description": "2x RTX 5090 at Gen5 x8/x8 on AM5 X870E. The seed prints ~$7,600; its "
        "parts sum to $7,605.",
        "lines": [(102, 2, "2900"), (302, 1, "320"), (203, 1, "400"), (502, 1, "400"),
                  (421, 1, "225"), (604, 1, "300"), (703, 1, "160")],
    },
]  # fmt: skip

SEED_BUILD_SOURCE = f"{SEED_000}: 'Hardware Build Recommendations'"
SEED_BUILD_CREATED_AT = "2026-02-01T00:00:00Z"

"""Regenerate catalog/fixtures/*.json from catalog/fixture_data (the cited sources)."""

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from catalog.fixture_data.render import FIXTURES

FIXTURES_DIR = Path(__file__).resolve().parents[2] / "fixtures"


def fixture_text(objects: list[dict[str, Any]]) -> str:
    return json.dumps(objects, indent=1, ensure_ascii=False) + "\n"


class Command(BaseCommand):
    help = "Write catalog/fixtures/*.json from catalog/fixture_data."

    def handle(self, *args: Any, **options: Any) -> None:
        FIXTURES_DIR.mkdir(exist_ok=True)
        for name, render in FIXTURES.items():
            (FIXTURES_DIR / name).write_text(fixture_text(render()))
            self.stdout.write(f"wrote {FIXTURES_DIR / name}")

"""Queue the default rankings at the current prices (bin/run does this after loading the
catalog; a price change does it by itself)."""

from typing import Any

from django.core.management.base import BaseCommand

from simulator.services.rankings import ranking_defaults_enqueue


class Command(BaseCommand):
    help = "Queue (or find) the precomputed default rankings for the current prices."

    def handle(self, *args: Any, **options: Any) -> None:
        for run_id in ranking_defaults_enqueue():
            self.stdout.write(f"default ranking run {run_id}")

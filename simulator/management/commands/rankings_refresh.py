"""Queue the default rankings of the current parts (bin/run does this after loading the
catalog; a price change does it by itself). Prices are read when a ranking is shown."""

from typing import Any

from django.core.management.base import BaseCommand

from simulator.services.rankings import ranking_defaults_enqueue


class Command(BaseCommand):
    help = "Queue (or find) the precomputed default rankings for the current parts."

    def handle(self, *args: Any, **options: Any) -> None:
        for run_id in ranking_defaults_enqueue():
            self.stdout.write(f"default ranking run {run_id}")

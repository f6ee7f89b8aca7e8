"""`manage.py measurements_load`: the shipped measurement corpus as accepted rows, predicted.
Idempotent: run it after every deploy (bin/run does)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from simulator.engine import EngineInputError
from simulator.services.accuracy import holdout_report_forget
from simulator.services.measurements import measurements_load


class Command(BaseCommand):
    help = "Load (or update) the shipped measurement corpus and predict every accepted row."

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            count = measurements_load()
        except EngineInputError as error:
            raise CommandError(f"invalid corpus: {error}") from error
        holdout_report_forget()  # the hold-out is scored afresh on the next request
        self.stdout.write(f"{count} corpus measurements loaded and predicted.")

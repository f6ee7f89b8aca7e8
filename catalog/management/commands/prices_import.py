"""manage.py prices_import FILE [--format csv|json] [--dry-run]: add a price list's rows
as new observations (catalog.price_lists.price_list_import), printing a diff: each row
added and what it does to its part's current price."""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog.price_lists import FORMATS, PriceListImport, PriceListLine, price_list_import


def _usd(amount: object) -> str:
    return "none" if amount is None else f"{amount} USD"


def diff_line(line: PriceListLine) -> str:
    """ "+ rtx-4090 1650.00 USD used US ebay 2026-02-10 (current 1800.00 USD -> 1650.00 USD)"."""
    o = line.observation
    added = (
        f"+ {o.part.slug} {o.amount} {o.currency} {o.condition} {o.region} {o.vendor} "
        f"{o.observed_on}"
    )
    before, after = line.current_before_usd, line.current_after_usd
    if before == after:
        return f"{added} (history only; current stays {_usd(before)})"
    return f"{added} (current {_usd(before)} -> {_usd(after)})"


class Command(BaseCommand):
    help = "Import a price list (CSV or JSON) as new price observations; --dry-run shows the diff."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="the price list file")
        parser.add_argument("--format", choices=FORMATS, help="default: the file's suffix")
        parser.add_argument(
            "--dry-run", action="store_true", help="check and show the diff, write nothing"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["path"])
        fmt = options["format"] or path.suffix.lstrip(".").lower()
        if fmt not in FORMATS:
            raise CommandError(f"unknown format {fmt!r}: give --format {' or '.join(FORMATS)}")
        try:
            text = path.read_text()
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc}") from exc
        outcome = price_list_import(text=text, fmt=fmt, dry_run=options["dry_run"])
        self._report(outcome)

    def _report(self, outcome: PriceListImport) -> None:
        for line in outcome.lines:
            self.stdout.write(diff_line(line))
        for error in outcome.errors:
            self.stderr.write(f"! {error}")
        if outcome.errors:
            raise CommandError(f"{len(outcome.errors)} row(s) rejected: nothing was imported")
        verb = "would add" if outcome.dry_run else "added"
        self.stdout.write(f"{verb} {len(outcome.lines)} price observation(s)")

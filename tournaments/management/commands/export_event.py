"""Write an event's archive (docs/archive.md) to a file or the standard output."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments.archive import dumps, export_event
from tournaments.models import Tournament


class Command(BaseCommand):
    help = (
        "Write the event's archive: one JSON document with its rules, entrants and players, "
        "stages, rounds, tables, games, every hand and correction, officiating acts and "
        "standings (docs/archive.md)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", help="the event's slug")
        parser.add_argument("--output", "-o", type=Path, help="the file (default: print it)")

    def handle(self, *args, slug, output, **options):
        tournament = Tournament.objects.filter(slug=slug).first()
        if tournament is None:
            raise CommandError(f"There is no event with the slug {slug!r}.")
        text = dumps(export_event(tournament))
        if output is None:
            self.stdout.write(text)
        else:
            output.write_text(text, encoding="utf-8")
            self.stdout.write(f"Wrote the archive of {tournament.name} to {output}.")

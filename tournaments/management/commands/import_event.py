"""Load an event's archive (docs/archive.md) as a new event, in one transaction."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from tournaments.archive import ArchiveError, import_event


class Command(BaseCommand):
    help = (
        "Load an event's archive written by export_event (or the archive API) as a new event. "
        "Its players are matched by name and club as registration matches them; a player "
        "linked to an account is never attached, so such names become new players without "
        "an account. Imports everything or nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, help="the archive (.json)")
        parser.add_argument("--slug", help="the new event's slug (default: the archive's)")
        parser.add_argument("--organizer", help="username to make the event's organizer")

    def handle(self, *args, file, slug, organizer, **options):
        if not file.is_file():
            raise CommandError(f"There is no file {file}.")
        user = None
        if organizer:
            user = get_user_model().objects.filter(username=organizer).first()
            if user is None:
                raise CommandError(f"There is no account {organizer!r}.")
        try:
            tournament = import_event(file.read_bytes(), slug=slug, organizer=user)
        except ArchiveError as error:
            raise CommandError(f"Nothing was imported: {error}") from error
        self.stdout.write(
            f"Imported {tournament.name} as /t/{tournament.slug}/ "
            f"({tournament.entrants.count()} entrants)."
        )

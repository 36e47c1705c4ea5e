"""Recompute standings snapshots now: every tournament, or the one named by its slug.

First it checks every game's result kept on its match seats against the game itself and
rewrites any that disagree (only a repair made outside the services can cause that).
"""

from django.core.management.base import BaseCommand, CommandError

from tournaments.models import Tournament
from tournaments.read.standings_store import rebuild_standings
from tournaments.services import refresh_seat_results


class Command(BaseCommand):
    help = "Recompute the standings snapshot of one tournament (by slug) or of all of them."

    def add_arguments(self, parser):
        parser.add_argument("slug", nargs="?", help="only this tournament")

    def handle(self, *args, slug=None, **options):
        tournaments = Tournament.objects.order_by("pk")
        if slug:
            tournaments = tournaments.filter(slug=slug)
            if not tournaments.exists():
                raise CommandError(f"There is no tournament {slug!r}.")
        for tournament in tournaments:
            rewritten = refresh_seat_results(tournament)
            rows = rebuild_standings(tournament.pk)
            note = f"; {rewritten} game result(s) rewritten on their seats" if rewritten else ""
            self.stdout.write(f"{tournament.slug}: {rows} standing row(s){note}")

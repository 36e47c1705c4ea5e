"""Replay every game's current hands through the engine and report stored totals or
tallies that differ."""

from django.core.management.base import BaseCommand

from scoring.models import Game
from scoring.selectors import replay_all


class Command(BaseCommand):
    help = (
        "Replay every game's current hands through the rules engine and report any game whose "
        "stored awards, totals or tallies differ. Exits with status 1 if any does."
    )

    def add_arguments(self, parser):
        parser.add_argument("game_ids", nargs="*", type=int, help="only these games")
        parser.add_argument("--batch", type=int, default=500, help="games replayed per batch")

    def handle(self, *args, game_ids, batch, **options):
        games = Game.objects.exclude(status=Game.Status.SCHEDULED).order_by("pk")
        if game_ids:
            games = games.filter(pk__in=game_ids)
        checked = 0
        bad = []
        ids = list(games.values_list("pk", flat=True))
        for start in range(0, len(ids), batch):
            for result in replay_all(Game.objects.filter(pk__in=ids[start : start + batch])):
                checked += 1
                if not result.agrees:
                    bad.append(result)
                    self.stderr.write(result.describe())
        summary = f"{checked} game(s) checked, {len(bad)} differ."
        if bad:
            self.stderr.write(summary)
            raise SystemExit(1)
        self.stdout.write(summary)

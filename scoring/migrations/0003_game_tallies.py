"""Each game keeps its hands won, dominoes and penalty points per side beside its totals,
and when a hand was last recorded, so that standings read games and never scan hands.
Existing games are counted from their current hands and active penalty events."""

from django.db import migrations, models
from django.db.models import Max


def count_existing(apps, schema_editor):
    Game = apps.get_model("scoring", "Game")
    Hand = apps.get_model("scoring", "Hand")
    ScoreEvent = apps.get_model("scoring", "ScoreEvent")
    for game in Game.objects.all().iterator(chunk_size=500):
        tallies = {
            name: {"hands_won": 0, "dominoes": 0, "penalties": 0} for name in game.totals
        }
        side_of_seat = {seat: name for name in tallies for seat in name.split("+")}
        current = Hand.objects.filter(game=game, is_current=True, voided=False)
        for winners, domino_by in current.values_list("winners", "domino_by"):
            for name in winners:
                tallies[name]["hands_won"] += 1
            if domino_by in side_of_seat:
                tallies[side_of_seat[domino_by]]["dominoes"] += 1
        penalties = ScoreEvent.objects.filter(game=game, active=True, kind="penalty")
        for name, points in penalties.values_list("side__name", "points"):
            tallies[name]["penalties"] -= points
        game.tallies = tallies
        game.last_hand_at = Hand.objects.filter(game=game).aggregate(at=Max("recorded_at"))["at"]
        game.save(update_fields=["tallies", "last_hand_at"])


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0002_hand_numbers_contiguous"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="last_hand_at",
            field=models.DateTimeField(
                blank=True,
                help_text="When a hand of this game was last recorded or changed.",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="game",
            name="tallies",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text='Per side name: {"hands_won": n, "dominoes": n, "penalties": points}, '
                "kept with the totals so that standings need not read the hands.",
            ),
        ),
        migrations.RunPython(count_existing, migrations.RunPython.noop),
    ]

"""Games already seated at a tournament's tables are followed: their changes reach the
standings and brackets."""

from django.db import migrations


def follow(apps, schema_editor):
    Game = apps.get_model("scoring", "Game")
    Match = apps.get_model("tournaments", "Match")
    held = Match.objects.exclude(game=None).values("game_id")
    Game.objects.filter(pk__in=held).update(followed=True)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0002_standing_reason_data"),
        ("scoring", "0004_game_followed"),
    ]

    operations = [migrations.RunPython(follow, migrations.RunPython.noop)]

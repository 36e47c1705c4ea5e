from django.db import migrations


def hold_draft_games(apps, schema_editor):
    """Close the games of rounds still in draft, as generating a round now does. A game
    someone already started there (before drafts were closed) stays open: holding it
    would hide hands already recorded, and the database refuses a held started game."""
    Game = apps.get_model("scoring", "Game")
    Game.objects.filter(match__round__status="draft", status="scheduled").update(held=True)


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0006_game_held"),
        ("tournaments", "0006_bounded_numbers"),
    ]

    operations = [migrations.RunPython(hold_draft_games, migrations.RunPython.noop)]

"""The player moved to the players app (``players.0004_player``): this app's references
point there. The table is the same (renamed), so only Django's picture of them changes."""

import django.db.models.deletion
from django.db import migrations, models


def player(on_delete, related_name, **options):
    return models.ForeignKey(
        on_delete=on_delete, related_name=related_name, to="players.player", **options
    )


class Migration(migrations.Migration):
    dependencies = [
        ("circuit", "0002_ladder_consent_requests_and_acts"),
        ("players", "0004_player"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="rating",
                    name="player",
                    field=player(django.db.models.deletion.CASCADE, "ratings"),
                ),
                migrations.AlterField(
                    model_name="ratingchange",
                    name="player",
                    field=player(django.db.models.deletion.CASCADE, "+"),
                ),
                migrations.AlterField(
                    model_name="ladderplayer",
                    name="player",
                    field=player(django.db.models.deletion.PROTECT, "+"),
                ),
                migrations.AlterField(
                    model_name="ladderseat",
                    name="player",
                    field=player(django.db.models.deletion.PROTECT, "+"),
                ),
                migrations.AlterField(
                    model_name="ladderrequest",
                    name="player",
                    field=player(django.db.models.deletion.CASCADE, "+"),
                ),
                migrations.AlterField(
                    model_name="ladderact",
                    name="player",
                    field=player(django.db.models.deletion.SET_NULL, "+", null=True, blank=True),
                ),
            ],
            # The foreign keys already point at the renamed table.
            database_operations=[],
        ),
    ]

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
        ("tournaments", "0013_round_clock_and_suspensions"),
        ("players", "0004_player"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="entrant",
                    name="player",
                    field=player(django.db.models.deletion.PROTECT, "entries"),
                ),
                migrations.AlterField(
                    model_name="entrant",
                    name="partner",
                    field=player(
                        django.db.models.deletion.PROTECT, "partner_entries", null=True, blank=True
                    ),
                ),
                migrations.AlterField(
                    model_name="suspension",
                    name="player",
                    field=player(django.db.models.deletion.CASCADE, "suspensions"),
                ),
            ],
            # The foreign keys already point at the renamed table.
            database_operations=[],
        ),
    ]

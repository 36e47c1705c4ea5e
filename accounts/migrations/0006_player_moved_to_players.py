"""The player now lives in the players app: every reference points there, so the
accounts app forgets its model (its table, renamed, is ``players.Player``'s)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_player_table_renamed"),
        ("players", "0004_player"),
        ("scoring", "0011_player_in_players"),
        ("tournaments", "0014_player_in_players"),
        ("circuit", "0003_player_in_players"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="Player")],
            database_operations=[],
        ),
    ]

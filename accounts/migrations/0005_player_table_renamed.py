"""The player moves to the players app (``players.0004_player``): first its table takes
the players app's name, ``players_player``. A rename keeps every row, its ids, its
indexes and constraints, and the foreign keys that point at it (PostgreSQL follows the
table itself; SQLite rewrites the references)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_preference_emails"),
    ]

    operations = [
        migrations.AlterModelTable(name="player", table="players_player"),
    ]

"""The player moves here from the accounts app, with every row kept.

Its table was renamed ``players_player`` (``accounts.0005_player_table_renamed``); this
migration only tells Django the model is now ``players.Player`` (no table is made), points
this app's references at it, and moves its content type, so the permissions given on
players and the admin's history stay with them. The other apps point at it next, then
``accounts.0006_player_moved_to_players`` forgets the old model. Backwards, each step is
undone in turn and the table takes its old name again."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def move_content_type(apps, schema_editor, old="accounts", new="players"):
    """The player's content type (and so its permissions and admin log) changes app; if
    the new one exists already, the old is left for ``remove_stale_contenttypes``."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    types = ContentType.objects.using(schema_editor.connection.alias)
    if not types.filter(app_label=new, model="player").exists():
        types.filter(app_label=old, model="player").update(app_label=new)


def move_content_type_back(apps, schema_editor):
    move_content_type(apps, schema_editor, old="players", new="accounts")


def player(on_delete, related_name, **options):
    return models.ForeignKey(
        on_delete=on_delete, related_name=related_name, to="players.player", **options
    )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_player_table_renamed"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("players", "0003_entry_requests"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Player",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("display_name", models.CharField(max_length=120)),
                        ("club", models.CharField(blank=True, max_length=120)),
                        (
                            "country",
                            models.CharField(
                                blank=True, help_text="ISO 3166-1 alpha-2 code", max_length=2
                            ),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "name_key",
                            models.CharField(
                                blank=True, default="", editable=False, max_length=250
                            ),
                        ),
                        (
                            "club_key",
                            models.CharField(
                                blank=True, default="", editable=False, max_length=250
                            ),
                        ),
                        (
                            "homonym",
                            models.PositiveSmallIntegerField(
                                default=0,
                                help_text="Tells apart different people of the same name and club.",
                            ),
                        ),
                        (
                            "user",
                            models.OneToOneField(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="player",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "ordering": ["display_name", "pk"],
                        "indexes": [models.Index(fields=["name_key"], name="player_name_key")],
                        "constraints": [
                            models.CheckConstraint(
                                condition=models.Q(("display_name", ""), _negated=True),
                                name="player_display_name_not_empty",
                            ),
                            models.UniqueConstraint(
                                condition=models.Q(("name_key", ""), _negated=True),
                                fields=("name_key", "club_key", "homonym"),
                                name="player_identity_unique",
                            ),
                        ],
                    },
                ),
                migrations.AlterField(
                    model_name="claimcode",
                    name="player",
                    field=player(django.db.models.deletion.CASCADE, "claim_codes"),
                ),
                migrations.AlterField(
                    model_name="playermerge",
                    name="kept",
                    field=player(django.db.models.deletion.CASCADE, "merged"),
                ),
                migrations.AlterField(
                    model_name="mergerequest",
                    name="keep",
                    field=player(django.db.models.deletion.CASCADE, "+"),
                ),
                migrations.AlterField(
                    model_name="mergerequest",
                    name="other",
                    field=player(django.db.models.deletion.SET_NULL, "+", null=True),
                ),
                migrations.AlterField(
                    model_name="entryrequest",
                    name="player",
                    field=player(django.db.models.deletion.CASCADE, "+"),
                ),
                migrations.AlterField(
                    model_name="entryrequest",
                    name="stand_in",
                    field=player(django.db.models.deletion.SET_NULL, "+", null=True, blank=True),
                ),
                migrations.AlterField(
                    model_name="application",
                    name="player",
                    field=player(django.db.models.deletion.PROTECT, "+"),
                ),
                migrations.AlterField(
                    model_name="application",
                    name="partner",
                    field=player(django.db.models.deletion.PROTECT, "+", null=True, blank=True),
                ),
            ],
            # The table is the accounts model's, renamed: nothing to make.
            database_operations=[],
        ),
        migrations.RunPython(move_content_type, move_content_type_back),
    ]

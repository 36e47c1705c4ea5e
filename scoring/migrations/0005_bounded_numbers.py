"""Numbers the services bound are refused by the database too: targets, hand numbers,
in-play points, steals and penalties (scoring.bounds).

On SQLite, adding a check constraint rebuilds the table, which drops its triggers; the
hand-number trigger of 0002 is put back after the rebuild.
"""

from importlib import import_module

import django.db.models.functions.math
import django.db.models.lookups
from django.conf import settings
from django.db import migrations, models


contiguous = import_module("scoring.migrations.0002_hand_numbers_contiguous")


def reinstall_hand_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for statement in contiguous.SQLITE_DOWN + contiguous.SQLITE_UP:
            schema_editor.execute(statement)


class Migration(migrations.Migration):

    dependencies = [
        ('scoring', '0004_game_followed'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='scoreevent',
            name='event_in_play_positive',
        ),
        migrations.RemoveConstraint(
            model_name='scoreevent',
            name='event_steal_gains',
        ),
        migrations.RemoveConstraint(
            model_name='scoreevent',
            name='event_stolen_loses',
        ),
        migrations.RemoveConstraint(
            model_name='scoreevent',
            name='event_penalty_deducts',
        ),
        migrations.AddConstraint(
            model_name='game',
            constraint=models.CheckConstraint(condition=models.Q(('ruleset__isnull', True), models.Q(('ruleset__target__gte', 25), ('ruleset__target__lte', 5000)), _connector='OR'), name='game_target_in_range'),
        ),
        migrations.AddConstraint(
            model_name='hand',
            constraint=models.CheckConstraint(condition=models.Q(('number__lte', 10000)), name='hand_number_in_range'),
        ),
        migrations.RunPython(reinstall_hand_trigger, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='scoreevent',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('kind', 'in_play'), _negated=True), models.Q(django.db.models.lookups.Exact(django.db.models.functions.math.Mod(models.F('points'), 5), 0), ('points__gt', 0), ('points__lte', 40)), _connector='OR'), name='event_in_play_positive'),
        ),
        migrations.AddConstraint(
            model_name='scoreevent',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('kind', 'steal'), _negated=True), models.Q(('points__gt', 0), ('points__lte', 80)), _connector='OR'), name='event_steal_gains'),
        ),
        migrations.AddConstraint(
            model_name='scoreevent',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('kind', 'stolen'), _negated=True), models.Q(('points__gte', -80), ('points__lt', 0)), _connector='OR'), name='event_stolen_loses'),
        ),
        migrations.AddConstraint(
            model_name='scoreevent',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('kind', 'penalty'), _negated=True), models.Q(('points__gte', -500), ('points__lt', 0)), _connector='OR'), name='event_penalty_deducts'),
        ),
    ]

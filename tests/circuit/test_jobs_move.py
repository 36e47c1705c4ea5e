"""The circuit's job rows moved to the one job runner's table with their state: a
database holding ratings, series and ladder jobs migrates back to before the move and
forward again, and every job keeps whether it is dirty, queued and how often it ran.

It runs on the suite's database, SQLite or PostgreSQL (``DATABASE_URL``)."""

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder

from jobs.models import Job

pytestmark = [pytest.mark.django_db(transaction=True)]

BEFORE = ("circuit", "0003_player_in_players")
MOVE = ("circuit", "0004_jobs_kept_by_the_runner")
AT = datetime(2026, 11, 27, 8, 0, tzinfo=UTC)


def migrate(targets):
    """Migrate the test database to ``targets``; the historical apps there."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    applied = MigrationRecorder(connection).applied_migrations()
    return executor.loader.project_state(list(applied)).apps


def leaves():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def state(rows) -> dict:
    return {
        key: (row.dirty, row.queued, row.queued_at, row.requested_at, row.finished_at, row.runs)
        for key, row in rows
    }


def test_jobs_keep_their_state_through_the_move_back_and_forth():
    Job.objects.create(kind="ratings", dirty=True, requested_at=AT, runs=7)
    Job.objects.create(kind="series", key=7, queued=True, queued_at=AT, finished_at=AT, runs=2)
    Job.objects.create(kind="ladder", key=3, runs=1)
    Job.objects.create(kind="standings", key=5)  # not the circuit's: stays where it is
    kept = state((str(job), job) for job in Job.objects.exclude(kind="standings"))

    try:
        old = migrate([BEFORE])
        OldJob = old.get_model("circuit", "Job")
        assert state((job.name, job) for job in OldJob.objects.all()) == kept
        assert set(old.get_model("jobs", "Job").objects.values_list("kind", flat=True)) == {
            "standings"
        }
        OldJob.objects.filter(name="ladder:3").update(runs=4)  # a run before the deploy
        kept["ladder:3"] = (*kept["ladder:3"][:-1], 4)
    finally:
        migrate(leaves())

    assert state((str(job), job) for job in Job.objects.exclude(kind="standings")) == kept
    assert Job.objects.filter(kind="standings", key=5).exists()

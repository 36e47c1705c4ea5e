"""Backup and restore times, and the event archive's, for the demo and a 256-player event.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/capicu .venv/bin/python bench/backup_restore.py
    .venv/bin/python bench/backup_restore.py          # SQLite

In a throwaway database it loads the demo, then times ``operations.backups.backup`` and
``restore`` (into a fresh database: on PostgreSQL one created for the run, on SQLite a
file) against the bare tool underneath measured in the same run (PostgreSQL: ``pg_dump
--format=custom`` alone and ``pg_restore`` alone; SQLite: the online backup API alone,
both ways), and prints each ratio. Then it adds a 256-player Swiss event played through
the services (BENCH_ROUNDS rounds, default 3, every game played to its end) and times the
same again, with the database now holding the demo and that event. Last, the event
archive of that event: export, import under another slug (every game replayed on the way
in) and the document's size.
"""

import os
import random
import shutil
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path

from bootstrap import throwaway_database
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, connections

from operations import backups
from tournaments import services
from tournaments.archive import dumps, export_event, import_event
from tournaments.demo import load, play

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
PLAYERS = 256


def timed(call) -> tuple[float, object]:
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


class Target:
    """A fresh database to restore into, as a connection alias, dropped at the end."""

    def __init__(self, work: Path, n: int):
        self.alias = f"restored{n}"
        params = dict(connections.settings["default"])
        if connection.vendor == "postgresql":
            self.name = f"{params['NAME']}_r{n}"[:63]
            with connection.cursor() as cursor:
                cursor.execute(f'DROP DATABASE IF EXISTS "{self.name}"')
                cursor.execute(f'CREATE DATABASE "{self.name}"')
        else:
            self.name = str(work / f"restored{n}.sqlite3")
        params["NAME"] = self.name
        params["TEST"] = {**params.get("TEST", {}), "NAME": self.name}
        connections.settings[self.alias] = params

    def drop(self) -> None:
        connections[self.alias].close()
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(f'DROP DATABASE IF EXISTS "{self.name}"')


def bare_backup(work: Path) -> Path:
    if connection.vendor == "postgresql":
        target = work / "bare.dump"
        subprocess.run(
            ["pg_dump", "--format=custom", f"--file={target}"],
            env=backups._pg_env(connection),
            check=True,
        )
        return target
    target = work / "bare.sqlite3"
    target.unlink(missing_ok=True)
    copy = sqlite3.connect(target)
    connection.ensure_connection()
    connection.connection.backup(copy)
    copy.close()
    return target


def bare_restore(dump: Path, target: Target) -> None:
    if connection.vendor == "postgresql":
        subprocess.run(
            ["pg_restore", "--no-owner", "--single-transaction", f"--dbname={target.name}", dump],
            env=backups._pg_env(connection),
            check=True,
        )
        return
    source, copy = sqlite3.connect(dump), sqlite3.connect(target.name)
    source.backup(copy)
    source.close()
    copy.close()


def measure(label: str, work: Path, n: int) -> None:
    folder = work / "backups"
    bare_time, dump = timed(lambda: bare_backup(work))
    ours_time, path = timed(lambda: backups.backup(folder=folder, keep=2))
    first, second = Target(work, 2 * n), Target(work, 2 * n + 1)
    try:
        bare_restore_time, _ = timed(lambda: bare_restore(dump, first))
        restore_time, _ = timed(lambda: backups.restore(path, using=second.alias))
    finally:
        first.drop()
        second.drop()
    size = path.stat().st_size / 1e6
    print(f"{label}")
    print(
        f"  backup   {ours_time:7.2f} s  (bare {bare_time:6.2f} s, ratio "
        f"{ours_time / bare_time:5.2f})  file {size:6.1f} MB"
    )
    print(
        f"  restore  {restore_time:7.2f} s  (bare {bare_restore_time:6.2f} s, ratio "
        f"{restore_time / bare_restore_time:5.2f})"
    )


def big_event():
    organizer = get_user_model().objects.get(username="organizer")
    tournament = services.create_tournament(
        by=organizer, name="Bench 256", ruleset_key="cutthroat", table_size=4, slug="bench-256"
    )
    services.update_tournament(tournament, by=organizer, status="registration")
    services.register_entrants(
        tournament, by=organizer, text="\n".join(f"Bench Player {i:03d}" for i in range(PLAYERS))
    )
    stage = services.add_stage(
        tournament, by=organizer, name="Swiss", format="swiss", settings={"rounds": ROUNDS}
    )
    services.update_tournament(tournament, by=organizer, status="running")
    rng = random.Random(256)
    hands = 0
    for _ in range(ROUNDS):
        round_ = services.generate_round(stage, by=organizer)
        services.publish_round(round_, by=organizer)
        for match in round_.matches.filter(bye=False).select_related("game"):
            hands += play(match.game, organizer, rng)
    return tournament, hands


def main() -> None:
    with throwaway_database(), tempfile.TemporaryDirectory(prefix="capicu-bench-") as work:
        work = Path(work)
        settings.MEDIA_ROOT = work / "media"
        print(f"database: {connection.vendor}")
        built, demo = timed(load)
        print(f"demo loaded in {built:.1f} s ({demo.hands} hands)")
        measure("demo", work, 0)
        built, (tournament, hands) = timed(big_event)
        print(f"256-player event: {ROUNDS} rounds, {hands} hands, built in {built:.1f} s")
        measure(f"demo + 256-player event ({ROUNDS} rounds)", work, 1)
        export_time, document = timed(lambda: dumps(export_event(tournament)))
        import_time, _ = timed(lambda: import_event(document, slug="bench-256-copy"))
        print("event archive of the 256-player event")
        print(
            f"  export {export_time:6.2f} s, import {import_time:6.2f} s, "
            f"document {len(document.encode()) / 1e6:5.1f} MB"
        )
        shutil.rmtree(work / "backups", ignore_errors=True)


if __name__ == "__main__":
    main()

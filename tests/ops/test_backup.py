"""Backups and the restore drill: a backup taken while referees record restores into a
fresh database with every acknowledged hand, clean games and the same standings,
ratings and series.

The drill runs on both databases: on PostgreSQL the restore goes into a database of its
own created for the test, on SQLite into a file. The restored installation is read by
separate processes (``manage.py restore``, ``manage.py verify_games`` and
``restored_state`` below), as an operator's would be.
"""

import io
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import OperationalError, connection

from operations import backups
from operations.backups import BackupError
from scoring.models import Game, Hand
from scoring.selectors import preview_hand
from tests.beside_readers import beside_readers
from tests.factories import UserFactory

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db(transaction=True)


def restored_state() -> dict:
    """What the drill compares, read from whichever database the settings name: every
    stage's standings, every rating, every series' standings and every hand version."""
    from circuit.models import Rating, SeriesStandings
    from tournaments.models import StandingsSnapshot

    return {
        "standings": {
            f"{s.stage.tournament.slug}/{s.stage.order}": s.document
            for s in StandingsSnapshot.objects.select_related("stage__tournament")
        },
        "ratings": sorted(
            [r.pool, r.player_id, r.mu, r.sigma, r.games] for r in Rating.objects.all()
        ),
        "series": {s.series_id: s.document for s in SeriesStandings.objects.all()},
        "hands": sorted([h.game_id, h.number, h.version, h.awards] for h in Hand.objects.all()),
    }


def read_while_recording() -> dict:
    """``restored_state`` read beside the referees' thread (see ``beside_readers``)."""
    return beside_readers(restored_state)


def _manage(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )


def _fresh_database(tmp_path: Path):
    """A database URL nobody has written to, and how to drop it afterwards."""
    params = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{tmp_path / 'restored.sqlite3'}", lambda: None
    name = f"{params['NAME']}_restored"[:63]
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
        cursor.execute(f'CREATE DATABASE "{name}"')

    def drop():
        with connection.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')

    auth = params["USER"] + (f":{params['PASSWORD']}" if params.get("PASSWORD") else "")
    host = f"{params.get('HOST') or '127.0.0.1'}:{params.get('PORT') or 5432}"
    return f"postgres://{auth}@{host}/{name}", drop


class Referees(threading.Thread):
    """Referees recording hands in the live games through the service, each hand noted
    with the moment its answer came back. Their hands finish no game (each keeps the
    game well short of its target), so standings, ratings and series stay as they were
    when the backup began while the hands keep coming."""

    def __init__(self, games: list[int], by):
        super().__init__(daemon=True)
        self.games, self.by = games, by
        self.acknowledged: list[tuple[int, int, float]] = []
        self.stop = threading.Event()
        self.failure: BaseException | None = None

    def run(self):
        try:
            while not self.stop.is_set() and self.games:
                for game_id in list(self.games):
                    try:
                        self.record_one(game_id)
                    except OperationalError as error:
                        # SQLite's shared in-memory test database refuses a write while
                        # another connection reads the table (the backup, the test's own
                        # reads) instead of waiting: the hand was not acknowledged, and
                        # the referee sends it again, as the phone's outbox would.
                        if "locked" not in str(error):
                            raise
                time.sleep(0.01)
        except BaseException as error:  # pragma: no cover - reported by the test
            self.failure = error
        finally:
            connection.close()

    def record_one(self, game_id: int) -> None:
        from scoring.services import record_hand

        game = Game.objects.get(pk=game_id)
        seats = list(game.seats.order_by("position").values_list("name", flat=True))
        pips = dict.fromkeys(seats, 2) | {seats[0]: 1}
        award = preview_hand(
            game,
            ended="block",
            pips=pips,
            domino_by=None,
            tiles=None,
            lowest_tiles=None,
        ).awards
        target = game.ruleset["target"]
        if any(game.total_of(side) + points >= target - 30 for side, points in award.items()):
            self.games.remove(game_id)
            return
        number = game.hand_count + 1
        record_hand(
            game, by=self.by, number=number, ended="block", pips=pips,
            leader=game.next_leader or seats[0],
        )  # fmt: skip
        self.acknowledged.append((game_id, number, time.monotonic()))


def test_backup_taken_while_referees_record_restores_what_was_acknowledged(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"
    photo = settings.MEDIA_ROOT / "disputes" / "2026" / "11" / "table-3.jpg"
    photo.parent.mkdir(parents=True)
    photo.write_bytes(b"\xff\xd8 a photo of table 3")
    call_command("load_demo", stdout=io.StringIO())
    live = list(
        Game.objects.filter(
            status=Game.Status.IN_PROGRESS, match__round__stage__tournament__slug="cutthroat-open"
        ).values_list("pk", flat=True)
    )
    assert len(live) == 3
    organizer = get_user_model().objects.get(username="organizer")
    referees = Referees(live, organizer)
    referees.start()
    try:
        deadline = time.monotonic() + 30
        while len(referees.acknowledged) < 6 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(referees.acknowledged) >= 6, referees.failure
        at_backup = read_while_recording()
        began = time.monotonic()
        path = backups.backup(folder=tmp_path / "backups")
        ended = time.monotonic()
        # Keep recording a little after, so the source moves on past the backup.
        count = len(referees.acknowledged)
        while len(referees.acknowledged) < count + 3 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        referees.stop.set()
        referees.join(30)
    assert referees.failure is None, referees.failure
    after = restored_state()
    # The referees' hands finish no game: standings, ratings and series did not move
    # while the backup was taken, so these are the source's at the backup's moment.
    for part in ("standings", "ratings", "series"):
        assert after[part] == at_backup[part], part

    url, drop = _fresh_database(tmp_path)
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "MEDIA_ROOT": str(tmp_path / "restored-media"),
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    try:
        restored = _manage("restore", str(path), env=env)
        assert restored.returncode == 0, restored.stderr
        verified = _manage("verify_games", env=env)
        assert verified.returncode == 0, verified.stderr
        assert " 0 differ" in verified.stdout
        read = subprocess.run(
            [
                sys.executable,
                "-c",
                "import django, json; django.setup(); "
                "from tests.ops.test_backup import restored_state; "
                "print(json.dumps(restored_state()))",
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        assert read.returncode == 0, read.stderr
        state = json.loads(read.stdout)
    finally:
        drop()

    source = json.loads(json.dumps(after))
    for part in ("standings", "ratings", "series"):
        assert state[part] == source[part], part
    # Every hand acknowledged before the backup began is in it; every hand in it was
    # recorded in the source, as the source has it.
    kept = {(game, number) for game, number, _version, _awards in state["hands"]}
    before = [(g, n) for g, n, at in referees.acknowledged if at < began]
    assert before and set(before) <= kept
    assert all(hand in source["hands"] for hand in state["hands"])
    during = [(g, n) for g, n, at in referees.acknowledged if began <= at <= ended]
    print(f"hands acknowledged while the backup ran: {len(during)}")
    copied = tmp_path / "restored-media" / "disputes" / "2026" / "11" / "table-3.jpg"
    assert copied.read_bytes() == photo.read_bytes()


def test_restore_refuses_a_database_that_is_not_empty(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"
    UserFactory(username="keeper")
    path = backups.backup(folder=tmp_path / "backups")
    with pytest.raises(BackupError, match="not empty: it holds 1 account"):
        backups.restore(path)
    out = io.StringIO()
    with pytest.raises(Exception, match="add --replace"):
        call_command("restore", str(path), stdout=out)


def test_restore_refuses_a_file_that_is_not_a_backup(tmp_path):
    other = tmp_path / "capicu-20260101T000000Z.tar"
    other.write_text("not a tar")
    with pytest.raises(BackupError, match="not a capicu backup"):
        backups.restore(other)


def test_backups_are_named_by_time_and_only_the_newest_are_kept(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"
    made = [backups.backup(folder=tmp_path, keep=2) for _ in range(3)]
    kept = backups.backups(tmp_path)
    assert kept == made[1:]
    assert all(p.name.startswith("capicu-") and p.suffix == ".tar" for p in kept)
    assert not made[0].exists()


def test_beat_backs_up_only_while_an_event_runs(tmp_path, settings):
    from operations.tasks import scheduled_backup
    from tournaments.models import Tournament

    settings.BACKUP_DIR = tmp_path
    settings.MEDIA_ROOT = tmp_path / "media"
    assert django_settings.CELERY_BEAT_SCHEDULE["backup"]["task"] == (
        "operations.tasks.scheduled_backup"
    )
    assert scheduled_backup() == "" and backups.backups(tmp_path) == []
    Tournament.objects.create(
        name="Open", slug="open", ruleset_key="cutthroat", table_size=4, status="running"
    )
    written = scheduled_backup()
    assert backups.backups(tmp_path) == [Path(written)]

"""Backups of an installation, its database and its uploaded files in one file, and
restoring one into an empty database.

A backup is a tar file named by its time, ``capicu-20261127T021500Z.tar``, holding:

- ``manifest.json``: what it is (``format``, ``version``), when it was taken, the
  database's vendor and the latest migration of each app;
- the database: on PostgreSQL ``database.dump``, ``pg_dump``'s custom format, read in one
  snapshot however many referees write meanwhile; on SQLite ``database.sqlite3``, copied
  with SQLite's online backup API, which gives the same consistency;
- ``media/``: the uploaded files (MEDIA_ROOT: dispute photos).

Nothing is written under the final name until the file is whole, so a backup cut short
leaves no file that looks like one; the oldest are removed past ``BACKUP_KEEP``.
"""

import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.recorder import MigrationRecorder

from players.models import Player
from scoring.models import Game
from tournaments.models import Tournament

FORMAT = "capicu-backup"
VERSION = 1
PREFIX = "capicu-"
SUFFIX = ".tar"
_NAME = re.compile(r"^capicu-(?P<time>\d{8}T\d{6}Z)(?:-(?P<n>\d+))?\.tar$")
DUMPS = {"postgresql": "database.dump", "sqlite": "database.sqlite3"}


class BackupError(Exception):
    """A backup or a restore that cannot be done, said plainly for the operator."""


@dataclass
class Manifest:
    created_at: str
    vendor: str
    media_files: int
    migrations: dict[str, str]

    def as_json(self) -> str:
        return json.dumps(
            {
                "format": FORMAT,
                "version": VERSION,
                "created_at": self.created_at,
                "vendor": self.vendor,
                "media_files": self.media_files,
                "migrations": self.migrations,
            },
            indent=2,
        )


def _vendor(connection) -> str:
    if connection.vendor not in DUMPS:
        raise BackupError(f"Backups support PostgreSQL and SQLite, not {connection.vendor}.")
    return connection.vendor


def _pg_env(connection) -> dict[str, str]:
    """libpq's variables for the configured database, so no password is on a command line."""
    params = connection.settings_dict
    env = dict(os.environ)
    for variable, key in (
        ("PGHOST", "HOST"),
        ("PGPORT", "PORT"),
        ("PGUSER", "USER"),
        ("PGPASSWORD", "PASSWORD"),
        ("PGDATABASE", "NAME"),
    ):
        if params.get(key):
            env[variable] = str(params[key])
    return env


def _pg_tool(name: str, connection) -> str:
    """The path of ``pg_dump`` or ``pg_restore``, checked to be no older than the server."""
    tool = shutil.which(name)
    if tool is None:
        raise BackupError(
            f"{name} is not installed: install PostgreSQL's client tools "
            "(Debian: apt-get install postgresql-client) of the server's version."
        )
    found = re.search(r"(\d+)(?:\.\d+)?", subprocess.run(
        [tool, "--version"], capture_output=True, text=True, check=True
    ).stdout)  # fmt: skip
    connection.ensure_connection()
    server = connection.pg_version // 10000
    if found is None or int(found.group(1)) < server:
        raise BackupError(
            f"{tool} is version {found.group(1) if found else '?'} but the server is "
            f"PostgreSQL {server}: install the client tools of the server's version."
        )
    return tool


def _run(command: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise BackupError(f"{Path(command[0]).name} failed: {done.stderr.strip()}")


def _dump_database(connection, target: Path) -> None:
    if connection.vendor == "postgresql":
        tool = _pg_tool("pg_dump", connection)
        _run([tool, "--format=custom", f"--file={target}"], _pg_env(connection))
        return
    connection.ensure_connection()
    copy = sqlite3.connect(target)
    try:
        # The online backup API copies a consistent state while others write.
        connection.connection.backup(copy)
    finally:
        copy.close()


def _latest_migrations(connection) -> dict[str, str]:
    recorder = MigrationRecorder(connection)
    latest: dict[str, str] = {}
    if recorder.has_table():
        for app, name in recorder.migration_qs.order_by("app", "name").values_list("app", "name"):
            latest[app] = name
    return latest


def _media_files(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(path for path in root.rglob("*") if path.is_file())


def backups(folder: Path | None = None) -> list[Path]:
    """The backup files in ``folder`` (BACKUP_DIR), oldest first."""
    folder = Path(folder or settings.BACKUP_DIR)
    if not folder.is_dir():
        return []
    return sorted((path for path in folder.iterdir() if _NAME.match(path.name)), key=_order)


def _order(path: Path) -> tuple[str, int]:
    """A backup's place: its time, then its number among backups of the same second."""
    found = _NAME.match(path.name)
    return found["time"], int(found["n"] or 0)


def prune(folder: Path | None = None, keep: int | None = None) -> list[Path]:
    """Remove all but the newest ``keep`` (BACKUP_KEEP) backups; returns those removed."""
    keep = settings.BACKUP_KEEP if keep is None else keep
    found = backups(folder)
    removed = found[: max(len(found) - max(keep, 1), 0)]
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def _free_name(folder: Path, moment: datetime) -> Path:
    """The name of a backup taken at ``moment``: after any other of the same second."""
    stamp = f"{moment:%Y%m%dT%H%M%SZ}"
    taken = [_order(path)[1] for path in backups(folder) if _order(path)[0] == stamp]
    if not taken:
        return folder / f"{PREFIX}{stamp}{SUFFIX}"
    return folder / f"{PREFIX}{stamp}-{max(taken) + 1}{SUFFIX}"


def backup(
    *, folder: Path | None = None, keep: int | None = None, using: str = DEFAULT_DB_ALIAS
) -> Path:
    """Write one backup of the database and the uploaded files to ``folder`` (BACKUP_DIR)
    and keep only the newest ``keep``; returns the new file's path."""
    connection = connections[using]
    vendor = _vendor(connection)
    folder = Path(folder or settings.BACKUP_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    moment = datetime.now(UTC)
    media_root = Path(settings.MEDIA_ROOT)
    with tempfile.TemporaryDirectory(dir=folder, prefix=".capicu-backup-") as work:
        dump = Path(work) / DUMPS[vendor]
        _dump_database(connection, dump)
        media = _media_files(media_root)
        manifest = Manifest(
            created_at=moment.isoformat(timespec="seconds").replace("+00:00", "Z"),
            vendor=vendor,
            media_files=len(media),
            migrations=_latest_migrations(connection),
        )
        partial = Path(work) / "backup.tar"
        with tarfile.open(partial, "w") as archive:
            body = manifest.as_json().encode()
            info = tarfile.TarInfo("manifest.json")
            info.size, info.mtime = len(body), int(moment.timestamp())
            archive.addfile(info, io.BytesIO(body))
            archive.add(dump, arcname=dump.name)
            for path in media:
                archive.add(path, arcname=f"media/{path.relative_to(media_root).as_posix()}")
        final = _free_name(folder, moment)
        os.replace(partial, final)
    prune(folder, keep)
    return final


def read_manifest(archive: tarfile.TarFile) -> dict:
    try:
        manifest = json.load(archive.extractfile("manifest.json"))
    except (KeyError, ValueError, AttributeError) as error:
        raise BackupError("This file is not a capicu backup (it has no manifest).") from error
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError("This file is not a capicu backup.")
    if manifest.get("version") != VERSION:
        raise BackupError(
            f"This backup is of format version {manifest.get('version')}; this capicu "
            f"reads version {VERSION}."
        )
    return manifest


def holds_data(using: str = DEFAULT_DB_ALIAS) -> str:
    """What the database holds, said in a few words, or "" when it holds nothing of
    capicu's (no tables, or tables just migrated)."""
    connection = connections[using]
    tables = set(connection.introspection.table_names())
    held = []
    for model, word in (
        (Tournament, "tournament(s)"),
        (Game, "game(s)"),
        (Player, "player(s)"),
        (get_user_model(), "account(s)"),
    ):
        if model._meta.db_table in tables:
            count = model.objects.using(using).count()
            if count:
                held.append(f"{count} {word}")
    return ", ".join(held)


def restore(path: Path, *, replace: bool = False, using: str = DEFAULT_DB_ALIAS) -> dict:
    """Restore the backup at ``path`` into the configured database and MEDIA_ROOT.

    Refuses a database or a media folder that is not empty unless ``replace``. Returns the
    backup's manifest."""
    connection = connections[using]
    vendor = _vendor(connection)
    path = Path(path)
    if not path.is_file():
        raise BackupError(f"There is no file {path}.")
    try:
        archive = tarfile.open(path, "r")  # noqa: SIM115 - closed by the with below
    except tarfile.TarError as error:
        raise BackupError(f"{path} is not a capicu backup (not a tar file).") from error
    media_root = Path(settings.MEDIA_ROOT)
    with archive:
        manifest = read_manifest(archive)
        if manifest.get("vendor") != vendor:
            raise BackupError(
                f"This backup is of a {manifest.get('vendor')} database; the configured "
                f"database is {vendor}."
            )
        if not replace:
            held = holds_data(using)
            if held:
                raise BackupError(
                    f"The database is not empty: it holds {held}. Restore into an empty "
                    "database, or add --replace to overwrite it."
                )
            if _media_files(media_root):
                raise BackupError(
                    f"The media folder {media_root} is not empty. Restore into an empty "
                    "folder, or add --replace to overwrite it."
                )
        with tempfile.TemporaryDirectory(prefix="capicu-restore-") as work:
            try:
                archive.extract(DUMPS[vendor], work, filter="data")
            except KeyError as error:
                raise BackupError("This backup holds no database.") from error
            _restore_database(connection, Path(work) / DUMPS[vendor])
        _restore_media(archive, media_root, replace=replace)
    return manifest


def _restore_database(connection, dump: Path) -> None:
    if connection.vendor == "postgresql":
        tool = _pg_tool("pg_restore", connection)
        existing = bool(connection.introspection.table_names())
        connection.close()
        command = [
            tool,
            "--no-owner",
            "--no-privileges",
            "--single-transaction",
            "--exit-on-error",
            f"--dbname={connection.settings_dict['NAME']}",
        ]
        if existing:
            # Tables just migrated (or, with --replace, a database's old content): the
            # dump's own tables are dropped and written again, in the same transaction.
            command += ["--clean", "--if-exists"]
        _run([*command, str(dump)], _pg_env(connection))
        return
    name = str(connection.settings_dict["NAME"])
    connection.close()
    source, target = sqlite3.connect(dump), sqlite3.connect(name)
    try:
        source.backup(target)
    finally:
        source.close()
        target.close()


def _restore_media(archive: tarfile.TarFile, media_root: Path, *, replace: bool) -> None:
    members = [m for m in archive.getmembers() if m.name.startswith("media/") and m.isfile()]
    if replace and media_root.is_dir():
        shutil.rmtree(media_root)
    media_root.mkdir(parents=True, exist_ok=True)
    for member in members:
        relative = PurePosixPath(member.name).relative_to("media")
        if relative.is_absolute() or ".." in relative.parts:
            raise BackupError(f"This backup names a file outside the media folder: {member.name}")
        target = media_root.joinpath(*relative.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.extractfile(member) as source, open(target, "wb") as copy:
            shutil.copyfileobj(source, copy)

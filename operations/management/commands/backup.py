"""Write a backup of the database and the uploaded files to BACKUP_DIR."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from operations.backups import BackupError, backup


class Command(BaseCommand):
    help = (
        "Back up the database (PostgreSQL: pg_dump's custom format; SQLite: the online backup "
        "API) and the uploaded files into one file named by its time in BACKUP_DIR, keeping "
        "the newest BACKUP_KEEP."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dir", type=Path, help="the folder (default: BACKUP_DIR)")
        parser.add_argument("--keep", type=int, help="backups kept (default: BACKUP_KEEP)")

    def handle(self, *args, dir, keep, **options):
        if keep is not None and keep < 1:
            raise CommandError("--keep must be 1 or more.")
        try:
            path = backup(folder=dir, keep=keep)
        except BackupError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(str(path))

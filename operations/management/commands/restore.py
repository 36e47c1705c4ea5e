"""Restore a backup into the configured database and MEDIA_ROOT."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from operations.backups import BackupError, restore


class Command(BaseCommand):
    help = (
        "Restore a backup written by `manage.py backup` into the configured database and "
        "media folder. Refuses a database or folder that is not empty unless --replace."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, help="the backup file (capicu-....tar)")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="overwrite a database and media folder that are not empty",
        )

    def handle(self, *args, file, replace, **options):
        try:
            manifest = restore(file, replace=replace)
        except BackupError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            f"Restored the backup of {manifest['created_at']} "
            f"({manifest['vendor']}, {manifest['media_files']} media file(s))."
        )

"""Forget Idempotency-Key answers older than a day (or --hours)."""

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError

from accounts.idempotency import KEEP_FOR, purge


class Command(BaseCommand):
    help = "Delete stored Idempotency-Key answers older than a day; keys are kept at least that."

    def add_arguments(self, parser):
        parser.add_argument("--hours", type=int, default=int(KEEP_FOR.total_seconds() // 3600))

    def handle(self, *args, hours, **options):
        if hours < 24:
            raise CommandError("Keys are kept at least a day: --hours must be 24 or more.")
        self.stdout.write(f"Deleted {purge(timedelta(hours=hours))} key(s).")

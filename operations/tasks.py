"""The scheduled backup that Celery beat runs (BACKUP_EVERY seconds)."""

from celery import shared_task

from operations.backups import backup
from tournaments.models import Tournament


@shared_task
def scheduled_backup() -> str:
    """Back up while an event is running (a manual `manage.py backup` always does)."""
    if not Tournament.objects.filter(status=Tournament.Status.RUNNING).exists():
        return ""
    return str(backup())

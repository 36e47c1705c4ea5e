"""Housekeeping tasks for accounts."""

from celery import shared_task

from accounts.idempotency import purge


@shared_task
def purge_idempotency_keys() -> int:
    """Forget Idempotency-Key answers older than a day."""
    return purge()

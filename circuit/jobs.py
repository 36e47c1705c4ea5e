"""Coalesced background work by name, the design of tournaments.tasks for standings.

``request(name)`` marks the job dirty and queues one task unless one is queued or
running; the task runs the job's work again for as long as it finds the job dirty when
it ends. When the broker cannot be reached the request is kept (dirty, unqueued) and
the beat sweep queues it later; nothing in the caller's path fails or waits.
"""

import logging
from collections.abc import Callable
from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from circuit.models import Job

log = logging.getLogger(__name__)

LOST_AFTER = timedelta(minutes=5)


def _work(name: str) -> Callable[[], object]:
    """The work a job name stands for."""
    kind, _, key = name.partition(":")
    if kind == "ratings":
        from circuit.services.ratings import take_in_changes

        return take_in_changes
    if kind == "series":
        from circuit.services.series import recompute_series

        return lambda: recompute_series(int(key))
    if kind == "ladder":
        from circuit.services.ladders import refresh_session

        return lambda: refresh_session(int(key))
    raise ValueError(f"unknown job {name!r}")


def request(name: str) -> bool:
    """Mark the job dirty and queue it unless it is already queued; True if queued now."""
    now = timezone.now()
    job, _ = Job.objects.get_or_create(name=name)
    Job.objects.filter(pk=job.pk).update(dirty=True, requested_at=now)
    if not Job.objects.filter(pk=job.pk, queued=False).update(queued=True, queued_at=now):
        return False
    return _enqueue(job.pk, name)


def request_on_commit(name: str) -> None:
    transaction.on_commit(lambda: request(name))


def _enqueue(job_id: int, name: str) -> bool:
    from circuit.tasks import run_job

    try:
        run_job.delay(name)
    except Exception:  # the broker is down: the sweep queues it later
        log.warning("job %s not queued", name, exc_info=True)
        Job.objects.filter(pk=job_id).update(queued=False)
        return False
    return True


def run(name: str) -> int:
    """Do the job's work until no request arrived meanwhile; returns how many runs."""
    work = _work(name)
    runs = 0
    while True:
        Job.objects.filter(name=name).update(dirty=False)
        try:
            work()
        except Exception:
            Job.objects.filter(name=name).update(dirty=True, queued=False)
            raise
        runs += 1
        with transaction.atomic():
            done = Job.objects.filter(name=name, dirty=False).update(
                queued=False, queued_at=None, finished_at=timezone.now(), runs=F("runs") + 1
            )
        if done:
            return runs


def sweep() -> int:
    """Queue the jobs a broker outage or a lost worker left behind."""
    cutoff = timezone.now() - LOST_AFTER
    pending = Job.objects.filter(dirty=True, queued=False) | Job.objects.filter(
        queued=True, queued_at__lt=cutoff
    )
    queued = 0
    for job in pending:
        Job.objects.filter(pk=job.pk).update(queued=True, queued_at=timezone.now())
        queued += _enqueue(job.pk, job.name)
    return queued

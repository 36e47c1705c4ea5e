"""Coalesced background work: one runner, one Celery task and one sweep for every app.

An app registers each kind of work once, in its ``AppConfig.ready``::

    runner.register("series", recompute_series)

and asks for it by kind and key (a row's id; none for work that has one instance)::

    runner.request("series", series.pk)            # now (after a commit)
    runner.request_on_commit("series", series.pk)  # inside a transaction
    runner.request_all_on_commit("notice", pks)    # many keys of one kind, in a few queries

A request marks the job dirty and queues one task unless one is queued or running; the
task runs the work again for as long as it finds the job dirty when it ends, so a burst
of requests costs one run or two. When the broker cannot be reached the caller never
fails or waits: the request stays dirty and unqueued, and the beat sweep (or the next
request) queues it. A run that fails is retried; once its retries are spent the job is
left dirty for the sweep.

Each job's bookkeeping is a row: by default a ``jobs.Job`` (kind, key); a kind whose
state pages read already (the standings' ``StandingsState``, whose staleness a page
shows) registers its own model, which has the same four fields (``dirty``, ``queued``,
``queued_at``, ``requested_at``) and names its key in ``key_field``.

This module imports no product app: what it runs comes only from the registry.
"""

import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from uuid import uuid4

from celery import shared_task
from celery.exceptions import Retry
from django.db import models, transaction
from django.db.models import F
from django.utils import timezone

from jobs.models import Job

log = logging.getLogger(__name__)

# A job queued longer than this without finishing is taken as lost (its worker died
# before acknowledging and the broker has not redelivered yet): the sweep queues it again.
LOST_AFTER = timedelta(minutes=5)
SWEEP_EVERY = 30.0
RETRIES = 5


def every_two_seconds(retries: int) -> float:
    return 2.0


@dataclass(frozen=True)
class Kind:
    """A kind of work the runner knows: what to call and where its requests are kept."""

    name: str
    work: Callable[..., object]
    keyed: bool = True
    rows: type[models.Model] = Job
    key_field: str = "key"
    retry_after: Callable[[int], float] = every_two_seconds
    on_outage: Callable[[int], object] | None = None
    once: bool = False
    retries: int = RETRIES
    left_behind: Callable[[], Iterable[int]] | None = None

    def lookup(self, key: int) -> dict:
        if self.rows is Job:
            return {"kind": self.name, "key": key}
        return {self.key_field: key}

    def rows_of(self, keys: Iterable[int]) -> models.QuerySet:
        if self.rows is Job:
            return Job.objects.filter(kind=self.name, key__in=keys)
        return self.rows.objects.filter(**{f"{self.key_field}__in": keys})

    def all_rows(self) -> models.QuerySet:
        if self.rows is Job:
            return Job.objects.filter(kind=self.name)
        return self.rows.objects.all()

    def call(self, key: int) -> object:
        return self.work(key) if self.keyed else self.work()


KINDS: dict[str, Kind] = {}


def register(
    kind: str,
    work: Callable[..., object],
    *,
    keyed: bool = True,
    rows: type[models.Model] | None = None,
    key_field: str = "key",
    retry_after: Callable[[int], float] = every_two_seconds,
    on_outage: Callable[[int], object] | None = None,
    once: bool = False,
    retries: int = RETRIES,
    left_behind: Callable[[], Iterable[int]] | None = None,
) -> None:
    """Make ``kind`` a job the runner can run: ``work(key)`` (``work()`` if not ``keyed``).

    ``rows`` is the model keeping its requests when not ``jobs.Job`` (``key_field``
    names the key there); ``retry_after(n)`` is the wait in seconds before retry n;
    ``on_outage(key)`` is called when the broker refused the job; a job done ``once``
    (an email) loses its row when it has run, instead of keeping it for the next request.
    ``left_behind()`` names keys whose work may be owed without a request kept (a process
    that died before its commit callbacks ran): the sweep requests them too.
    Registering a kind again replaces it (apps are made ready once; tests may re-register).
    """
    KINDS[kind] = Kind(
        name=kind,
        work=work,
        keyed=keyed,
        rows=rows or Job,
        key_field=key_field,
        retry_after=retry_after,
        on_outage=on_outage,
        once=once,
        retries=retries,
        left_behind=left_behind,
    )


def _rows(kind: Kind, key: int) -> models.QuerySet:
    return kind.rows.objects.filter(**kind.lookup(key))


def _row(kind: Kind, key: int) -> models.QuerySet:
    """The job's rows, the row created first if there is none yet."""
    rows = _rows(kind, key)
    if not rows.exists():
        kind.rows.objects.get_or_create(**kind.lookup(key))
    return rows


def request(kind: str, key: int = 0) -> bool:
    """Mark the job dirty and queue it unless it is queued or running: True if queued now.

    Never raises for the broker: unreachable, the job stays dirty for the sweep.
    """
    return _ask(KINDS[kind], key, requested=True)


def _ask(job: Kind, key: int, *, requested: bool) -> bool:
    now = timezone.now()
    mark = {"dirty": True, "requested_at": now} if requested else {"dirty": True}
    rows = _rows(job, key)
    if not rows.update(**mark):
        job.rows.objects.get_or_create(**job.lookup(key))
        rows.update(**mark)
    if not rows.filter(queued=False).update(queued=True, queued_at=now):
        return False
    return _enqueue(job, key)


def request_on_commit(kind: str, key: int = 0) -> None:
    """Request the job once the current transaction commits (at once outside of one)."""
    transaction.on_commit(lambda: request(kind, key))


def request_all(kind: str, keys: Iterable[int]) -> int:
    """``request`` for many keys of one kind in the same few queries however many they
    are (the emails of a round's tables): returns how many were queued now."""
    return _ask_all(KINDS[kind], keys, requested=True)


def request_all_on_commit(kind: str, keys: Iterable[int]) -> None:
    """``request_all`` once the current transaction commits (at once outside of one)."""
    keys = list(keys)
    if keys:
        transaction.on_commit(lambda: request_all(kind, keys))


def _ask_all(job: Kind, keys: Iterable[int], *, requested: bool) -> int:
    """Mark the keys' jobs dirty and queue those not queued or running (four queries
    and a publish each)."""
    keys = sorted(set(keys))
    if not keys:
        return 0
    now = timezone.now()
    mark = {"dirty": True, "requested_at": now} if requested else {"dirty": True}
    with transaction.atomic():
        job.rows.objects.bulk_create(
            [job.rows(**job.lookup(key)) for key in keys], ignore_conflicts=True
        )
        # The update holds the rows until the commit: a request or a run of one of them
        # meanwhile waits, so no key is queued twice.
        job.rows_of(keys).update(**mark)
        due = list(job.rows_of(keys).filter(queued=False).values_list(job.key_field, flat=True))
        job.rows_of(due).update(queued=True, queued_at=now)
    return sum(_enqueue(job, key) for key in sorted(due))


@contextmanager
def held(kind: str, key: int = 0) -> Iterator[None]:
    """Hold a job during a bulk load, then run it once at the end.

    While held, requests only mark the job dirty (as if a run were already queued);
    leaving the block releases the hold and requests the one run.
    """
    job = KINDS[kind]
    _row(job, key).update(queued=True, queued_at=timezone.now())
    try:
        yield
    finally:
        _rows(job, key).update(queued=False, queued_at=None)
        request(kind, key)


def _enqueue(job: Kind, key: int) -> bool:
    try:
        # The task's id names the job, so a worker's log tells which one it runs.
        run_job.apply_async((job.name, key), task_id=f"{job.name}:{key}:{uuid4().hex}")
    except Exception:  # the broker is down (or, run in-process, the work failed): the sweep
        log.warning("job %s:%s not queued", job.name, key, exc_info=True)
        _rows(job, key).update(queued=False)
        if job.on_outage is not None:
            job.on_outage(key)
        return False
    return True


def in_process() -> bool:
    """Whether requested work runs at once in the process that asks for it (no broker
    configured: ``CELERY_TASK_ALWAYS_EAGER``), so that whoever asked waits for it."""
    return bool(run_job.app.conf.task_always_eager)


def run(kind: str, key: int = 0) -> int:
    """Do the job's work until no request arrived meanwhile; returns how many runs."""
    job = KINDS[kind]
    rows = _row(job, key)
    runs = 0
    while True:
        rows.update(dirty=False)
        try:
            job.call(key)
        except Exception:
            rows.update(dirty=True)
            raise
        runs += 1
        # Finish only if nothing changed meanwhile; otherwise run again.
        if job.once:
            done = rows.filter(dirty=False).delete()[0]
        elif job.rows is Job:
            done = rows.filter(dirty=False).update(
                queued=False, queued_at=None, finished_at=timezone.now(), runs=F("runs") + 1
            )
        else:
            done = rows.filter(dirty=False).update(queued=False, queued_at=None)
        if done:
            return runs


def sweep() -> int:
    """Queue the jobs a broker outage, spent retries or a lost worker left behind, and
    those the kinds name as owed (``left_behind``); returns how many were queued."""
    now = timezone.now()
    queued = 0
    for job in list(KINDS.values()):
        rows = job.all_rows()
        lost = rows.filter(queued=True, queued_at__lt=now - LOST_AFTER)
        keys = set(lost.values_list(job.key_field, flat=True))
        lost.update(queued=False)  # its worker died: queued again below
        keys.update(rows.filter(dirty=True, queued=False).values_list(job.key_field, flat=True))
        if job.left_behind is not None:
            keys.update(job.left_behind())
        # Not a new request: when the oldest request was made stays as it was.
        queued += _ask_all(job, keys, requested=False)
    return queued


@shared_task(name="jobs.run", bind=True, acks_late=True, reject_on_worker_lost=True)
def run_job(self, kind: str, key: int = 0) -> int:
    """Run one coalesced job; a failed run is retried, then left to the sweep."""
    job = KINDS.get(kind)
    if job is None:
        log.error("job %s:%s has no registered work", kind, key)
        return 0
    try:
        return run(kind, key)
    except Exception as error:
        wait = job.retry_after(self.request.retries)
        # The retry is the job's queued run: until it is due, requests only mark it dirty.
        _rows(job, key).update(queued=True, queued_at=timezone.now() + timedelta(seconds=wait))
        try:
            raise self.retry(exc=error, countdown=wait, max_retries=job.retries) from error
        except Retry:
            raise
        except Exception:  # retries spent, or the retry not published: the sweep's now
            _rows(job, key).update(queued=False)
            raise


@shared_task(name="jobs.sweep")
def sweep_jobs() -> int:
    """Queue the jobs the broker missed (beat runs it every SWEEP_EVERY seconds)."""
    return sweep()

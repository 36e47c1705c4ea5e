"""Celery tasks of series, ratings and ladders: thin wrappers over circuit.jobs and services."""

from celery import shared_task

from circuit import jobs


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=5)
def run_job(self, name: str) -> int:
    """Run one coalesced job (ratings, a series' standings, a ladder session's tables)."""
    try:
        return jobs.run(name)
    except Exception as error:
        raise self.retry(exc=error, countdown=2) from error


@shared_task
def sweep_jobs() -> int:
    """Queue the jobs the broker missed."""
    return jobs.sweep()


@shared_task
def scheduled_work() -> int:
    """Create the series events that are due and seat the ladder sessions whose interval
    has passed; returns how many things it did."""
    from circuit.services.ladders import form_due_sessions
    from circuit.services.series import create_due_events

    return create_due_events() + form_due_sessions()

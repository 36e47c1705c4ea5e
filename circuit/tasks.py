"""Celery tasks of series and ladders on beat's schedule (their coalesced jobs, ratings
among them, run through ``jobs.runner``: see ``circuit.apps``)."""

from celery import shared_task

from circuit.services.ladders import form_due_sessions
from circuit.services.series import create_due_events


@shared_task
def scheduled_work() -> int:
    """Create the series events that are due and seat the ladder sessions whose interval
    has passed; returns how many things it did."""
    return create_due_events() + form_due_sessions()

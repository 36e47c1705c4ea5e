"""The Celery app: tasks are autodiscovered from each installed app's ``tasks.py``.

Without ``REDIS_URL`` the settings make every task run eagerly in-process, so a
laptop needs neither Redis nor a worker.
"""

import os
import time

from celery import Celery
from celery.signals import before_task_publish

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# The header each task carries with the time it was queued (``config.metrics`` reads it).
PUBLISHED_HEADER = "capicu_published_at"

app = Celery("capicu")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="capicu.health", ignore_result=False)
def health(token: str = "ok") -> str:
    """Echo a token back: proves a worker is consuming from the broker."""
    return token


@app.task(name="capicu.heartbeat")
def heartbeat() -> None:
    """Beat queues this every HEARTBEAT_SECONDS; the worker that runs it is alive."""
    # config/__init__ loads this module with the settings, before the apps are ready;
    # config.health reads the cache and the database, so it is imported when a task runs.
    from config.health import write_heartbeat

    write_heartbeat("worker")


@before_task_publish.connect
def _mark_published(sender=None, headers=None, **kwargs):
    """Stamps each task with when it was queued, for the metrics' oldest-task age; beat's
    own heartbeat is written as it queues the worker's."""
    if headers is not None:
        headers[PUBLISHED_HEADER] = time.time()
    if sender == "capicu.heartbeat":
        # Loaded with the settings (see heartbeat above): imported when a task is sent.
        from config.health import write_heartbeat

        write_heartbeat("beat")

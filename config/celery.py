"""The Celery app: tasks are autodiscovered from each installed app's ``tasks.py``.

Without ``REDIS_URL`` the settings make every task run eagerly in-process, so a
laptop needs neither Redis nor a worker.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("capicu")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="capicu.health", ignore_result=False)
def health(token: str = "ok") -> str:
    """Echo a token back: proves a worker is consuming from the broker."""
    return token

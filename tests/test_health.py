"""The Celery wiring: eager without a broker, a real worker with one."""

import pytest
from django.conf import settings

from config.celery import app, health


def test_tasks_run_in_process_without_a_broker(settings):
    if settings.REDIS_URL:
        pytest.skip("REDIS_URL is set: tasks go to the broker")
    assert settings.CELERY_TASK_ALWAYS_EAGER is True
    assert settings.CELERY_BROKER_URL == "memory://"
    assert health.delay("eager").get(timeout=1) == "eager"


@pytest.mark.broker
@pytest.mark.django_db(transaction=True)
def test_health_task_runs_on_a_real_worker(celery_worker_process):
    assert not app.conf.task_always_eager
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    result = health.delay("through-the-broker")
    assert result.get(timeout=20) == "through-the-broker"
    assert result.successful()

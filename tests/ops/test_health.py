"""``/health/``: the database, Redis, the worker and beat, as an uptime monitor reads them
(200 while all are alive, 503 when one is not, and JSON that says which)."""

import socket
import time

import pytest
from django.core.cache import cache
from django.test import Client

from config.celery import PUBLISHED_HEADER, _mark_published, heartbeat
from config.health import heartbeat_key, write_heartbeat

pytestmark = pytest.mark.django_db

REDIS = "redis://127.0.0.1:6379/13"


def redis_running() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), 1):
            return True
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def with_redis(settings, url: str) -> None:
    settings.REDIS_URL = url
    settings.CACHES = {
        "default": {
            "BACKEND": "config.cache.ForgivingRedisCache",
            "LOCATION": url,
            "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.5},
        }
    }


def health():
    response = Client().get("/health/")
    assert response["Content-Type"] == "application/json"
    assert "no-cache" in response["Cache-Control"]
    return response.status_code, response.json()


def test_without_redis_the_tasks_run_in_process_and_all_is_alive(settings):
    settings.REDIS_URL = ""
    status, answer = health()
    assert status == 200
    assert answer["status"] == "ok"
    assert set(answer["checks"]) == {"database", "redis", "worker", "beat"}
    assert all(part["ok"] for part in answer["checks"].values())


def test_redis_away_is_a_503_naming_it(settings):
    with_redis(settings, f"redis://127.0.0.1:{free_port()}/0")
    status, answer = health()
    assert status == 503
    assert answer["status"] == "failing"
    assert answer["checks"]["database"] == {"ok": True}
    assert answer["checks"]["redis"]["ok"] is False
    assert answer["checks"]["worker"] == {"ok": False, "error": "redis unreachable"}


needs_redis = pytest.mark.skipif(not redis_running(), reason="Redis is not running")


@pytest.fixture
def redis_cache(settings):
    with_redis(settings, REDIS)
    settings.HEARTBEAT_STALE_SECONDS = 60
    for role in ("worker", "beat"):
        cache.delete(heartbeat_key(role))
    yield
    for role in ("worker", "beat"):
        cache.delete(heartbeat_key(role))


@needs_redis
def test_the_worker_and_beat_are_alive_while_their_heartbeats_are_recent(redis_cache):
    status, answer = health()
    assert status == 503
    assert answer["checks"]["worker"] == {"ok": False, "error": "no heartbeat yet"}
    assert answer["checks"]["redis"] == {"ok": True}
    # Beat stamps its heartbeat as it queues the worker's; the worker's runs the task.
    headers = {}
    _mark_published(sender="capicu.heartbeat", headers=headers)
    assert headers[PUBLISHED_HEADER] == pytest.approx(time.time(), abs=5)
    heartbeat.run()
    status, answer = health()
    assert status == 200, answer
    assert answer["checks"]["beat"]["ok"] is True
    assert answer["checks"]["worker"]["seconds_ago"] < 5


@needs_redis
def test_a_stale_heartbeat_is_a_stopped_part(redis_cache):
    write_heartbeat("worker")
    cache.set(heartbeat_key("beat"), time.time() - 600, timeout=None)
    status, answer = health()
    assert status == 503
    assert answer["checks"]["worker"]["ok"] is True
    assert answer["checks"]["beat"]["ok"] is False
    assert answer["checks"]["beat"]["seconds_ago"] >= 600


def test_other_tasks_are_stamped_but_write_no_heartbeat():
    headers = {}
    _mark_published(sender="tournaments.tasks.sweep_standings", headers=headers)
    assert PUBLISHED_HEADER in headers
    assert cache.get(heartbeat_key("beat")) is None

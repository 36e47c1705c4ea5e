"""The health check an uptime monitor, a load balancer or an operator's script polls.

``GET /health/`` answers JSON: ``status`` (``ok`` or ``failing``) and one entry per part
(the database, Redis, the Celery worker, beat), with 200 while every part is alive and
503 when one is not. The worker and beat are alive while their heartbeats are recent:
beat queues ``capicu.heartbeat`` every ``HEARTBEAT_SECONDS`` and writes the time it did
(``config.celery``), the worker that runs it writes the time it ran; a heartbeat older
than ``HEARTBEAT_STALE_SECONDS`` means that part has stopped. Without ``REDIS_URL`` the
tasks run in-process: there is no Redis, worker or beat to ask, and those parts say so.
"""

import time

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

ROLES = ("worker", "beat")


def heartbeat_key(role: str) -> str:
    return f"capicu:heartbeat:{role}"


def write_heartbeat(role: str) -> None:
    """Notes that ``role`` (``worker`` or ``beat``) is alive now."""
    cache.set(heartbeat_key(role), time.time(), timeout=None)


def check_database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as error:  # any failure is the answer, not a crash
        return {"ok": False, "error": type(error).__name__}
    return {"ok": True}


def check_redis() -> dict:
    import redis

    client = redis.Redis.from_url(
        settings.REDIS_URL,
        socket_connect_timeout=settings.REDIS_CONNECT_TIMEOUT,
        socket_timeout=settings.REDIS_SOCKET_TIMEOUT,
    )
    try:
        client.ping()
    except redis.RedisError as error:
        return {"ok": False, "error": type(error).__name__}
    finally:
        client.close()
    return {"ok": True}


def check_heartbeat(role: str, redis_ok: bool) -> dict:
    if not redis_ok:
        return {"ok": False, "error": "redis unreachable"}
    seen = cache.get(heartbeat_key(role))
    if seen is None:
        return {"ok": False, "error": "no heartbeat yet"}
    age = round(max(0.0, time.time() - float(seen)), 1)
    return {"ok": age <= settings.HEARTBEAT_STALE_SECONDS, "seconds_ago": age}


def checks() -> dict[str, dict]:
    found = {"database": check_database()}
    if not settings.REDIS_URL:
        in_process = {"ok": True, "note": "tasks run in-process (no REDIS_URL)"}
        found.update(redis=in_process, worker=in_process, beat=in_process)
        return found
    found["redis"] = check_redis()
    for role in ROLES:
        found[role] = check_heartbeat(role, found["redis"]["ok"])
    return found


@never_cache
def health(request):
    """Every part's state, with 200 while all are alive and 503 when one is not."""
    parts = checks()
    alive = all(part["ok"] for part in parts.values())
    return JsonResponse(
        {"status": "ok" if alive else "failing", "checks": parts}, status=200 if alive else 503
    )

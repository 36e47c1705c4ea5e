"""Test-wide fixtures: service gating, and a real Celery worker for broker tests.

Tests marked ``postgres`` need ``DATABASE_URL`` pointing at PostgreSQL; tests marked
``broker`` need ``REDIS_URL`` and start a real ``celery worker`` for the session. On a
laptop without those services they are skipped with a reason that says how to run
them; under ``CI=true`` a service that is configured but unreachable is a failure.
"""

import os
import socket
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.db.backends.signals import connection_created

from tests.workers import start_worker, stop_worker, worker_env

ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}

HOW_TO_POSTGRES = (
    "needs PostgreSQL: run with DATABASE_URL=postgres://postgres@127.0.0.1:5432/capicu "
    "(README, 'Tests against PostgreSQL and Redis')"
)
HOW_TO_BROKER = (
    "needs Redis and a Celery worker: run with REDIS_URL=redis://127.0.0.1:6379/0 and "
    "DATABASE_URL=postgres://... (README, 'Tests against PostgreSQL and Redis')"
)


def _commit_without_waiting_for_the_disk(sender, connection, **kwargs):
    """A test database is thrown away: its commits need not wait for the disk.

    ``synchronous_commit = off`` keeps every guarantee a test can see (atomicity,
    isolation, what each connection reads after a commit) and drops only durability
    across a crash of the database server, which no test exercises.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET synchronous_commit TO off")


connection_created.connect(_commit_without_waiting_for_the_disk, dispatch_uid="tests-async-commit")


def uses_postgres() -> bool:
    return settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


def _reachable(url: str, default_port: int) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection(
            (parsed.hostname or "127.0.0.1", parsed.port or default_port), 2
        ):
            return True
    except OSError:
        return False


def pytest_collection_modifyitems(config, items):
    redis_url = settings.REDIS_URL
    redis_ok = bool(redis_url) and _reachable(redis_url, 6379)
    if redis_url and not redis_ok and IN_CI:
        raise pytest.UsageError(f"REDIS_URL={redis_url} is set but Redis is unreachable")
    for item in items:
        if "postgres" in item.keywords and not uses_postgres():
            item.add_marker(pytest.mark.skip(reason=HOW_TO_POSTGRES))
        if "broker" in item.keywords:
            if not redis_url:
                item.add_marker(pytest.mark.skip(reason=HOW_TO_BROKER))
            elif not redis_ok:
                item.add_marker(pytest.mark.skip(reason=f"Redis at {redis_url} is unreachable"))
            elif not uses_postgres():
                item.add_marker(
                    pytest.mark.skip(
                        reason="broker tests share the test database with a worker: use PostgreSQL"
                    )
                )


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker):
    """A real ``celery worker`` on the test database, for the whole session."""
    from django.db import connection

    from config.celery import app

    with django_db_blocker.unblock():
        test_db = connection.settings_dict["NAME"]
    app.control.purge()
    # Named by the test database: test runs side by side (CI's parts) keep their own log.
    log_path = ROOT / "test-output" / f"celery-worker-{test_db}.log"
    worker = start_worker(worker_env(test_db), log_path, f"capicu-test-{test_db}")
    node = socket.gethostname()  # the worker's %h
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            pytest.fail(f"celery worker exited with {worker.returncode}; see {log_path}")
        if app.control.ping(timeout=0.5, destination=[f"capicu-test-{test_db}@{node}"]):
            break
    else:
        stop_worker(worker)
        pytest.fail(f"celery worker did not answer within 60 s; see {log_path}")
    yield worker
    stop_worker(worker)


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Hash test passwords cheaply: the real hasher is slow on purpose."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _media_in_a_temporary_folder(settings, tmp_path_factory):
    """Uploaded files (dispute photos) go to a temporary folder, never the project's."""
    settings.MEDIA_ROOT = tmp_path_factory.mktemp("media")


@pytest.fixture(autouse=True)
def tasks_in_process(request):
    """Run Celery tasks in-process except in tests that exercise the real broker."""
    from config.celery import app

    if "broker" in request.keywords:
        yield
        return
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Every test starts with an empty cache: the live parts' tags and fragments are kept
    there by address, and a slug from an earlier test (rolled back) would find them."""
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    cache = caches["default"]
    if isinstance(cache, LocMemCache):
        cache.clear()
        return
    # A Redis cache may share its database with the broker: only the keys kept by address
    # go (the live parts', the time zone each tournament's and game's pages use, and the
    # wrong claim codes counted per account, and the hourly counts of invitations, emails
    # and requests per user, whose ids a fresh test database gives out again).
    client = cache._cache.get_client(write=True)
    stale = [
        key
        for pattern in ("live:*", "tz:*", "players:*", "accounts:hourly:*")
        for key in client.scan_iter(match=cache.make_key(pattern))
    ]
    if stale:
        client.delete(*stale)

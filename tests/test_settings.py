"""Settings come from the environment; the production profile passes check --deploy."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DEBUG", "SECRET_KEY", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_profile_passes_check_deploy_without_warnings():
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="0",
        SECRET_KEY="x7!kq2-production-secret-" + "z" * 40,
        ALLOWED_HOSTS="capicu.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key():
    result = run_manage("check", DEBUG="0", ALLOWED_HOSTS="capicu.example.org")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_database_url_selects_the_database():
    code = "from django.conf import settings; print(settings.DATABASES['default']['ENGINE'])"
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/elsewhere",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.strip() == "django.db.backends.postgresql", result.stderr


def test_sqlite_is_the_default_database(settings):
    if os.environ.get("DATABASE_URL"):
        return
    assert settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"


def closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


PUBLISH_WITH_REDIS_AWAY = """
import time, django
django.setup()
from config.celery import app
from jobs.runner import run_job

def no_backend(*args, **kwargs):
    raise AssertionError("publishing touched the result backend")

app.backend.on_task_call = no_backend
started = time.monotonic()
try:
    run_job.delay("standings", 1)
except Exception as error:
    print(type(error).__name__, round(time.monotonic() - started, 3))
"""


def test_a_standings_task_published_while_redis_is_away_fails_fast_and_skips_results():
    result = subprocess.run(
        [sys.executable, "-c", PUBLISH_WITH_REDIS_AWAY],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "REDIS_URL": f"redis://127.0.0.1:{closed_port()}/0",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    kind, seconds = result.stdout.split()
    assert kind == "OperationalError", result.stdout + result.stderr  # the broker, not results
    assert float(seconds) < 1

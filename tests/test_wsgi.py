"""The production start the README documents: ``gunicorn config.wsgi`` with DEBUG off."""

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUNICORN = Path(sys.executable).with_name("gunicorn")

pytestmark = [
    pytest.mark.gunicorn,
    pytest.mark.skipif(not GUNICORN.exists(), reason="gunicorn is not installed in this venv"),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def production(tmp_path):
    """The README's production steps (migrate, collectstatic, gunicorn) on a scratch
    database and static folder; yields the server's base URL."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(
        DEBUG="0",
        SECRET_KEY="gunicorn-test-" + "k" * 50,
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="0",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        STATIC_ROOT=str(tmp_path / "static"),
    )
    for step in (["migrate", "--noinput"], ["collectstatic", "--noinput"]):
        done = subprocess.run(
            [sys.executable, "manage.py", *step],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    port = free_port()
    log = open(tmp_path / "gunicorn.log", "w")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        [str(GUNICORN), "config.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{base}/health/", timeout=2)
                break
            except OSError:
                assert server.poll() is None, (tmp_path / "gunicorn.log").read_text()
                time.sleep(0.2)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()


def fetch(url: str):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.headers, response.read()


def test_gunicorn_serves_pages_static_files_and_the_health_check(production):
    status, _, body = fetch(f"{production}/health/")
    assert (status, body) == (200, b"ok")
    status, headers, body = fetch(f"{production}/")
    assert status == 200
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    stylesheet = re.search(rb'href="(/static/capicu\.[0-9a-f]+\.css)"', body)
    assert stylesheet, "the page links its stylesheet by its hashed name"
    status, headers, css = fetch(production + stylesheet.group(1).decode())
    assert status == 200
    assert headers["Content-Type"].startswith("text/css")
    assert "immutable" in headers["Cache-Control"]
    assert css.strip()

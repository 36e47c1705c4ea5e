"""The production start the README documents: ``gunicorn config.wsgi`` with DEBUG off."""

import atexit
import functools
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUNICORN = Path(sys.executable).with_name("gunicorn")
UVICORN = Path(sys.executable).with_name("uvicorn")

pytestmark = [
    pytest.mark.gunicorn,
    pytest.mark.skipif(not GUNICORN.exists(), reason="gunicorn is not installed in this venv"),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def prepared(folder: Path, **extra: str) -> dict[str, str]:
    """The README's production environment on a scratch database and static folder in
    ``folder``, migrated and collected: the environment to start a server with.

    The steps run once per test session (``migrated_and_collected``); each caller gets a
    copy of their result, as a server started after them would find it."""
    template = migrated_and_collected()
    for database in template.glob("db.sqlite3*"):  # with a journal, if one was left
        shutil.copyfile(database, folder / database.name)
    shutil.copytree(template / "static", folder / "static")
    return production_env(folder, **extra)


def production_env(folder: Path, **extra: str) -> dict[str, str]:
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
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
        STATIC_ROOT=str(folder / "static"),
        **extra,
    )
    return env


@functools.cache
def migrated_and_collected() -> Path:
    """``manage.py migrate`` and ``collectstatic`` as the README runs them, once for the
    session, in a folder removed when the session ends."""
    folder = Path(tempfile.mkdtemp(prefix="capicu-production-"))
    atexit.register(shutil.rmtree, folder, True)
    env = production_env(folder)
    for step in (["migrate", "--noinput"], ["collectstatic", "--noinput"]):
        manage(env, *step)
    return folder


def manage(env: dict[str, str], *args: str) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def readme_uvicorn(port: int) -> list[str]:
    """The README's uvicorn command (its options as documented), on ``port``."""
    readme = (ROOT / "README.md").read_text()
    found = re.search(r"^\.venv/bin/uvicorn (.+?)(?:#.*)?$\n(.+?)(?:#.*)?$", readme, re.M)
    words = (found.group(1).rstrip(" \\") + " " + found.group(2)).split()
    words[words.index("--port") + 1] = str(port)
    return [str(UVICORN), *words]


@contextmanager
def serving(command: list[str], port: int, env: dict[str, str], log_path: Path):
    """A server started with ``command`` (listening on ``port``) until the block ends: its
    base URL, once its health check answers."""
    log = open(log_path, "w")  # noqa: SIM115 - closed below
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        # A busy machine may take a while to import Django: wait for the server to
        # answer (up to two minutes), never start the test against one that does not.
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{base}/health/", timeout=5)
                break
            except urllib.error.HTTPError:
                break  # it answers: what it says is the test's to judge
            except OSError:
                assert server.poll() is None, log_path.read_text()
                assert time.monotonic() < deadline, "the server never answered its health check"
                time.sleep(0.2)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()


def gunicorn(port: int) -> list[str]:
    return [str(GUNICORN), "config.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1"]


@pytest.fixture
def production(tmp_path):
    """The README's production steps (migrate, collectstatic, gunicorn) on a scratch
    database and static folder; yields the server's base URL."""
    env, port = prepared(tmp_path), free_port()
    with serving(gunicorn(port), port, env, tmp_path / "gunicorn.log") as base:
        yield base


def fetch(url: str):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.headers, response.read()


def test_gunicorn_serves_pages_static_files_and_the_health_check(production):
    status, _, body = fetch(f"{production}/health/")
    assert (status, json.loads(body)["status"]) == (200, "ok")
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


@pytest.mark.parametrize(
    ("behind_proxy", "believed"), [("", "None"), ("1", "('HTTP_X_FORWARDED_PROTO', 'https')")]
)
def test_x_forwarded_proto_is_believed_only_behind_a_proxy(behind_proxy, believed):
    """Anyone can send ``X-Forwarded-Proto: https``: production trusts it only where
    BEHIND_PROXY says a proxy in front sets it."""
    code = "from django.conf import settings; print(settings.SECURE_PROXY_SSL_HEADER)"
    env = {key: value for key, value in os.environ.items() if key != "BEHIND_PROXY"}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DEBUG="0",
        SECRET_KEY="proxy-test-" + "k" * 50,
        BEHIND_PROXY=behind_proxy,
    )
    done = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == believed, done.stderr

"""``make serve``: the production stack started as one (deploy/serve.py runs the Procfile
with honcho) against PostgreSQL and Redis, alive by its health check, and stopped whole
by one Ctrl-C; without its settings it names each one missing and starts nothing."""

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.conf import settings

from tests.test_wsgi import free_port

ROOT = Path(__file__).resolve().parent.parent.parent
SERVE = [sys.executable, "deploy/serve.py"]


def test_without_its_settings_it_names_each_one_missing_and_starts_nothing():
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "ALLOWED_HOSTS"}
    }
    done = subprocess.run(SERVE, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    for name in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "ALLOWED_HOSTS"):
        assert f"  {name}: " in done.stderr
    assert "migrate" not in done.stdout
    sqlite = subprocess.run(
        SERVE,
        cwd=ROOT,
        env={
            **env,
            "DATABASE_URL": "sqlite:///x.sqlite3",
            "REDIS_URL": "redis://127.0.0.1:6379/0",
            "SECRET_KEY": "k" * 50,
            "ALLOWED_HOSTS": "example.org",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert sqlite.returncode == 2
    assert "DATABASE_URL: sqlite is not PostgreSQL" in sqlite.stderr


def health(port: int) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=3) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


@pytest.mark.postgres
@pytest.mark.broker
def test_make_serve_runs_the_whole_stack_and_one_ctrl_c_stops_it(tmp_path):
    database = f"capicu_serve_{os.getpid()}"
    admin = urlparse(os.environ["DATABASE_URL"])
    psql = ["psql", "-h", admin.hostname or "127.0.0.1", "-U", admin.username or "postgres"]
    subprocess.run([*psql, "-qc", f"CREATE DATABASE {database}"], check=True, timeout=60)
    redis = urlparse(settings.REDIS_URL)._replace(path="/14").geturl()
    web, events, live = free_port(), free_port(), free_port()
    env = {
        **os.environ,
        "DATABASE_URL": admin._replace(path=f"/{database}").geturl(),
        "REDIS_URL": redis,
        "SECRET_KEY": "serve-test-" + "k" * 50,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",  # asked directly here, with no proxy saying HTTPS
        "WEB_PORT": str(web),
        "EVENTS_PORT": str(events),
        "WEB_WORKERS": "2",
        "LIVE_PORT": str(live),
        "LIVE_WORKERS": "1",
        "HEARTBEAT_SECONDS": "1",
        "METRICS_TOKEN": "serve-metrics-token",
        "STATIC_ROOT": str(tmp_path / "static"),
    }
    log = (tmp_path / "serve.log").open("w")
    stack = subprocess.Popen(
        SERVE, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        deadline, answer = time.monotonic() + 120, None
        while time.monotonic() < deadline:
            assert stack.poll() is None, (tmp_path / "serve.log").read_text()
            try:
                status, answer = health(web)
                if status == 200:
                    break
            except OSError:
                pass
            time.sleep(0.5)
        else:
            pytest.fail(f"not healthy in 120 s: {answer}\n{(tmp_path / 'serve.log').read_text()}")
        assert set(answer["checks"]) == {"database", "redis", "worker", "beat"}
        # The streams' server and the live polls' pool answer too, and a scrape adds up
        # every web worker's counts.
        assert health(events)[0] == 200
        assert health(live)[0] == 200
        request = urllib.request.Request(
            f"http://127.0.0.1:{web}/metrics",
            headers={"Authorization": "Bearer serve-metrics-token"},
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            scrape = response.read().decode()
        assert 'capicu_http_requests_total{method="GET",status="2xx",view="health"}' in scrape
        assert "capicu_tasks_queued" in scrape
        # Ctrl-C reaches every process of the terminal's group, as a keyboard's would.
        os.killpg(stack.pid, signal.SIGINT)
        assert stack.wait(timeout=60) is not None
        time.sleep(1)
        with pytest.raises(ProcessLookupError):
            os.killpg(stack.pid, 0)  # nothing of the group is left running
        output = (tmp_path / "serve.log").read_text()
        for process in ("web.1", "live.1", "events.1", "worker.1", "beat.1"):
            assert f"{process} stopped" in output, output
    finally:
        if stack.poll() is None:
            os.killpg(stack.pid, signal.SIGKILL)
            stack.wait(timeout=20)
        log.close()
        subprocess.run(
            [*psql, "-qc", f"DROP DATABASE IF EXISTS {database} WITH (FORCE)"], timeout=60
        )
        subprocess.run(["redis-cli", "-u", redis, "flushdb"], capture_output=True, timeout=30)


def test_the_process_file_runs_the_readmes_processes_with_their_guards():
    """The Procfile is the README's production commands: one gunicorn that believes no
    forwarded header, the live polls' gunicorn pool alike but below its CPU priority, one
    uvicorn that reads none, one worker, one beat."""
    lines = dict(
        line.split(": ", 1)
        for line in (ROOT / "Procfile").read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert set(lines) == {"web", "live", "events", "worker", "beat"}
    assert lines["web"].startswith("gunicorn config.wsgi ")
    assert "--forwarded-allow-ips ''" in lines["web"]
    # The same server and guards as web's, on its own port and workers, niced.
    niced = re.fullmatch(
        r"nice -n \$\{LIVE_NICE:-(\d+)\} (gunicorn config\.wsgi .*)", lines["live"]
    )
    assert niced and int(niced.group(1)) > 0
    same = re.sub(r"\$\{LIVE_(\w+):-\d+\}", r"${WEB_\1}", niced.group(2))
    assert same == re.sub(r"\$\{WEB_(\w+):-\d+\}", r"${WEB_\1}", lines["web"])
    assert "${LIVE_PORT:-8002}" in lines["live"]
    assert lines["events"].startswith("uvicorn config.asgi:application ")
    assert "--no-proxy-headers" in lines["events"]
    assert "--concurrency 1" in lines["worker"]
    assert lines["beat"].startswith("celery -A config beat ")
    readme = (ROOT / "README.md").read_text()
    for flag in ("--timeout 30", "--max-requests 5000", "--timeout-graceful-shutdown 5"):
        assert flag in readme
        assert flag in lines["web"] + lines["events"]

"""Start capicu's production stack on this machine: ``make serve``.

Checks the environment first and names everything missing at once (nothing starts
without PostgreSQL, Redis, a secret key and the host names); then migrates, collects the
static files, and runs the Procfile with honcho: gunicorn for the pages and the API,
a second gunicorn pool below its CPU priority for the crowd's live polls (nginx sends
them there: deploy/nginx.conf), uvicorn for the live streams, one Celery worker and beat,
all with ``DEBUG=0`` and ``LIVE_STREAM=1``. One Ctrl-C stops every process (honcho
passes it on and waits for them); the metrics' folder is emptied at start and removed at
the end.

WEB_PORT, EVENTS_PORT  where gunicorn and uvicorn listen on 127.0.0.1 (8000, 8001)
WEB_WORKERS            gunicorn's sync workers (4: twice the cores of a two-core machine)
LIVE_PORT              where the live polls' pool listens on 127.0.0.1 (8002)
LIVE_WORKERS           its sync workers (2)
LIVE_NICE              its niceness (10: a core goes to the referees' pool first)
SERVE_STATE_DIR        where the metrics' files and beat's schedule are kept (a new
                       temporary folder by default)
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

REQUIRED = {
    "DATABASE_URL": "the PostgreSQL database, e.g. postgres://capicu:...@127.0.0.1:5432/capicu",
    "REDIS_URL": "Redis, the Celery broker and the cache, e.g. redis://127.0.0.1:6379/0",
    "SECRET_KEY": "a long random string, kept secret and the same on every machine",
    "ALLOWED_HOSTS": "the host names the site answers to, e.g. capicu.example.org",
}

# What production is, whatever the shell had: the settings' production profile and the
# streams served by the uvicorn process.
FIXED = {"DEBUG": "0", "LIVE_STREAM": "1"}
DEFAULTS = {
    "WEB_PORT": "8000",
    "EVENTS_PORT": "8001",
    "WEB_WORKERS": "4",
    "LIVE_PORT": "8002",
    "LIVE_WORKERS": "2",
    "LIVE_NICE": "10",
    "CONN_MAX_AGE": "60",
    "PYTHONUNBUFFERED": "1",
}


def missing(env: dict[str, str]) -> list[str]:
    """The lines that say what the environment lacks (empty when nothing does)."""
    lines = [f"  {name}: {what}" for name, what in REQUIRED.items() if not env.get(name)]
    url = env.get("DATABASE_URL", "")
    if url and not url.startswith(("postgres://", "postgresql://")):
        lines.append(f"  DATABASE_URL: {url.split(':', 1)[0]} is not PostgreSQL (postgres://...)")
    return lines


def environment(base: dict[str, str], state: Path) -> dict[str, str]:
    env = {**DEFAULTS, **base, **FIXED}
    metrics = state / "metrics"
    shutil.rmtree(metrics, ignore_errors=True)
    metrics.mkdir(parents=True)
    env["PROMETHEUS_MULTIPROC_DIR"] = str(metrics)
    env["BEAT_SCHEDULE_FILE"] = str(state / "celerybeat-schedule")
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


def run(env: dict[str, str]) -> int:
    for step in (["migrate", "--noinput"], ["collectstatic", "--noinput", "-v", "0"]):
        print("capicu: manage.py", " ".join(step), flush=True)
        done = subprocess.run([sys.executable, "manage.py", *step], cwd=ROOT, env=env)
        if done.returncode:
            return done.returncode
    print(
        f"capicu: pages and API on 127.0.0.1:{env['WEB_PORT']}, live polls on "
        f"127.0.0.1:{env['LIVE_PORT']}, streams on 127.0.0.1:{env['EVENTS_PORT']};"
        " Ctrl-C stops everything",
        flush=True,
    )
    honcho = subprocess.Popen([str(BIN / "honcho"), "start", "-f", "Procfile"], cwd=ROOT, env=env)

    def stop(signum, frame):
        honcho.send_signal(signal.SIGINT)

    signal.signal(signal.SIGTERM, stop)
    while True:
        try:
            return honcho.wait()
        except KeyboardInterrupt:
            continue  # the terminal sent Ctrl-C to honcho too: wait for it to stop them


def main() -> int:
    lacking = missing(os.environ)
    if lacking:
        print(
            "capicu: make serve needs these settings in the environment:\n"
            + "\n".join(lacking)
            + "\n(the README's production section lists them all)",
            file=sys.stderr,
        )
        return 2
    given = os.environ.get("SERVE_STATE_DIR")
    state = Path(given) if given else Path(tempfile.mkdtemp(prefix="capicu-serve-"))
    try:
        return run(environment(dict(os.environ), state))
    finally:
        if not given:
            shutil.rmtree(state, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

"""Starting and stopping real Celery workers for the broker tests."""

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent


def worker_env(test_db: str, **extra: str) -> dict:
    """The environment of a worker process that uses the test database."""
    parsed = urlparse(os.environ["DATABASE_URL"])
    return {
        **os.environ,
        "DATABASE_URL": parsed._replace(path=f"/{test_db}").geturl(),
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


def start_worker(env: dict, log_path: Path, hostname: str) -> subprocess.Popen:
    """A ``celery worker`` (one prefork child) writing to ``log_path``."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = log_path.open("w")
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel=INFO"),
            *("--concurrency=1", "--pool=prefork", "--without-gossip", "--without-mingle"),
            f"--hostname={hostname}@%h",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    process.log, process.log_path = log, log_path
    return process


def stop_worker(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
    process.log.close()

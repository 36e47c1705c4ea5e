"""gunicorn's settings file for capicu (the Procfile's ``web`` line passes ``-c``): under
``PROMETHEUS_MULTIPROC_DIR`` a worker that exits has its live gauges dropped, so the
streams and other live figures count only the processes still running."""

import os


def child_exit(server, worker):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)

"""What the benchmarks start with: the project on the path, Django set up, and a throwaway
test database (SQLite in memory, or ``test_<name>`` beside ``DATABASE_URL``'s database).

Import it before any of the project's modules::

    from bootstrap import throwaway_database

    with throwaway_database():
        ...
"""

import os
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.test.utils import (  # noqa: E402
    setup_databases,
    setup_test_environment,
    teardown_databases,
)


@contextmanager
def throwaway_database():
    """A fresh test database for the block, dropped after it (also on an error)."""
    setup_test_environment()
    databases = setup_databases(verbosity=0, interactive=False)
    try:
        yield
    finally:
        teardown_databases(databases, verbosity=0)

"""Writing from a test's own thread while a server thread reads the same database.

SQLite's shared in-memory test database refuses a statement outright while another
connection holds the table ("database table is locked"); it does not wait the way a file
database or PostgreSQL does. Each write a test makes beside a running stream or server is
one transaction, so when it is refused nothing of it was kept and it is simply made again
once the reader has let go, as a client whose request was refused would."""

import time

from django.db import OperationalError


def beside_readers(call, *, tries: int = 100, pause: float = 0.05):
    """``call()``, made again while SQLite says the table is locked by a reader."""
    for _ in range(tries - 1):
        try:
            return call()
        except OperationalError as error:
            if "locked" not in str(error):
                raise
            time.sleep(pause)
    return call()

"""The public tournament page for 1,024 entrants against a minimal template page.

    .venv/bin/python bench/public_page.py            # SQLite, in a throwaway database
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/capicu .venv/bin/python bench/public_page.py

Builds finished events of 64 and 1,024 entrants (four a table, 8 rounds, standings
computed), then renders /t/{slug}/ through the full Django stack (middleware, session,
templates) and prints its median time over 15 renders, the median of the login page (a
minimal page on the same base template) as the baseline, their ratio, and the number of
queries each tournament page makes (the same at both sizes). The page shows the first
100 standings rows (a link shows all) and every table of the current round.
"""

import statistics
import time

from bootstrap import throwaway_database
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.factories import bulk_event

RUNS = 15


def median_get(client: Client, url: str) -> float:
    samples = []
    for _ in range(RUNS):
        started = time.perf_counter()
        response = client.get(url)
        samples.append(time.perf_counter() - started)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(samples)


def main() -> None:
    from tournaments.read.standings_store import rebuild_standings

    with throwaway_database():
        client = Client()
        baseline = median_get(client, "/accounts/login/")
        print(f"minimal page (login form): median {baseline * 1000:.1f} ms over {RUNS}")
        for entrants in (64, 1024):
            tournament, _ = bulk_event(entrants, 8)
            rebuild_standings(tournament.pk)
            url = f"/t/{tournament.slug}/"
            client.get(url)  # warm up: sessions table, template loaders
            connection.queries_log.clear()  # a full log (9,000 entries) would capture nothing
            with CaptureQueriesContext(connection) as queries:
                client.get(url)
            page = median_get(client, url)
            size = len(client.get(url).content)
            print(
                f"{entrants:5} entrants ({entrants // 4} tables a round, 8 rounds): "
                f"median {page * 1000:.1f} ms, {size // 1024} KiB, {len(queries)} queries; "
                f"ratio to the minimal page {page / baseline:.1f}"
            )


if __name__ == "__main__":
    main()

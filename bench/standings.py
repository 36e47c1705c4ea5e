"""Standings recompute time against one bare SQL aggregate over the same hand rows.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/capicu .venv/bin/python bench/standings.py

Builds, in a throwaway database, a tournament of N entrants playing R rounds at tables
of four (1,024 entrants and 8 rounds: 2,048 games; every game gets its hands), then
prints the full recompute time (load rows, rank every stage, replace the snapshot), the
time of one bare SQL aggregate over the same hand rows (the floor), their ratio (target
at most 3), and the number of queries a recompute makes (head to head adds one when
entrants are still tied at it). The same at 256 entrants shows how the time grows; its
ratio is higher because the recompute's few queries cost the same at any size.
"""

import statistics
import time

from bootstrap import throwaway_database
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import bulk_event


def floor_query(tournament) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT h.game_id, count(*), count(h.domino_by)
            FROM scoring_hand h
            JOIN tournaments_match m ON m.game_id = h.game_id
            JOIN tournaments_round r ON r.id = m.round_id
            JOIN tournaments_stage s ON s.id = r.stage_id
            WHERE s.tournament_id = %s AND h.is_current
            GROUP BY h.game_id
            """,
            [tournament.pk],
        )
        cursor.fetchall()


def analyze() -> None:
    """Give the planner statistics for the freshly loaded tables, as autovacuum would on a
    live database (without them both queries run on guesses)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def medians(first, second, runs: int = 9) -> tuple[float, float]:
    """Median times of two calls, taken in turns so that both see the same machine."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        for call, samples in zip((first, second), times, strict=True):
            started = time.perf_counter()
            call()
            samples.append(time.perf_counter() - started)
    return statistics.median(times[0]), statistics.median(times[1])


def main() -> None:
    from tournaments.standings_store import rebuild_standings

    measured = {}
    with throwaway_database():
        for entrants in (256, 1024):
            tournament, hands = bulk_event(entrants, 8)
            analyze()
            recompute, floor = medians(
                lambda t=tournament: rebuild_standings(t.pk), lambda t=tournament: floor_query(t)
            )
            with CaptureQueriesContext(connection) as queries:
                rebuild_standings(tournament.pk)
            measured[entrants] = (recompute, floor)
            target = " (target <= 3)" if entrants == 1024 else ""
            print(
                f"{entrants:5} entrants, {entrants // 4 * 8} games, {hands} hands: "
                f"recompute {recompute * 1000:.1f} ms; bare aggregate {floor * 1000:.1f} ms; "
                f"ratio {recompute / floor:.2f}{target}; {len(queries)} queries"
            )
        (small, small_floor), (large, large_floor) = measured[256], measured[1024]
        print(
            f"growth from 256 to 1024 entrants: recompute x{large / small:.2f}, "
            f"bare aggregate x{large_floor / small_floor:.2f} (linear: x4)"
        )


if __name__ == "__main__":
    main()

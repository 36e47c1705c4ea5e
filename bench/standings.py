"""Standings recompute time against one bare SQL aggregate over the same hand rows.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/capicu .venv/bin/python bench/standings.py

Builds, in a throwaway database, a tournament of N entrants playing R rounds at tables
of four (1,024 entrants and 8 rounds: 2,048 games; every game gets its hands), then
prints the full recompute time (load rows, rank every stage, replace the snapshot), the
time of one bare SQL aggregate over the same hand rows (the floor), their ratio (target
at most 3), and the number of statements a recompute sends (the same whether or not
entrants are tied at head to head; on PostgreSQL the reads beside the stages' go together
in one round trip, and the compare and stamp in another). The same at 256 entrants shows
how the time grows; its ratio is higher because the recompute's few queries cost the
same at any size.

    --quick             1,024 entrants only, 11 runs in turns (about half the time)
    --entrants 1024     the sizes to build (comma-separated; default 256,1024)
    --runs 41           runs in turns of each call (default 21: a busy machine moves a
                        median of fewer; the medians are printed)
    --profile           after the timing, where the largest recompute's time goes (cProfile)
"""

import argparse
import cProfile
import pstats
import statistics
import time

from bootstrap import throwaway_database
from django.db import connection
from django.test import override_settings
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


def medians(first, second, runs: int = 21) -> tuple[float, float]:
    """Median times of two calls, taken in turns so that both see the same machine."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        for call, samples in zip((first, second), times, strict=True):
            started = time.perf_counter()
            call()
            samples.append(time.perf_counter() - started)
    return statistics.median(times[0]), statistics.median(times[1])


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1,024 entrants, 11 runs")
    parser.add_argument("--entrants", default="256,1024", help="sizes, comma-separated")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--profile", action="store_true", help="profile the largest size")
    args = parser.parse_args(argv)
    args.sizes = [int(size) for size in args.entrants.split(",")]
    if args.quick:
        args.sizes, args.runs = [1024], 11
    return args


def main(argv=None) -> None:
    from tournaments.read.standings_store import rebuild_standings

    args = parse_args(argv)
    measured = {}
    # As a production worker runs it: with DEBUG on, Django would also keep every
    # statement's text, a cost per statement that production does not pay.
    with throwaway_database(), override_settings(DEBUG=False):
        for entrants in args.sizes:
            tournament, hands = bulk_event(entrants, args.rounds)
            analyze()
            recompute, floor = medians(
                lambda t=tournament: rebuild_standings(t.pk),
                lambda t=tournament: floor_query(t),
                args.runs,
            )
            with CaptureQueriesContext(connection) as queries:
                rebuild_standings(tournament.pk)
            measured[entrants] = (recompute, floor)
            target = " (target <= 3)" if entrants == 1024 else ""
            print(
                f"{entrants:5} entrants, {entrants // 4 * args.rounds} games, {hands} hands: "
                f"recompute {recompute * 1000:.1f} ms; bare aggregate {floor * 1000:.1f} ms; "
                f"ratio {recompute / floor:.2f}{target}; {len(queries)} queries"
            )
        if 256 in measured and 1024 in measured:
            (small, small_floor), (large, large_floor) = measured[256], measured[1024]
            print(
                f"growth from 256 to 1024 entrants: recompute x{large / small:.2f}, "
                f"bare aggregate x{large_floor / small_floor:.2f} (linear: x4)"
            )
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(lambda: [rebuild_standings(tournament.pk) for _ in range(args.runs)])
            pstats.Stats(profile).sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()

"""Finishing a stage against reading the same rows, at growing numbers of entrants.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/capicu .venv/bin/python bench/finish_stage.py
    .venv/bin/python bench/finish_stage.py --sizes 2500 5000 10000 20000 --profile

Builds, in a throwaway database, a finished one-round stage of N entrants at tables of
four and an empty second stage, then times ``finish_stage`` (rank the stage, close it,
seed the next one) against the floor: reading the stage's seat rows and its entrants
once. Prints both, their ratio, how long the final write transaction held its locks,
and the growth of each from one size to the next (linear: the sizes' ratio).
"""

import argparse
import cProfile
import pstats
import statistics
import time
from itertools import pairwise

from bootstrap import throwaway_database
from django.db import connection

from tests.factories import bulk_event


def floor(stage) -> None:
    from tournaments.models import Entrant, MatchSeat

    list(
        MatchSeat.objects.filter(round__stage=stage).values_list(
            "entrant_id", "total", "placement", "won"
        )
    )
    list(Entrant.objects.filter(tournament_id=stage.tournament_id).values_list("pk", "seed"))


def reopen(stage, following) -> None:
    """Undo a finish so that the same stage can be finished again."""
    from tournaments.models import Stage, Tournament

    Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.RUNNING)
    Tournament.objects.filter(pk=stage.tournament_id).update(status=Tournament.Status.RUNNING)
    following.entrants.clear()


class WriteTimer:
    """How long ``finish_stage``'s write transaction held its locks: from taking the
    tournament's lock to the commit."""

    def __init__(self):
        from tournaments.services import results

        self.seconds = float("nan")
        self._lock = results.lock_tournament
        results.lock_tournament = self._timed_lock

    def _timed_lock(self, tournament):
        from django.db import transaction

        started = time.perf_counter()
        locked = self._lock(tournament)
        transaction.on_commit(lambda: setattr(self, "seconds", time.perf_counter() - started))
        return locked


def main() -> None:
    from tournaments.models import Stage
    from tournaments.services import finish_stage

    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[2500, 5000, 10000, 20000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="profile the largest size")
    options = parser.parse_args()

    timer = WriteTimer()
    measured = []
    with throwaway_database():
        for entrants in options.sizes:
            tournament, _ = bulk_event(entrants, 1)
            organizer = tournament.created_by
            tournament.staff.create(user=organizer, role="organizer")
            stage = tournament.stages.get(order=1)
            following = Stage.objects.create(
                tournament=tournament, order=2, name="Final", format="swiss"
            )
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("ANALYZE")
            finishing, reading, held = [], [], []
            for _ in range(options.runs):
                reopen(stage, following)
                started = time.perf_counter()
                floor(stage)
                reading.append(time.perf_counter() - started)
                started = time.perf_counter()
                finish_stage(stage, by=organizer)
                finishing.append(time.perf_counter() - started)
                held.append(timer.seconds)
            assert following.entrants.count() == entrants
            finish, base = statistics.median(finishing), statistics.median(reading)
            measured.append((entrants, finish, base))
            print(
                f"{entrants:6} entrants: finish_stage {finish:.3f} s; reading the rows "
                f"{base:.3f} s; ratio {finish / base:.1f}; write transaction "
                f"{statistics.median(held) * 1000:.0f} ms",
                flush=True,
            )
            if options.profile and entrants == options.sizes[-1]:
                reopen(stage, following)
                profile = cProfile.Profile()
                profile.runcall(finish_stage, stage, by=organizer)
                pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
        for (small, small_finish, small_base), (large, large_finish, large_base) in pairwise(
            measured
        ):
            print(
                f"{small} -> {large} entrants (x{large / small:.1f}): finish_stage "
                f"x{large_finish / small_finish:.2f}, reading the rows "
                f"x{large_base / small_base:.2f}"
            )


if __name__ == "__main__":
    main()

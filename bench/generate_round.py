"""Time ``generate_round`` for a 256-entrant Swiss stage against reading the same rows.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/capicu .venv/bin/python bench/generate_round.py

Creates a throwaway test database and, for Swiss stages of 256 entrants at tables of four
and at tables of two, pairs round 1 and then later rounds after every game of the round
before is played (games to a low target, so that the history is real but quick to make).
For each round it prints the seconds ``generate_round`` takes (the pairing, the tables,
seats and games it writes) next to the seconds to read back what it wrote and what it
read (entrants, the stage's seats with their games), measured in the same run.
Target: under one second a round. ``BENCH_PROFILE=1`` prints where the time goes.
"""

import cProfile
import os
import pstats
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection, reset_queries  # noqa: E402
from django.test.utils import (  # noqa: E402
    CaptureQueriesContext,
    setup_databases,
    setup_test_environment,
    teardown_databases,
)

from scoring.models import Game, Seat  # noqa: E402
from tournaments import services  # noqa: E402
from tournaments.demo import play  # noqa: E402
from tournaments.models import Entrant, Match, MatchSeat  # noqa: E402

ENTRANTS = int(os.environ.get("BENCH_ENTRANTS", "256"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
PROFILE = os.environ.get("BENCH_PROFILE", "") not in {"", "0"}


def read_back(stage) -> int:
    """The floor: read every row a round's pairing reads and writes, once."""
    rows = list(Entrant.objects.filter(tournament=stage.tournament))
    rows += list(MatchSeat.objects.filter(round__stage=stage).select_related("match__game"))
    rows += list(Seat.objects.filter(game__match__round__stage=stage))
    return len(rows)


def timed(call):
    started = time.perf_counter()
    with CaptureQueriesContext(connection) as queries:
        value = call()
    return value, time.perf_counter() - started, len(queries)


def event(table_size: int, organizer):
    tournament = services.create_tournament(
        by=organizer,
        name=f"Suizo {ENTRANTS} de {table_size}",
        ruleset_key="cutthroat",
        table_size=table_size,
        overrides={"target": 25},
    )
    services.register_entrants(
        tournament, by=organizer, text="\n".join(f"Jugador {i:03d}" for i in range(ENTRANTS))
    )
    return services.add_stage(
        tournament, by=organizer, name="Suizo", format="swiss", settings={"rounds": ROUNDS}
    )


def main() -> None:
    organizer = get_user_model().objects.create_user("bench-organizer")
    rng = random.Random(0)
    worst = 0.0
    for table_size in (4, 2):
        stage = event(table_size, organizer)
        for number in range(1, ROUNDS + 1):
            profiler = cProfile.Profile() if PROFILE else None
            if profiler:
                profiler.enable()
            round_, seconds, queries = timed(
                lambda s=stage: services.generate_round(s, by=organizer)
            )
            if profiler:
                profiler.disable()
            _, floor, _ = timed(lambda s=stage: read_back(s))
            worst = max(worst, seconds)
            print(
                f"Swiss {ENTRANTS} at tables of {table_size}, round {number}: "
                f"generate_round {seconds:6.3f} s ({queries} queries), "
                f"reading the same rows {floor:6.3f} s, ratio {seconds / floor:5.1f}"
            )
            if profiler:
                pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
            services.publish_round(round_, by=organizer)
            if number < ROUNDS:
                games = Game.objects.filter(match__round=round_)
                for game in games:
                    play(game, organizer, rng)
            reset_queries()
        assert not Match.objects.filter(round__stage=stage, bye=False, game=None).exists()
    print(f"slowest round: {worst:.3f} s (target: under 1 s)")


if __name__ == "__main__":
    setup_test_environment()
    names = setup_databases(verbosity=0, interactive=False)
    try:
        main()
    finally:
        teardown_databases(names, verbosity=0)

"""Time ``generate_round`` for a 256-entrant Swiss stage against reading the same rows.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/capicu .venv/bin/python bench/generate_round.py

Creates a throwaway test database and, for Swiss stages of 256 entrants at tables of four
and at tables of two, pairs round 1 and then later rounds after every game of the round
before is played (games to a low target, so that the history is real but quick to make).
For each round it prints the seconds ``generate_round`` takes (the pairing, the tables,
seats and games it writes) next to the seconds to read back what it wrote and what it
read (entrants, the stage's seats with their games), measured in the same run.
Target: under one second a round. ``BENCH_PROFILE=1`` prints where the time goes.

    .venv/bin/python bench/generate_round.py --lookahead [SEEDS]

plays simulated Swiss events instead (no database; random placements scored in match
points) of 16 x 4, 20 x 4, 24 x 5 and 32 x 5 at tables of four, SEEDS of each (20 unless
given), with each round planned ahead (``swiss.plan_ahead``) and, on the same standings,
as the round alone would be seated: the repeat meetings of both kinds of event, how far
the tables stray from standings order (per table, the places its lowest and highest
placed lie apart beyond a block of consecutive places), the rounds the lookahead changed
and the slowest round.

    .venv/bin/python bench/generate_round.py --lookahead-two [SEEDS]

does the same two a table (``swiss.ahead_two_sides``; a random winner at each table, one
point, one for a bye) for 6 to 16 entrants over up to n - 1 rounds (n for an odd field):
the repeat meetings round by round and planned ahead, and the slowest round.
"""

import cProfile
import itertools
import os
import pstats
import random
import sys
import time

from bootstrap import throwaway_database
from django.contrib.auth import get_user_model
from django.db import connection, reset_queries
from django.test.utils import CaptureQueriesContext

from scoring.models import Game, Seat
from tournaments import services
from tournaments.demo import play
from tournaments.models import Entrant, Match, MatchSeat
from tournaments.pairing.base import EntrantStub, rng_for
from tournaments.pairing.swiss import pair_tables, pair_two_sides, standings_order

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


# Match points per placement at a table of four, as an event sets them.
POINTS = {1: 3.0, 2: 2.0, 3: 1.0, 4: 0.0}
LOOKAHEAD_SIZES = ((16, 4), (20, 4), (24, 5), (32, 5))


def stray(tables, field) -> list[int]:
    """Per table, how many places its players span beyond consecutive places."""
    place = {e.id: i for i, e in enumerate(field)}
    return [
        max(place[p] for p in table) - min(place[p] for p in table) - (len(table) - 1)
        for table in tables
    ]


def gaps(tables, field) -> list[float]:
    """Per table, the squared score gaps of its pairs: what the standings ask to keep low."""
    score = {e.id: e.score for e in field}
    return [
        sum((score[a] - score[b]) ** 2 for a, b in itertools.combinations(table, 2))
        for table in tables
    ]


def simulate(n: int, rounds: int, seed: int, *, ahead: bool) -> dict:
    """One event: its repeats; with ``ahead``, each round's tables' stray planned ahead
    and as the round alone would be seated, and of the rounds that differ (``moved``:
    pairs of lists, ahead and alone; ``gaps``: their squared score gaps); the CPU
    seconds of each round planned ahead and alone (``cpu``, ``cpu_alone``)."""
    rng = random.Random(f"{n}:{rounds}:{seed}")
    met = {i: {} for i in range(n)}
    score = dict.fromkeys(range(n), 0.0)
    figures = {"repeats": 0, "stray": [], "alone": [], "moved": [], "cpu": [], "cpu_alone": []}
    figures["gaps"] = []
    for number in range(1, rounds + 1):
        stubs = [EntrantStub(id=i, seed=i + 1, score=score[i], met=dict(met[i])) for i in range(n)]
        field = standings_order(stubs)
        left = rounds - number + 1 if ahead else 1
        cpu = time.process_time()
        seated, _flags = pair_tables(field, 4, seed, number, left)
        figures["cpu"].append(time.process_time() - cpu)
        tables = [t.entrants for t in seated]
        if ahead:
            cpu = time.process_time()
            alone = [t.entrants for t in pair_tables(field, 4, seed, number)[0]]
            figures["cpu_alone"].append(time.process_time() - cpu)
            figures["stray"] += stray(tables, field)
            figures["alone"] += stray(alone, field)
            if {frozenset(t) for t in tables} != {frozenset(t) for t in alone}:
                figures["moved"].append((stray(tables, field), stray(alone, field)))
                figures["gaps"].append((gaps(tables, field), gaps(alone, field)))
        for table in tables:
            for a, b in itertools.combinations(table, 2):
                figures["repeats"] += met[a].get(b, 0)
                met[a][b] = met[b][a] = met[a].get(b, 0) + 1
            order = list(table)
            rng.shuffle(order)
            for placed, entrant in enumerate(order, start=1):
                score[entrant] += POINTS[placed]
    return figures


def mean(values) -> float:
    return sum(values) / len(values) if values else 0.0


def lookahead(seeds: int) -> None:
    for n, rounds in LOOKAHEAD_SIZES:
        alone = [simulate(n, rounds, seed, ahead=False) for seed in range(seeds)]
        ahead = [simulate(n, rounds, seed, ahead=True) for seed in range(seeds)]
        moved = [pair for event in ahead for pair in event["moved"]]
        print(
            f"{n} x {rounds}, {seeds} seeds: repeats {sum(e['repeats'] for e in alone)} "
            f"({sum(1 for e in alone if e['repeats'])} events) round by round, "
            f"{sum(e['repeats'] for e in ahead)} ({sum(1 for e in ahead if e['repeats'])}) "
            "planned ahead; stray per table on the same standings "
            f"{mean([x for e in ahead for x in e['alone']]):.2f} alone, "
            f"{mean([x for e in ahead for x in e['stray']]):.2f} planned ahead; "
            f"rounds changed {len(moved)} of {seeds * rounds}, their stray "
            f"{mean([x for _, a in moved for x in a]):.2f} alone, "
            f"{mean([x for s, _ in moved for x in s]):.2f} planned ahead, squared score gaps "
            f"per table {mean([x for e in ahead for _, a in e['gaps'] for x in a]):.1f} alone, "
            f"{mean([x for e in ahead for s, _ in e['gaps'] for x in s]):.1f} planned ahead; "
            "slowest round "
            f"{max(x for e in alone for x in e['cpu']):.3f} s CPU round by round, "
            f"{max(x for e in ahead for x in e['cpu']):.3f} s planned ahead"
        )
    # A wide field: its default length (eight rounds), each round's CPU seconds planned
    # ahead against the same round seated alone, measured side by side.
    event = simulate(ENTRANTS, 8, 0, ahead=True)
    pairs = zip(event["cpu"], event["cpu_alone"], strict=True)
    for number, (cpu, alone) in enumerate(pairs, start=1):
        print(
            f"Swiss {ENTRANTS} x 8 at tables of four, round {number}: {cpu:.3f} s CPU planned "
            f"ahead, {alone:.3f} s alone, ratio {cpu / alone:.1f}"
        )
    print(f"repeats {event['repeats']}; rounds changed {len(event['moved'])} of 8")


LOOKAHEAD_TWO_SIZES = [
    *((6, r) for r in (4, 5)),
    *((7, r) for r in (6, 7)),
    *((8, r) for r in (6, 7)),
    *((9, r) for r in (8, 9)),
    *((10, r) for r in (8, 9)),
    *((12, r) for r in (10, 11)),
    *((16, r) for r in (14, 15)),
]


def simulate_two(n: int, rounds: int, seed: int, *, ahead: bool) -> tuple[int, float]:
    """One event two a table: its repeat meetings and its slowest round (CPU seconds)."""
    rng = random.Random(f"two:{n}:{rounds}:{seed}")
    met = {i: {} for i in range(n)}
    score = dict.fromkeys(range(n), 0.0)
    byes = dict.fromkeys(range(n), 0)
    repeats, slowest = 0, 0.0
    for number in range(1, rounds + 1):
        stubs = [
            EntrantStub(id=i, seed=i + 1, score=score[i], met=dict(met[i]), byes=byes[i])
            for i in range(n)
        ]
        field = standings_order(stubs)
        left = rounds - number + 1 if ahead else 1
        cpu = time.process_time()
        tables, _flags = pair_two_sides(field, left, rng_for(seed, "swiss-ahead", number))
        slowest = max(slowest, time.process_time() - cpu)
        for table in tables:
            if table.bye:
                byes[table.entrants[0]] += 1
                score[table.entrants[0]] += 1
                continue
            a, b = table.entrants
            repeats += met[a].get(b, 0)
            met[a][b] = met[b][a] = met[a].get(b, 0) + 1
            score[rng.choice((a, b))] += 1
    return repeats, slowest


def lookahead_two(seeds: int) -> None:
    for n, rounds in LOOKAHEAD_TWO_SIZES:
        alone = [simulate_two(n, rounds, seed, ahead=False) for seed in range(seeds)]
        ahead = [simulate_two(n, rounds, seed, ahead=True) for seed in range(seeds)]
        print(
            f"{n} x {rounds} two a table, {seeds} seeds: repeats "
            f"{sum(r for r, _ in alone)} ({sum(1 for r, _ in alone if r)} events) round by "
            f"round, {sum(r for r, _ in ahead)} ({sum(1 for r, _ in ahead if r)}) planned "
            f"ahead; slowest round {max(c for _, c in alone):.3f} s CPU round by round, "
            f"{max(c for _, c in ahead):.3f} s planned ahead"
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
    if "--lookahead-two" in sys.argv:
        position = sys.argv.index("--lookahead-two")
        lookahead_two(int(sys.argv[position + 1]) if len(sys.argv) > position + 1 else 20)
        raise SystemExit(0)
    if "--lookahead" in sys.argv:
        position = sys.argv.index("--lookahead")
        lookahead(int(sys.argv[position + 1]) if len(sys.argv) > position + 1 else 20)
        raise SystemExit(0)
    with throwaway_database():
        main()

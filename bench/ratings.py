"""A full ratings rebuild against one pass that only reads the same rows.

    .venv/bin/python bench/ratings.py                      # a throwaway SQLite in memory
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/capicu .venv/bin/python bench/ratings.py

Inserts, in a throwaway test database, finished four-player Cutthroat games held by a
table (synthetic rows in bulk: each game, its four sides, its four seats, players drawn
from a club of 2,000), then at 25,000, 50,000 and 100,000 games times:

- the rebuild: ``rebuild_pool("individual")`` from the first game, as ``manage.py
  rebuild_ratings`` runs it (drop the pool's history and ratings, stream the games and
  seats in finish order, rate every game with OpenSkill, write one history row per
  player per game and one rating per player);
- the floor: one pass over the same two streamed queries that only reads the rows;
- one incremental update: the latest game changed and taken in, as after a referee's
  last hand (the work the Celery task does per finished game).

Each time is the best of two runs (six for the update), taken in turns: the machine is
shared with other work.

It prints each time, the ratio rebuild / floor, and how the rebuild grows from 25,000
to 100,000 games (linear: x4). Numbers depend on the machine; compare within a run.
"""

import argparse
import random
import time
from datetime import timedelta

from bootstrap import throwaway_database
from django.db import connection, transaction
from django.utils import timezone

BATCH = 5000


def insert_games(start: int, count: int, players: list[int], rng: random.Random) -> None:
    """``count`` finished four-player games, numbered on from ``start``, in bulk."""
    from scoring.models import Game, Seat, Side
    from scoring.rulesets import get_ruleset

    rules = get_ruleset("cutthroat", players=4).to_dict()
    base = timezone.now() - timedelta(days=3650)
    for first in range(start, start + count, BATCH):
        size = min(BATCH, start + count - first)
        with transaction.atomic():
            games = []
            results = []
            for n in range(first, first + size):
                seated = rng.sample(players, 4)
                totals = {name: rng.randrange(0, 150) for name in "ABCD"}
                winner = rng.choice("ABCD")
                totals[winner] = 150 + rng.randrange(0, 50)
                results.append(seated)
                games.append(
                    Game(
                        ruleset_key="cutthroat",
                        ruleset=rules,
                        status=Game.Status.FINISHED,
                        followed=True,
                        totals=totals,
                        winner=winner,
                        finished_at=base + timedelta(minutes=n),
                    )
                )
            games = Game.objects.bulk_create(games, batch_size=BATCH)
            sides = Side.objects.bulk_create(
                (
                    Side(game=g, position=i, name=name)
                    for g in games
                    for i, name in enumerate("ABCD")
                ),
                batch_size=BATCH,
            )
            Seat.objects.bulk_create(
                (
                    Seat(
                        game=games[k // 4],
                        position=k % 4,
                        name="ABCD"[k % 4],
                        side=side,
                        player_id=results[k // 4][k % 4],
                        display_name="",
                    )
                    for k, side in enumerate(sides)
                ),
                batch_size=BATCH,
            )


def floor_pass() -> int:
    """Read the rows a rebuild reads, in the same two streamed queries, and nothing else."""
    from circuit.services.ratings import RATED, RATED_SEATS, _in_pool, _in_pool_seats
    from scoring.models import Game, Seat

    games = (
        Game.objects.filter(RATED, _in_pool("individual"))
        .order_by("finished_at", "pk")
        .values_list("pk", "finished_at", "totals")
    )
    seats = (
        Seat.objects.filter(RATED_SEATS, _in_pool_seats("individual"))
        .order_by("game__finished_at", "game_id", "position")
        .values_list("game_id", "side__name", "player_id")
    )
    rows = sum(1 for _ in games.iterator(chunk_size=2000))
    return rows + sum(1 for _ in seats.iterator(chunk_size=2000))


def latest_game() -> int:
    from scoring.models import Game

    return Game.objects.order_by("-finished_at", "-pk").values_list("pk", flat=True)[0]


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def analyze() -> None:
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="25000,50000,100000")
    parser.add_argument("--players", type=int, default=2000)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    from circuit.models import RatingChange, RatingsDirty
    from circuit.services.ratings import rebuild_pool, take_in_changes
    from players.models import Player

    rng = random.Random(2026)
    print(f"database: {connection.vendor}; {args.players} players; four a table")
    measured = {}
    with throwaway_database():
        players = [
            p.pk
            for p in Player.objects.bulk_create(
                Player(display_name=f"Player {n}") for n in range(args.players)
            )
        ]
        inserted = 0
        for size in sizes:
            started = time.perf_counter()
            insert_games(inserted, size - inserted, players, rng)
            inserted = size
            analyze()
            insert = time.perf_counter() - started
            # The best of a few runs each, in turns: the machine is shared.
            floors, rebuilds, ones = [], [], []
            for _ in range(2):
                floors.append(timed(floor_pass))
                rebuilds.append(timed(lambda: rebuild_pool("individual")))
                assert RatingChange.objects.count() == 4 * size
                for _ in range(3):
                    RatingsDirty.objects.create(game_id=latest_game())
                    ones.append(timed(take_in_changes))
            floor, rebuild, one = min(floors), min(rebuilds), min(ones)
            measured[size] = rebuild
            print(
                f"{size:7,} games (inserted in {insert:.1f} s): rebuild {rebuild:.2f} s "
                f"({rebuild / size * 1e6:.0f} us a game); floor {floor:.2f} s; "
                f"ratio {rebuild / floor:.1f}; one game taken in: {one * 1000:.1f} ms"
            )
        small, large = sizes[0], sizes[-1]
        growth = measured[large] / measured[small]
        print(
            f"growth from {small:,} to {large:,} games: rebuild x{growth:.2f} "
            f"(linear: x{large / small:.2f})"
        )


if __name__ == "__main__":
    main()

"""Standings recompute time against one bare SQL aggregate over the same hand rows.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/capicu .venv/bin/python bench/standings.py

Builds, in a throwaway database, a tournament of N entrants playing R rounds at tables
of four (1,024 entrants and 8 rounds: 2,048 games; every game gets its hands), then
prints the full recompute time (load rows, rank every stage, replace the snapshot), the
time of one bare SQL aggregate over the same hand rows (the floor), their ratio (target
at most 3), and the number of queries a recompute makes. The same at 256 entrants shows
how the time grows.
"""

import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import (  # noqa: E402
    CaptureQueriesContext,
    setup_databases,
    setup_test_environment,
    teardown_databases,
)

HANDS_PER_GAME = 12


def build(entrants: int, rounds: int):
    """A finished event built with bulk inserts (the services' path is timed elsewhere)."""
    from django.contrib.auth import get_user_model

    from accounts.models import Player
    from scoring.models import Game, Hand, Seat, Side
    from scoring.rulesets import get_ruleset
    from tournaments.models import Entrant, Match, MatchSeat, Round, Stage, Tournament

    rng = random.Random(entrants)
    user = get_user_model().objects.create_user(f"bench-{entrants}")
    tournament = Tournament.objects.create(
        name=f"Bench {entrants}",
        slug=f"bench-{entrants}",
        ruleset_key="cutthroat",
        table_size=4,
        created_by=user,
    )
    players = Player.objects.bulk_create(Player(display_name=f"P{i}") for i in range(entrants))
    people = Entrant.objects.bulk_create(
        Entrant(tournament=tournament, name=f"P{i}", player=p, seed=i + 1)
        for i, p in enumerate(players)
    )
    stage = Stage.objects.create(
        tournament=tournament, order=1, name="RR", format="round_robin", settings={"rounds": rounds}
    )
    rules = get_ruleset("cutthroat", players=4).to_dict()
    hands = 0
    for number in range(1, rounds + 1):
        round_ = Round.objects.create(stage=stage, number=number, status="published")
        order = people[:]
        rng.shuffle(order)
        tables = [order[i : i + 4] for i in range(0, entrants, 4)]
        games = Game.objects.bulk_create(
            Game(
                ruleset_key="cutthroat",
                ruleset=rules,
                status="finished",
                winner="A",
                totals={},
                hand_count=HANDS_PER_GAME,
            )
            for _ in tables
        )
        sides = Side.objects.bulk_create(
            Side(game=g, position=i, name="ABCD"[i]) for g in games for i in range(4)
        )
        Seat.objects.bulk_create(
            Seat(
                game=g,
                position=i,
                name="ABCD"[i],
                side=sides[gi * 4 + i],
                player=tables[gi][i].player,
            )
            for gi, g in enumerate(games)
            for i in range(4)
        )
        hand_rows = []
        for g in games:
            totals = dict.fromkeys("ABCD", 0)
            for n in range(1, HANDS_PER_GAME + 1):
                winner = "A" if n % 3 else rng.choice("BCD")
                award = rng.choice([10, 15, 20, 25, 30])
                totals[winner] += award
                hand_rows.append(
                    Hand(
                        game=g,
                        number=n,
                        ended="domino",
                        domino_by=winner,
                        pips={s: (0 if s == winner else 5) for s in "ABCD"},
                        awards={s: (award if s == winner else 0) for s in "ABCD"},
                        winners=[winner],
                    )
                )
            g.totals = totals
        Game.objects.bulk_update(games, ["totals"])
        Hand.objects.bulk_create(hand_rows, batch_size=2000)
        hands += len(hand_rows)
        matches = Match.objects.bulk_create(
            Match(round=round_, table_number=i + 1, game=g) for i, g in enumerate(games)
        )
        MatchSeat.objects.bulk_create(
            MatchSeat(match=m, round=round_, entrant=e, position=p)
            for m, table in zip(matches, tables, strict=True)
            for p, e in enumerate(table)
        )
    return tournament, hands


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


def median_time(call, runs: int = 3) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    from tournaments.standings_store import rebuild_standings

    setup_test_environment()
    databases = setup_databases(verbosity=0, interactive=False)
    try:
        for entrants in (256, 1024):
            tournament, hands = build(entrants, 8)
            recompute = median_time(lambda t=tournament: rebuild_standings(t.pk))
            floor = median_time(lambda t=tournament: floor_query(t))
            with CaptureQueriesContext(connection) as queries:
                rebuild_standings(tournament.pk)
            print(
                f"{entrants:5} entrants, {entrants // 4 * 8} games, {hands} hands: "
                f"recompute {recompute * 1000:.0f} ms; bare aggregate {floor * 1000:.0f} ms; "
                f"ratio {recompute / floor:.2f} (target <= 3); {len(queries)} queries"
            )
    finally:
        teardown_databases(databases, verbosity=0)


if __name__ == "__main__":
    main()

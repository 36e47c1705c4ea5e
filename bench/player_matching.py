"""Registering a pasted list when many players are already known, against the same list
registered on an empty database.

    .venv/bin/python bench/player_matching.py
    .venv/bin/python bench/player_matching.py --known 1000 10000 50000 --names 500

Builds, in a throwaway database, K known players (two-word names) and times
``register_entrants`` of a pasted list of N names (a third known exactly, a third a
letter off a known one and chosen as that player, a third new) against the floor: the
same N new names registered with no player known. Prints both, their ratio, and how the
time grows with K (matching compares a name only with the names that share a word).
"""

import argparse
import random
import statistics
import time

from bootstrap import throwaway_database
from django.db import connection, transaction

FIRST = ["Ana", "Beto", "Carmen", "Dario", "Elena", "Felix", "Gloria", "Hector", "Isabel",
         "Julio", "Karla", "Luis", "Marta", "Nestor", "Olga", "Pablo", "Rosa"]  # fmt: skip


def surname(rng: random.Random) -> str:
    return "".join(rng.choice("bcdfglmnprstv") + rng.choice("aeiou") for _ in range(4)).title()


def known_players(count: int, rng: random.Random) -> list[str]:
    from players.models import Player
    from players.names import name_key

    names = sorted({f"{rng.choice(FIRST)} {surname(rng)}" for _ in range(count * 2)})[:count]
    Player.objects.bulk_create(Player(display_name=name, name_key=name_key(name)) for name in names)
    return names


def typo(name: str) -> str:
    first, last = name.split(" ", 1)
    return f"{first} {last[:-1]}{'x' if last[-1] != 'x' else 'y'}"


def timed(run, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        with transaction.atomic():
            started = time.perf_counter()
            run()
            times.append(time.perf_counter() - started)
            transaction.set_rollback(True)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--known", type=int, nargs="+", default=[1000, 10000, 40000])
    parser.add_argument("--names", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    from players.matching import candidate_token
    from players.models import Player
    from players.names import choice_key
    from tests.factories import UserFactory
    from tournaments import services
    from tournaments.services.entrants import choice_scope

    with throwaway_database():
        organizer = UserFactory(username="bench")
        tournament = services.create_tournament(
            by=organizer, name="Bench", slug="bench", ruleset_key="cutthroat", table_size=4
        )
        floor_text = "\n".join(f"Otro Jugador{i:05d}" for i in range(args.names))

        def floor():
            services.register_entrants(tournament, by=organizer, text=floor_text)

        floor_s = timed(floor, args.repeats)  # no player known: every name is new
        print(f"database: {connection.vendor}; a list of {args.names} names")
        print(f"{'known':>8} {'floor s':>9} {'register s':>11} {'ratio':>7}")
        previous = None
        for count in args.known:
            rng = random.Random(count)
            Player.objects.all().delete()
            names = known_players(count, rng)
            third = args.names // 3
            exact = rng.sample(names, third)
            close = [n for n in rng.sample(names, third * 2) if n not in exact][:third]
            fresh = [f"Nuevo Jugador{i:05d}" for i in range(args.names - len(exact) - len(close))]
            text = "\n".join(exact + [typo(n) for n in close] + fresh)
            by_typo = dict(zip([typo(n) for n in close], close, strict=True))
            ids = dict(
                Player.objects.filter(display_name__in=close).values_list("display_name", "pk")
            )
            # The organizer picks each close name's candidate with the token it was offered.
            scope = choice_scope(tournament, organizer)
            choices = {
                choice_key(t): candidate_token(choice_key(t), ids[n], scope)
                for t, n in by_typo.items()
            }

            def register(text=text, choices=choices):
                services.register_entrants(tournament, by=organizer, text=text, choices=choices)

            register_s = timed(register, args.repeats)
            growth = (
                f"  x{register_s / previous[1]:.2f} for x{count / previous[0]:.0f} players"
                if previous
                else ""
            )
            ratio = register_s / floor_s
            print(f"{count:>8} {floor_s:>9.3f} {register_s:>11.3f} {ratio:>7.2f}{growth}")
            previous = (count, register_s)


if __name__ == "__main__":
    main()

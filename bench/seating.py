"""Time a Swiss round of about 256 entrants seated by the table-size policy against the
same field at full tables, measured in the same run (no database).

    .venv/bin/python bench/seating.py

For each case a field plays three simulated rounds (random placements, a win 1), then
round four is paired and timed: the baseline is 256 at tables of four (every table
full); the others are fields that do not divide: 255 DCS players (three byes), 254
Cutthroat players at four (tables of three fill the gap), 257 two-box players at five
(tables of six) and 255 two-box players at six (tables of five), each against a field of
about the same count that fills its tables at the same size. Prints the seconds of the
slowest of three pairings of round four and the ratio to that field's.
"""

import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from tournaments.pairing.base import EntrantStub, seating  # noqa: E402
from tournaments.pairing.swiss import Swiss  # noqa: E402

# (label, entrants, the stage's size, allowed sizes, the baseline's label): each field
# that does not divide is timed against a field that does, at the same size.
CASES = [
    ("256 at 4: full tables", 256, 4, (4,), None),
    ("255 DCS at 4: three byes", 255, 4, (4,), "256 at 4: full tables"),
    ("254 Cutthroat at 4", 254, 4, (2, 3, 4), "256 at 4: full tables"),
    ("255 two-box at 5: full tables", 255, 5, (4, 5, 6), None),
    ("257 two-box at 5", 257, 5, (4, 5, 6), "255 two-box at 5: full tables"),
    ("252 two-box at 6: full tables", 252, 6, (4, 5, 6), None),
    ("255 two-box at 6", 255, 6, (4, 5, 6), "252 two-box at 6: full tables"),
]
ROUNDS = 4


def field_after(count, size, allowed, rounds, rng):
    met = {i: {} for i in range(1, count + 1)}
    byes = dict.fromkeys(met, 0)
    score = dict.fromkeys(met, 0.0)
    engine = Swiss()
    settings = {"rounds": ROUNDS, "table_sizes": list(allowed)}
    for number in range(1, rounds + 1):
        stubs = field(met, byes, score)
        result = engine.pair(stubs, round_number=number, table_size=size, settings=settings, seed=1)
        for table in result.tables:
            if table.bye:
                byes[table.entrants[0]] += 1
                score[table.entrants[0]] += 1
                continue
            for a in table.entrants:
                for b in table.entrants:
                    if a != b:
                        met[a][b] = met[a].get(b, 0) + 1
            score[rng.choice(table.entrants)] += 1
    return field(met, byes, score), settings


def field(met, byes, score):
    return [EntrantStub(id=i, seed=i, score=score[i], met=dict(met[i]), byes=byes[i]) for i in met]


def main():
    measured = {}
    print(f"{'case':32} {'tables':>16} {'seconds':>8} {'ratio':>6}")
    for label, count, size, allowed, baseline in CASES:
        stubs, settings = field_after(count, size, allowed, ROUNDS - 1, random.Random(count))
        times = []
        for _ in range(3):
            start = time.perf_counter()
            Swiss().pair(stubs, round_number=ROUNDS, table_size=size, settings=settings, seed=1)
            times.append(time.perf_counter() - start)
        slowest = measured[label] = max(times)
        seat = seating(count, size, allowed)
        shape = ", ".join(f"{seat.sizes.count(s)}x{s}" for s in sorted(set(seat.sizes)))
        if seat.byes:
            shape += f", {seat.byes} byes"
        ratio = f"{slowest / measured[baseline]:6.2f}" if baseline else "  1.00"
        print(f"{label:32} {shape:>16} {slowest:8.3f} {ratio}")


if __name__ == "__main__":
    main()

"""Time to pair one round at growing field sizes, and the table round robin's repeats.

    .venv/bin/python bench/pairing.py

Prints, for 64, 256 and 1,024 entrants in tables of four (a five-round table round robin
and a Swiss round) and for 1,024 two-sided Swiss entrants, the seconds to pair one round
(the median of three runs), the time per entrant against the 64-entrant run (flat or
growing like log n means the n log n target holds), and the repeat meetings the table
round robin reaches for 16 to 64 players over five rounds and in the record cases.
"""

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments.pairing import get_engine  # noqa: E402
from tournaments.pairing.base import EntrantStub  # noqa: E402
from tournaments.pairing.table_round_robin import plan  # noqa: E402


def field(n: int, *, scored: bool = False, history: int = 0) -> list[EntrantStub]:
    entrants = []
    for i in range(n):
        met = {(i + k) % n: 1 for k in range(1, history + 1)}
        entrants.append(
            EntrantStub(id=i, seed=i + 1, score=float(i % 5) if scored else 0.0, met=met)
        )
    return entrants


def timed(call, runs: int = 3) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    cases = [
        ("table round robin, tables of 4", "round_robin", 4, {"rounds": 5}, False),
        ("Swiss, tables of 4", "swiss", 4, {}, True),
        ("Swiss, two a table", "swiss", 2, {}, True),
    ]
    for label, key, size, settings, scored in cases:
        engine = get_engine(key)
        base = None
        for n in (64, 256, 1024):
            entrants = field(n, scored=scored, history=3 if key == "swiss" else 0)
            number = 1 if key == "round_robin" else 2
            seconds = timed(
                lambda e=entrants, eng=engine, s=size, st=settings, r=number: eng.pair(
                    e, round_number=r, table_size=s, settings=st, seed=0
                )
            )
            per = seconds / n
            base = base or per
            print(
                f"{label:32} n={n:5}: {seconds:7.3f} s for a round; "
                f"time per entrant {per / base:5.2f}x the n=64 run"
            )
    print()
    print("table round robin, tables of 4, five rounds: repeat meetings (time)")
    for n in range(16, 65, 4):
        started = time.perf_counter()
        result = plan(n, 5, 4, seed=0)
        print(
            f"  {n:3} players: {result.repeats:3} repeats ({time.perf_counter() - started:.2f} s)"
        )
    print()
    print("records asked for, tables of 4: repeat meetings (time)")
    for n, rounds in RECORDS:
        started = time.perf_counter()
        result = plan(n, rounds, 4, seed=0)
        print(
            f"  {n:3} x {rounds:2}: {result.repeats:3} repeats "
            f"({time.perf_counter() - started:.2f} s)"
        )


# The cases the issue names: 16 x 5 (affine plane), the zero-repeat records 20 x 5,
# 24 x 6 and 32 x 8, the complete designs 28 x 9 and 40 x 13, and the social golfer
# problem's 8-4-10 case.
RECORDS = ((16, 5), (20, 5), (24, 6), (32, 8), (28, 9), (40, 13), (32, 10))


if __name__ == "__main__":
    main()

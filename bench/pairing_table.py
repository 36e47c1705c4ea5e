"""Repeat meetings and time of the table round robin for fields of 8 to 64, 5 to 9 rounds.

    .venv/bin/python bench/pairing_table.py [--write docs/pairing.md]

Prints one row per field size: for each number of rounds, the repeat meetings the
schedule has, the lower bound where zero is impossible, and the seconds it took.
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments.pairing.base import PairingError, table_sizes  # noqa: E402
from tournaments.pairing.table_round_robin import plan  # noqa: E402

ROUNDS = range(5, 10)


def lower_bound(n: int, rounds: int) -> int:
    """Repeats no schedule can avoid: meetings beyond the n - 1 others, halved."""
    sizes = table_sizes(n, 4)
    # Players at short tables meet one fewer that round; spread the short seats evenly.
    short_seats = sum(size for size in sizes if size < 4) * rounds
    meetings = [3 * rounds] * n
    for i in range(short_seats):
        meetings[i % n] -= 1
    return sum(max(0, m - (n - 1)) for m in meetings) // 2


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", help="write the Markdown table into this file")
    parser.add_argument("--sizes", default="8-64")
    args = parser.parse_args()
    low, high = (int(x) for x in args.sizes.split("-"))
    header = "| players | " + " | ".join(f"{r} rounds" for r in ROUNDS) + " |"
    lines = [header, "|---" * (len(ROUNDS) + 1) + "|"]
    for n in range(low, high + 1):
        cells = []
        for rounds in ROUNDS:
            try:
                started = time.perf_counter()
                result = plan(n, rounds, 4, seed=0)
                elapsed = time.perf_counter() - started
            except PairingError:
                cells.append("—")
                continue
            bound = lower_bound(n, rounds)
            mark = "" if result.repeats > bound else " ✓"
            cells.append(f"{result.repeats} (≥{bound}){mark}, {elapsed:.1f} s")
        line = f"| {n} | " + " | ".join(cells) + " |"
        print(line, flush=True)
        lines.append(line)
    if args.write:
        path = ROOT / args.write
        text = path.read_text() if path.exists() else ""
        start, end = "<!-- table:start -->", "<!-- table:end -->"
        table = "\n".join(lines)
        if start in text:
            before, rest = text.split(start, 1)
            after = rest.split(end, 1)[1]
            text = f"{before}{start}\n{table}\n{end}{after}"
        else:
            text += f"\n{start}\n{table}\n{end}\n"
        path.write_text(text)


if __name__ == "__main__":
    main()

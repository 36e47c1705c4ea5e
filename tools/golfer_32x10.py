"""Compute the 32-player, 10-round table schedule that ``designs.GOLFER_32_BASES`` ships.

    .venv/bin/pip install -e ".[tools]"         # OR-Tools: not needed to run capicu
    .venv/bin/python tools/golfer_32x10.py      # about 2 s on one core

The social golfer problem's 8-4-10 case: 32 players, 10 rounds of 8 tables of four, no
two players at one table twice. Searching all 35,960 possible tables per round is out of
reach; this tool searches only schedules with a symmetry. Players are the vectors of
GF(2)^5 (0 … 31, XOR adds them), and every round must be unchanged by the translations
x -> x ^ w for w = 0 … 7. A round is then a union of translate orbits of tables: 708
usable orbits instead of 35,960 tables. One CP-SAT boolean per (round, orbit); every
player sits in exactly one chosen orbit per round; every pair of players lies in at most
one chosen orbit overall. One worker and a fixed seed give the same answer on every run
with the same OR-Tools version (another version may find another, equally valid one).

Prints each round's base tables (one per orbit) in the form ``GOLFER_32_BASES`` holds,
after checking the whole schedule.
"""

import itertools
import sys
import time

from tournaments.pairing.designs import GOLFER_32_BASES, translate_orbits

PLAYERS, ROUNDS, SIZE, SHIFTS = 32, 10, 4, 8


def usable_orbits() -> list[tuple[list[tuple[int, ...]], set[tuple[int, int]]]]:
    """Translate orbits of 4-sets whose tables are pairwise disjoint (so they can share a
    round), with the pairs they seat."""
    seen: set[tuple[int, ...]] = set()
    orbits = []
    for table in itertools.combinations(range(PLAYERS), SIZE):
        if table in seen:
            continue
        images = translate_orbits([table], SHIFTS)
        seen.update(images)
        seated = [p for image in images for p in image]
        if len(seated) != len(set(seated)):
            continue
        pairs = {pair for image in images for pair in itertools.combinations(image, 2)}
        orbits.append((images, pairs))
    return orbits


def solve(seed: int = 0, limit: float = 600.0) -> list[list[list[tuple[int, ...]]]] | None:
    """Per round, the chosen orbits (each a list of tables), or None if none was found."""
    from ortools.sat.python import cp_model

    orbits = usable_orbits()
    model = cp_model.CpModel()
    chosen = {
        (r, k): model.NewBoolVar(f"round{r}_orbit{k}")
        for r in range(ROUNDS)
        for k in range(len(orbits))
    }
    for r in range(ROUNDS):
        for player in range(PLAYERS):
            model.AddExactlyOne(
                chosen[r, k]
                for k, (images, _) in enumerate(orbits)
                if any(player in image for image in images)
            )
    for pair in itertools.combinations(range(PLAYERS), 2):
        model.AddAtMostOne(
            chosen[r, k]
            for r in range(ROUNDS)
            for k, (_, pairs) in enumerate(orbits)
            if pair in pairs
        )
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = seed
    solver.parameters.max_time_in_seconds = limit
    if solver.Solve(model) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    return [
        [images for k, (images, _) in enumerate(orbits) if solver.Value(chosen[r, k])]
        for r in range(ROUNDS)
    ]


def check(rounds: list[list[tuple[int, ...]]]) -> None:
    """Every round seats everyone once at tables of four; no pair meets twice."""
    met: set[tuple[int, int]] = set()
    for tables in rounds:
        assert sorted(p for table in tables for p in table) == list(range(PLAYERS))
        assert all(len(table) == SIZE for table in tables)
        for table in tables:
            for pair in itertools.combinations(sorted(table), 2):
                assert pair not in met, f"players {pair} meet twice"
                met.add(pair)


def main() -> int:
    started = time.perf_counter()
    found = solve()
    elapsed = time.perf_counter() - started
    if found is None:
        print(f"no schedule found in {elapsed:.1f} s", file=sys.stderr)
        return 1
    check([[table for images in orbits for table in images] for orbits in found])
    print(f"# 32 players x 10 rounds, nobody meets twice; found in {elapsed:.1f} s")
    print("GOLFER_32_BASES = (")
    for orbits in found:
        bases = ", ".join(str(images[0]) for images in orbits)
        print(f"    ({bases}{',' if len(orbits) == 1 else ''}),")
    print(")")
    shipped = [translate_orbits(bases) for bases in GOLFER_32_BASES]
    computed = [translate_orbits([images[0] for images in orbits]) for orbits in found]
    same = "the same as" if computed == shipped else "another valid schedule than"
    print(f"# {same} the shipped GOLFER_32_BASES")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

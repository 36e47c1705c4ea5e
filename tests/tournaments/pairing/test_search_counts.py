"""The table round robin's search reads a swap's effect from counts made once a step;
these hold those readings to the direct computation on random schedules."""

import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tournaments.pairing.base import PairingError
from tournaments.pairing.table_round_robin import _Search


def searched(n: int, rounds: int, table_size: int, seed: int) -> tuple[_Search, list]:
    rng = random.Random(seed)
    met = {}
    for _ in range(rng.randrange(4)):  # a few meetings already played
        a, b = rng.sample(range(n), 2)
        met[(min(a, b), max(a, b))] = rng.randrange(1, 3)
    short = {p: rng.randrange(2) for p in range(n)}
    try:
        search = _Search(list(range(n)), rounds, table_size, rng, met, short)
        search.evaluations = 0
    except PairingError:
        assume(False)  # a field the rule set cannot seat: nothing to search
    schedule = []
    for _ in range(rounds):
        tables = search.greedy_round()
        search._apply(tables, +1)
        schedule.append(tables)
    return search, schedule


fields = st.tuples(
    st.integers(5, 19), st.integers(1, 6), st.sampled_from([3, 4, 5]), st.integers(0, 10**6)
)


@settings(max_examples=60, deadline=None)
@given(fields)
def test_the_counted_fairness_of_a_swap_is_the_direct_one(field):
    search, schedule = searched(*field)
    fair = search._fairness(schedule)
    for r, tables in enumerate(schedule):
        for t1, t2 in ((t1, t2) for t1 in range(len(tables)) for t2 in range(len(tables))):
            if t1 == t2 or len(tables[t1]) == len(tables[t2]):
                continue
            for a in tables[t1]:
                for b in tables[t2]:
                    assert fair(r, a, b) == search._fair_with_swap(schedule, r, a, b)


@settings(max_examples=60, deadline=None)
@given(fields)
def test_the_counted_change_in_repeats_of_a_swap_is_the_direct_one(field):
    search, schedule = searched(*field)
    for r, tables in enumerate(schedule):
        lost, met_at = search._round_counts(tables)
        before = search._cost()
        for t1, table in enumerate(tables):
            for t2, other in enumerate(tables):
                if t1 == t2:
                    continue
                for p1, a in enumerate(table):
                    for p2, b in enumerate(other):
                        counted = (
                            lost[a] + search._met_at(met_at, a, t2, other)
                            + lost[b] + search._met_at(met_at, b, t1, table)
                            - 2 * (search.meet[a][b] >= 1)
                        )  # fmt: skip
                        search._swap(tables, t1, p1, t2, p2)
                        after = search._cost()
                        search._swap(tables, t1, p1, t2, p2)  # and back
                        assert counted == after - before, (r, a, b)

"""Swiss at tables of three or four: a whole-round optimisation, repeats first."""

import itertools
import random

import pytest

from tests.tournaments.pairing.fewest_repeats import (
    SearchCapReached,
    fewest_repeats,
    seating_cost,
)
from tournaments.pairing import get_engine
from tournaments.pairing.base import EntrantStub, table_sizes

POINTS = {1: 3.0, 2: 2.0, 3: 1.0, 4: 0.0}  # match points per placement, as an event sets
# Search steps the exact check may take for a round (the grid's hardest takes about 22,000).
CHECK_CAP = 200_000


def round_floor(field, sizes) -> int:
    """Repeats no seating of the round avoids: each player meets at least the smallest
    table's others; those beyond the ones not met yet repeat (halved, each pair once)."""
    ids = {e.id for e in field}
    least = min(sizes) - 1
    need = sum(max(0, least - sum(1 for o in ids - {e.id} if not e.met.get(o))) for e in field)
    return -(-need // 2)


def repeats_of(tables, field) -> int:
    """Repeat meetings the round adds: a pair that met k times before adds k (its
    meeting number k + 1 is the k-th repeat), as the event's count of repeats grows."""
    met = {e.id: e.met for e in field}
    return sum(met[a].get(b, 0) for t in tables for a, b in itertools.combinations(t.entrants, 2))


def fewest_possible(field, sizes) -> int:
    """The fewest repeats any seating of the round has, by trying them all (small fields)."""
    met = {e.id: e.met for e in field}
    best = [None]

    def seat(left, sizes_left, so_far):
        if best[0] is not None and so_far >= best[0]:
            return
        if not left:
            best[0] = so_far
            return
        first, rest = left[0], left[1:]
        for size in set(sizes_left):
            remaining = list(sizes_left)
            remaining.remove(size)
            for others in itertools.combinations(rest, size - 1):
                table = (first, *others)
                cost = sum(met[a].get(b, 0) for a, b in itertools.combinations(table, 2))
                seat([p for p in rest if p not in others], remaining, so_far + cost)

    seat([e.id for e in field], list(sizes), 0)
    return best[0]


def play(n, rounds, table_size, rnd):
    """A Swiss event: each round paired, played (random placements), scored in match points."""
    engine = get_engine("swiss")
    met = {i: {} for i in range(n)}
    score = dict.fromkeys(range(n), 0.0)
    for number in range(1, rounds + 1):
        field = [EntrantStub(id=i, seed=i + 1, score=score[i], met=dict(met[i])) for i in range(n)]
        result = engine.pair(field, round_number=number, table_size=table_size, settings={}, seed=0)
        yield field, result
        for table in result.tables:
            for a, b in itertools.combinations(table.entrants, 2):
                met[a][b] = met[a].get(b, 0) + 1
                met[b][a] = met[b].get(a, 0) + 1
            order = list(table.entrants)
            rnd.shuffle(order)
            for place, entrant in enumerate(order, start=1):
                score[entrant] += POINTS[place]


@pytest.mark.parametrize("n", range(8, 13))
def test_no_round_repeats_more_than_the_fewest_possible(n):
    """Small fields, seven rounds: every round reaches the true optimum, found by trying
    every seating (where repeats are unavoidable, the least there can be)."""
    rnd = random.Random(n)
    for table_size in (4, 3):
        sizes = table_sizes(n, table_size)
        for field, result in play(n, 7, table_size, rnd):
            repeats = repeats_of(result.tables, field)
            if repeats > round_floor(field, sizes):
                assert repeats == fewest_possible(field, sizes)


@pytest.mark.parametrize("table_size", [4, 3])
@pytest.mark.parametrize("n", range(8, 41))
def test_no_round_has_an_avoidable_repeat(n, table_size):
    """Eight to forty, seven rounds at tables of four and of three, random results: every
    round's repeats are the fewest any seating of it can have, as the exact search proves
    (it fails the test if it cannot settle a round within its cap); and every round seats
    everyone at the right tables. Rounds one to seven nest: this holds for three to seven rounds."""
    rnd = random.Random(n)
    sizes = table_sizes(n, table_size)
    for field, result in play(n, 7, table_size, rnd):
        assert sorted(p for t in result.tables for p in t.entrants) == list(range(n))
        assert sorted(len(t.entrants) for t in result.tables) == sorted(sizes)
        repeats = repeats_of(result.tables, field)
        assert repeats == seating_cost([t.entrants for t in result.tables], field)
        assert repeats == fewest_repeats(field, sizes, cap=CHECK_CAP)


def test_the_exact_search_agrees_with_trying_every_seating():
    """The checker against brute force, on rounds where repeats are forced."""
    for n, table_size in ((9, 4), (10, 4), (11, 3), (12, 3)):
        sizes = table_sizes(n, table_size)
        for field, _result in play(n, 7, table_size, random.Random(n + 100)):
            assert fewest_repeats(field, sizes, cap=CHECK_CAP) == fewest_possible(field, sizes)


def test_the_exact_search_fails_rather_than_guess_when_its_cap_runs_out():
    rounds = list(play(22, 7, 4, random.Random(22)))
    field, _result = rounds[-1]
    with pytest.raises(SearchCapReached):
        fewest_repeats(field, table_sizes(22, 4), cap=10)


def test_a_pair_that_met_twice_counts_two_repeats():
    """Twelve at tables of four, round seven: a seating with the fewest repeated pairs may
    still repeat more meetings (a pair meeting a third time); the engine counts meetings."""
    rounds = list(play(12, 7, 4, random.Random(1012)))
    field, result = rounds[-1]
    assert repeats_of(result.tables, field) == fewest_possible(field, table_sizes(12, 4)) == 22


def test_a_late_round_of_thirty_one_repeats_nobody():
    """The round the tabu search left a repeat in: the exact repair finds none is needed."""
    rounds = list(play(31, 7, 4, random.Random(31)))
    field, result = rounds[-1]
    assert repeats_of(result.tables, field) == 0
    assert not [f for f in result.flags if f.code == "rematch"]


def test_sixteen_players_meet_nobody_twice_in_three_rounds():
    for _field, result in play(16, 3, 4, random.Random(3)):
        assert not [f for f in result.flags if f.code == "rematch"]


def test_score_groups_sit_together_when_nobody_has_met():
    # Four score groups of four, shuffled in seed order: each table is one group.
    field = [EntrantStub(id=i, seed=(i * 7) % 16 + 1, score=float(i // 4)) for i in range(16)]
    result = get_engine("swiss").pair(field, round_number=2, table_size=4, settings={}, seed=0)
    for table in result.tables:
        assert len({field[p].score for p in table.entrants}) == 1


def test_the_swiss_score_is_match_points_not_wins():
    # Seconds (2 points) rank above a winner of a single weak table (3 - 0 - 0 ...):
    # the engine groups by the score it is given; the adapter gives it match points.
    field = [EntrantStub(id=i, seed=i + 1, score=s) for i, s in enumerate([6, 6, 6, 6, 2, 2, 2, 2])]
    result = get_engine("swiss").pair(field, round_number=3, table_size=4, settings={}, seed=0)
    assert {frozenset(t.entrants) for t in result.tables} == {
        frozenset({0, 1, 2, 3}),
        frozenset({4, 5, 6, 7}),
    }


def test_short_tables_go_to_those_who_sat_short_least():
    field = [
        EntrantStub(id=i, seed=i + 1, score=0.0, short_tables=1 if i >= 12 else 0)
        for i in range(18)
    ]
    result = get_engine("swiss").pair(field, round_number=2, table_size=4, settings={}, seed=0)
    short = [p for t in result.tables if len(t.entrants) == 3 for p in t.entrants]
    assert len(short) == 6
    assert all(p < 12 for p in short)

"""Swiss that plans ahead: no round leaves the rounds after it a forced repeat meeting."""

import itertools
import random

import pytest

from tournaments.pairing import get_engine
from tournaments.pairing.base import EntrantStub, table_sizes
from tournaments.pairing.lookahead import Completion, after, mask_of
from tournaments.pairing.swiss import (
    _surely_completes,
    pair_tables,
    pair_two_sides,
    standings_order,
)

POINTS = {1: 3.0, 2: 2.0, 3: 1.0, 4: 0.0}  # match points per placement at a table of four


def play(n, rounds, seed, *, seat=None):
    """A Swiss event at tables of four, random placements: each round's field (in
    standings order) and tables. ``seat(field, number)`` seats a round in place of the
    engine (with the stage's ``rounds`` set)."""
    engine = get_engine("swiss")
    rnd = random.Random(f"{n}:{rounds}:{seed}")
    met = {i: {} for i in range(n)}
    score = dict.fromkeys(range(n), 0.0)
    for number in range(1, rounds + 1):
        stubs = [EntrantStub(id=i, seed=i + 1, score=score[i], met=dict(met[i])) for i in range(n)]
        field = standings_order(stubs)
        if seat is None:
            result = engine.pair(
                stubs, round_number=number, table_size=4, settings={"rounds": rounds}, seed=seed
            )
            tables = [t.entrants for t in result.tables]
        else:
            tables = seat(field, number)
        yield field, tables
        for table in tables:
            for a, b in itertools.combinations(table, 2):
                met[a][b] = met[b][a] = met[a].get(b, 0) + 1
            order = list(table)
            rnd.shuffle(order)
            for place, entrant in enumerate(order, start=1):
                score[entrant] += POINTS[place]


def repeats(field, tables) -> int:
    met = {e.id: e.met for e in field}
    return sum(met[a].get(b, 0) for t in tables for a, b in itertools.combinations(t, 2))


def allowed_for(field) -> list[int]:
    """Who may still meet whom, by index in ``field``."""
    index = {e.id: i for i, e in enumerate(field)}
    n = len(field)
    return [
        ((1 << n) - 1) & ~(1 << i) & ~mask_of(index[o] for o, c in e.met.items() if c)
        for i, e in enumerate(field)
    ]


def indices(field, tables) -> list[tuple[int, ...]]:
    index = {e.id: i for i, e in enumerate(field)}
    return [tuple(index[p] for p in table) for table in tables]


def is_repeat_free(n, rounds, sizes, allowed=None) -> bool:
    allowed = list(allowed or [((1 << n) - 1) & ~(1 << p) for p in range(n)])
    for tables in rounds:
        assert sorted(len(t) for t in tables) == sorted(sizes)
        assert sorted(p for t in tables for p in t) == list(range(n))
        for table in tables:
            for a, b in itertools.combinations(table, 2):
                if not allowed[a] >> b & 1:
                    return False
        allowed = after(allowed, tables)
    return True


@pytest.mark.parametrize(
    ("n", "rounds", "seeds"), [(16, 4, 100), (20, 4, 60), (24, 5, 25), (32, 5, 20)]
)
def test_no_meeting_repeats_in_an_event_that_can_have_none(n, rounds, seeds):
    """Repeat-free schedules of these lengths exist (16 x 5 from the affine plane, the
    rest by search); whatever the results, every round keeps one open, so the whole event
    has no repeat meeting. Round by round, 16 x 4 repeats in nearly every event."""
    for seed in range(seeds):
        for field, tables in play(n, rounds, seed):
            assert sorted(p for t in tables for p in t) == list(range(n))
            assert repeats(field, tables) == 0, f"seed {seed}"


def test_round_by_round_sixteen_repeat_in_the_fourth_round():
    """What the lookahead prevents: each round seated on its own standings alone."""
    events = [
        list(play(16, 4, seed, seat=lambda field, number, s=seed: alone(field, number, s)))
        for seed in range(8)
    ]
    assert sum(1 for event in events if repeats(*event[-1])) >= 4


def alone(field, number, seed):
    """The round the standings ask for, seated without looking ahead."""
    return [t.entrants for t in pair_tables(field, 4, seed, number)[0]]


@pytest.mark.parametrize(("n", "rounds"), [(16, 4), (24, 5)])
def test_a_round_that_leaves_a_way_through_is_seated_as_before(n, rounds):
    """Where the rounds left can follow the round the standings ask for, that round is
    seated unchanged; only where none can does another take its place."""
    changed = 0
    for seed in range(8):
        for number, (field, tables) in enumerate(play(n, rounds, seed), start=1):
            wanted = alone(field, number, seed)
            same = {frozenset(t) for t in tables} == {frozenset(t) for t in wanted}
            search = Completion(
                allowed_for(field), table_sizes(n, 4), rng=random.Random(0), work=10**6
            )
            follows = search.rounds(rounds - number, played=[indices(field, wanted)])
            assert search.settled
            assert same == (follows is not None or number == 1)
            changed += not same
    assert changed  # the rounds that gave way


def test_the_search_finds_the_five_rounds_of_sixteen_and_proves_a_sixth_impossible():
    n, sizes = 16, table_sizes(16, 4)
    search = Completion([((1 << n) - 1) & ~(1 << p) for p in range(n)], sizes, rng=None, work=10**6)
    five = search.rounds(5)
    assert five is not None and is_repeat_free(n, five, sizes)
    assert search.rounds(6) is None and search.settled  # 6 x 3 others > 15


def test_the_search_proves_eight_cannot_play_two_repeat_free_rounds_at_tables_of_four():
    sizes = table_sizes(8, 4)
    search = Completion([0xFF & ~(1 << p) for p in range(8)], sizes, rng=None, work=10**6)
    assert search.rounds(1) is not None
    assert search.rounds(2) is None and search.settled


def test_the_search_follows_the_rounds_played_and_mixed_table_sizes():
    n, sizes = 22, table_sizes(22, 4)  # four tables of four, two of three
    allowed = [((1 << n) - 1) & ~(1 << p) for p in range(n)]
    search = Completion(allowed, sizes, rng=random.Random(1), work=10**6)
    first = search.rounds(1)
    rest = search.rounds(4, played=first)
    assert rest is not None and is_repeat_free(n, first + rest, sizes)


def test_the_first_round_is_seated_from_the_top_with_the_tables_it_prefers():
    """Nobody has met: the preferred tables (here 0-1-2-3, 4-5-6-7, …) are the first round."""
    n = 16
    allowed = [((1 << n) - 1) & ~(1 << p) for p in range(n)]
    prefer = [mask_of(range(p - p % 4, p - p % 4 + 4)) & ~(1 << p) for p in range(n)]
    search = Completion(allowed, table_sizes(n, 4), rng=None, work=10**6)
    schedule = search.rounds(3, prefer=prefer)
    assert schedule[0] == [(0, 1, 2, 3), (4, 5, 6, 7), (8, 9, 10, 11), (12, 13, 14, 15)]
    assert is_repeat_free(n, schedule, table_sizes(n, 4))


def test_the_search_stops_at_its_work_budget_and_says_so():
    n = 64
    search = Completion(
        [((1 << n) - 1) & ~(1 << p) for p in range(n)], table_sizes(n, 4), rng=None, work=50
    )
    assert search.rounds(5) is None
    assert not search.settled


def every_round(allowed, sizes):
    """Every repeat-free seating at tables of one size, by trying them all (small fields)."""
    n, size = len(allowed), sizes[0]
    found = []

    def seat(left, tables):
        if not left:
            found.append(list(tables))
            return
        first, rest = left[0], left[1:]
        for others in itertools.combinations(rest, size - 1):
            table = (first, *others)
            if all(allowed[a] >> b & 1 for a, b in itertools.combinations(table, 2)):
                seat([p for p in rest if p not in others], [*tables, table])

    seat(list(range(n)), [])
    return found


def test_the_branch_and_bound_finds_the_cheapest_round_the_rounds_left_can_follow():
    """Sixteen after two rounds, two still to play: of every repeat-free third round that
    a repeat-free fourth can follow, the cheapest (squared place gaps), as trying them all
    finds; nothing where the cheapest costs no less than ``below``."""
    n, sizes = 16, table_sizes(16, 4)
    fresh = [((1 << n) - 1) & ~(1 << p) for p in range(n)]
    for seed in range(4):
        played = Completion(fresh, sizes, rng=random.Random(seed), work=10**6).rounds(2)
        allowed = fresh
        for tables in played:
            allowed = after(allowed, tables)

        def price(table):
            return sum((a - b) ** 2 for a, b in itertools.combinations(table, 2))

        check = Completion(allowed, sizes, rng=None, work=10**6)
        followed = [r for r in every_round(allowed, sizes) if check.rounds(1, played=[r])]
        cheapest = min(sum(price(t) for t in r) for r in followed)
        search = Completion(allowed, sizes, rng=random.Random(0), work=10**6)
        found = search.cheapest(price, 1, below=float("inf"))
        assert search.settled
        assert sum(price(t) for t in found) == cheapest
        assert check.rounds(1, played=[found]) is not None
        assert search.cheapest(price, 1, below=cheapest) is None


# Two a table (Cutthroat at two, Partners): the same lookahead over perfect matchings.


def play_two(n, rounds, seed, *, alone=False):
    """A Swiss event two a table, a random winner at each table (one match point, one for
    a bye): each round's field (in standings order) and tables as id tuples, the bye a
    one-tuple. ``alone`` seats each round on its own standings, without looking ahead."""
    engine = get_engine("swiss")
    rnd = random.Random(f"two:{n}:{rounds}:{seed}")
    met = {i: {} for i in range(n)}
    score = dict.fromkeys(range(n), 0.0)
    byes = dict.fromkeys(range(n), 0)
    for number in range(1, rounds + 1):
        stubs = [
            EntrantStub(id=i, seed=i + 1, score=score[i], met=dict(met[i]), byes=byes[i])
            for i in range(n)
        ]
        field = standings_order(stubs)
        if alone:
            seated = pair_two_sides(field)[0]
        else:
            result = engine.pair(
                stubs, round_number=number, table_size=2, settings={"rounds": rounds}, seed=seed
            )
            seated = result.tables
        tables = [t.entrants for t in seated]
        yield field, tables
        for table in tables:
            if len(table) == 1:
                byes[table[0]] += 1
                score[table[0]] += 1
                continue
            a, b = table
            met[a][b] = met[b][a] = met[a].get(b, 0) + 1
            score[rnd.choice(table)] += 1


@pytest.mark.parametrize(
    ("n", "rounds", "seeds"),
    [
        (6, 5, 40),
        (7, 7, 40),
        (8, 7, 40),
        (9, 9, 30),
        (10, 9, 30),
        (10, 8, 30),
        (12, 11, 20),
        (12, 10, 20),
        (16, 15, 10),
        (16, 14, 10),
    ],
)
def test_two_a_table_repeats_no_meeting_while_a_round_robin_fits(n, rounds, seeds):
    """A round robin fits these lengths (n - 1 rounds, n with a bye for an odd field), so
    a repeat-free schedule exists from the start; whatever the results, no meeting repeats
    and nobody sits out twice."""
    for seed in range(seeds):
        sat_out = []
        for field, tables in play_two(n, rounds, seed):
            assert sorted(p for t in tables for p in t) == list(range(n))
            assert repeats(field, tables) == 0, f"seed {seed}"
            sat_out += [t[0] for t in tables if len(t) == 1]
        assert len(sat_out) == len(set(sat_out)) == (rounds if n % 2 else 0)


def test_two_a_table_round_by_round_repeats_where_the_lookahead_does_not():
    """What the lookahead prevents: near the round robin's length, the standings' rounds
    alone force a repeat in some events."""
    events = [list(play_two(n, n - 1, seed, alone=True)) for n in (6, 8, 10) for seed in range(20)]
    assert sum(1 for event in events if sum(repeats(*r) for r in event)) >= 5


@pytest.mark.parametrize(("n", "rounds"), [(8, 7), (9, 9), (10, 9)])
def test_two_a_table_round_that_leaves_a_way_through_is_seated_as_before(n, rounds):
    """The standings' matching stands whenever perfect matchings of the pairs not yet met
    (a phantom seat for the bye) can follow it for the rounds left; only where none can
    does another round take its place."""
    changed = 0
    for seed in range(10):
        for number, (field, tables) in enumerate(play_two(n, rounds, seed), start=1):
            wanted = [t.entrants for t in pair_two_sides(field)[0]]
            same = {frozenset(t) for t in tables} == {frozenset(t) for t in wanted}
            allowed = allowed_for(field)
            seats = [indices(field, wanted)]
            if n % 2:
                full = (1 << (n + 1)) - 1
                fewest = min(e.byes for e in field)
                lucky = mask_of(i for i, e in enumerate(field) if e.byes == fewest)
                allowed = [
                    (a | 1 << n) & full if lucky >> i & 1 else a for i, a in enumerate(allowed)
                ]
                allowed.append(lucky)
                seats = [[(*t, n) if len(t) == 1 else t for t in seats[0]]]
            search = Completion(
                allowed, [2] * (len(allowed) // 2), rng=random.Random(0), work=10**6
            )
            follows = search.rounds(rounds - number, played=seats)
            assert search.settled
            assert same == (follows is not None or number == 1), f"seed {seed} round {number}"
            changed += not same
    assert changed  # the rounds that gave way


def test_two_a_table_wide_field_skips_the_search_where_a_way_through_is_sure():
    """Every player may still meet at least half the seats after all but the last of the
    rounds left: perfect matchings surely follow (Dirac), so no search is asked."""
    n = 40
    full = (1 << n) - 1
    fresh = [full & ~(1 << p) for p in range(n)]
    assert _surely_completes(fresh, n // 2)
    assert not _surely_completes(fresh, n // 2 + 1)
    one_met = [mask & ~(1 << (p ^ 1)) for p, mask in enumerate(fresh)]
    assert not _surely_completes(one_met, n // 2)

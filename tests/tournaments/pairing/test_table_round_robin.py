"""The table round robin: valid schedules, exact designs, few repeats, fair short tables."""

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.pairing.table_round_robin import (
    affine_plane,
    count_repeats,
    plan,
    replan,
    schedule,
)


def valid(rounds, n, table_size):
    for tables in rounds:
        seated = [p for table in tables for p in table]
        assert sorted(seated) == list(range(n))
        assert all(len(table) in (table_size, table_size - 1) for table in tables)


def test_sixteen_players_five_rounds_meet_everyone_exactly_once():
    rounds = schedule(16, 5, 4, seed=0)
    valid(rounds, 16, 4)
    pairs = Counter(
        frozenset(p) for tables in rounds for t in tables for p in itertools.combinations(t, 2)
    )
    assert len(pairs) == 120
    assert set(pairs.values()) == {1}


@pytest.mark.parametrize("q", [2, 3, 4, 5, 7])
def test_affine_planes_are_resolvable_designs(q):
    classes = affine_plane(q)
    pairs = Counter(
        frozenset(p) for cls in classes for line in cls for p in itertools.combinations(line, 2)
    )
    assert len(pairs) == q * q * (q * q - 1) // 2
    assert set(pairs.values()) == {1}


@pytest.mark.parametrize(
    ("n", "rounds", "reached"), [(20, 5, 0), (24, 6, 0), (18, 5, 0), (64, 5, 0)]
)
def test_record_cases_reach_zero_repeats(n, rounds, reached):
    result = plan(n, rounds, 4, seed=0)
    valid(result.rounds, n, 4)
    assert result.repeats == reached == count_repeats(result.rounds)


@pytest.mark.parametrize(("n", "rounds"), [(28, 9), (40, 13)])
def test_complete_designs_meet_everyone_exactly_once(n, rounds):
    result = schedule(n, rounds, 4, seed=3)
    valid(result, n, 4)
    pairs = Counter(
        frozenset(p) for tables in result for t in tables for p in itertools.combinations(t, 2)
    )
    assert len(pairs) == n * (n - 1) // 2
    assert set(pairs.values()) == {1}


@pytest.mark.parametrize("rounds", [5, 8, 9, 10])
def test_thirty_two_players_meet_nobody_twice_for_up_to_ten_rounds(rounds):
    """10 rounds is the social golfer problem's 8-4-10 case."""
    result = plan(32, rounds, 4, seed=1)
    valid(result.rounds, 32, 4)
    assert result.repeats == 0 == count_repeats(result.rounds)


def test_a_round_beyond_a_design_is_searched_around_it():
    result = plan(32, 11, 4, seed=0)
    valid(result.rounds, 32, 4)
    assert count_repeats(result.rounds[:10]) == 0  # the shipped ten, relabelled
    # Ten rounds leave each player one partner not yet met, so every table of the
    # eleventh round seats at least four pairs again: 32 repeats is the least possible.
    assert result.repeats == 32 == count_repeats(result.rounds)


def test_same_seed_same_schedule_other_seed_other_schedule():
    assert schedule(18, 4, 4, seed=5) == schedule(18, 4, 4, seed=5)
    assert schedule(18, 4, 4, seed=5) != schedule(18, 4, 4, seed=6)


def test_nobody_sits_short_twice_before_everyone_has_once():
    rounds = schedule(18, 5, 4, seed=1)  # two tables of three a round: six short seats
    short = Counter()
    for number, tables in enumerate(rounds, start=1):
        for table in tables:
            if len(table) == 3:
                short.update(table)
        assert max(short.values()) - min(short.get(p, 0) for p in range(18)) <= 1, number


def test_seat_positions_are_balanced():
    rounds = schedule(16, 4, 4, seed=2)
    spread = []
    for player in range(16):
        positions = Counter(t.index(player) for tables in rounds for t in tables if player in t)
        assert max(positions.values()) <= 2
        spread.append(len(positions))
    assert sum(spread) / len(spread) >= 3.5  # most players sit in all four seats


def test_replan_avoids_meetings_already_played():
    first = schedule(16, 1, 4, seed=0)[0]
    met = {(min(a, b), max(a, b)): 1 for t in first for a, b in itertools.combinations(t, 2)}
    rest = replan(list(range(16)), 3, table_size=4, seed=0, met=met)
    assert rest.repeats == 0
    for tables in rest.rounds:
        for t in tables:
            for a, b in itertools.combinations(t, 2):
                assert (min(a, b), max(a, b)) not in met


def test_replan_after_a_withdrawal_seats_only_those_left():
    players = [p for p in range(17) if p != 9]
    result = replan(players, 3, table_size=4, seed=0)
    for tables in result.rounds:
        assert sorted(p for t in tables for p in t) == players


@settings(max_examples=15, deadline=None)
@given(st.integers(6, 40), st.integers(1, 4), st.sampled_from([3, 4]), st.integers(0, 5))
def test_any_field_gets_a_valid_deterministic_schedule(n, rounds, size, seed):
    if n in (5,) and size == 4:
        return
    try:
        result = schedule(n, rounds, size, seed)
    except ValueError:
        assume_impossible = size == 4 and n in (5,)
        assert assume_impossible
        return
    valid(result, n, size)
    assert schedule(n, rounds, size, seed) == result


def test_the_quick_search_is_the_full_search_stopped_early(monkeypatch):
    from tournaments.pairing import table_round_robin

    # Smaller budgets than the real ones, the same search: 13 at tables of four over five
    # rounds has no zero-repeat schedule the search finds quickly, so the caps decide.
    monkeypatch.setattr(table_round_robin, "QUICK_EVALUATION_BUDGET", 3_000)
    monkeypatch.setattr(table_round_robin, "EVALUATION_BUDGET", 60_000)
    quick = plan(13, 5, 4, seed=2, quick=True)
    full = plan(13, 5, 4, seed=2)
    assert quick.quick and not full.quick
    assert 3_000 < quick.work < 10_000  # stopped by its cap, within a move or two over
    assert full.work > quick.work
    assert full.repeats < quick.repeats
    valid(quick.rounds, 13, 4)


def test_a_quick_search_that_ends_on_its_own_is_the_full_one():
    # 20 at tables of four, five rounds: the search reaches zero repeats well within the
    # quick budget, so the quick plan is the full plan, table for table.
    quick = plan(20, 5, 4, seed=0, quick=True)
    full = plan(20, 5, 4, seed=0)
    assert not quick.quick
    assert (quick.rounds, quick.repeats) == (full.rounds, full.repeats)
    designed = plan(16, 5, 4, quick=True)  # the affine plane: nothing searched
    assert (designed.quick, designed.work, designed.repeats) == (False, 0, 0)


def test_the_kept_packing_of_pg33_is_the_one_its_search_finds():
    from tournaments.pairing.designs import pg33_packing_40, pg33_packing_search

    assert pg33_packing_40() == pg33_packing_search()

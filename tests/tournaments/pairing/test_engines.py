"""The pairing engines: registry, round robins, Swiss, brackets and pools."""

import itertools
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.models import Stage
from tournaments.pairing import ENGINES, get_engine
from tournaments.pairing.base import EntrantStub, PairingError, table_sizes
from tournaments.pairing.elimination import build_bracket, settle, standard_order
from tournaments.pairing.pools import advancers, split
from tournaments.pairing.round_robin import berger_rounds, compute_schedule


def stubs(n, **kwargs):
    return [EntrantStub(id=100 + i, seed=i + 1, **kwargs) for i in range(n)]


def test_every_stage_format_has_an_engine():
    assert set(Stage.Format.values) == set(ENGINES)


def test_unknown_format_is_refused():
    with pytest.raises(PairingError):
        get_engine("ladder")


@pytest.mark.parametrize(
    ("count", "size", "expected"),
    [
        (18, 4, [4, 4, 4, 3, 3]),
        (16, 4, [4] * 4),
        (7, 4, [4, 3]),
        (10, 3, [3, 3, 2, 2]),
        (9, 2, [2] * 4),
    ],
)
def test_table_sizes_fill_the_gap_with_short_tables(count, size, expected):
    assert table_sizes(count, size) == expected


def test_five_cannot_sit_at_tables_of_four():
    with pytest.raises(PairingError):
        table_sizes(5, 4)


# --- round robin, two sides ---------------------------------------------------------------


@given(st.integers(2, 21))
def test_berger_every_pair_meets_exactly_once(n):
    rounds = berger_rounds(n)
    pairs = [frozenset(p) for r in rounds for p in r if None not in p]
    assert len(pairs) == len(set(pairs)) == n * (n - 1) // 2
    for r in rounds:
        seated = [x for p in r for x in p if x is not None]
        assert sorted(seated) == list(range(n))


@given(st.integers(2, 20))
def test_berger_first_seat_alternates_fairly(n):
    firsts = dict.fromkeys(range(n), 0)
    rounds = berger_rounds(n)
    for r in rounds:
        for a, b in r:
            if a is not None and b is not None:
                firsts[a] += 1
    played = n - 1  # games each entrant plays (an odd field's bye is not a game)
    assert all(abs(count - played / 2) <= 1 for count in firsts.values())


def test_odd_round_robin_gives_everyone_one_bye():
    engine = get_engine("round_robin")
    field = stubs(7)
    byes = []
    for number in range(1, 8):
        result = engine.pair(field, round_number=number, table_size=2, settings={}, seed=0)
        byes += [t.entrants[0] for t in result.tables if t.bye]
    assert sorted(byes) == [e.id for e in field]


def test_a_withdrawn_entrants_opponent_gets_a_bye():
    field = stubs(4)
    field[1] = EntrantStub(id=101, seed=2, withdrawn=True)
    result = get_engine("round_robin").pair(
        field, round_number=1, table_size=2, settings={}, seed=0
    )
    assert any(t.bye for t in result.tables)
    assert all(101 not in t.entrants for t in result.tables)
    assert result.flags[0].code == "bye"


def test_round_robin_is_deterministic():
    engine = get_engine("round_robin")
    one = engine.pair(stubs(18), round_number=2, table_size=4, settings={"rounds": 5}, seed=7)
    two = engine.pair(stubs(18), round_number=2, table_size=4, settings={"rounds": 5}, seed=7)
    assert one == two


def test_sixteen_at_tables_of_four_meet_everyone_once_through_the_engine():
    engine = get_engine("round_robin")
    field = stubs(16)
    met = {e.id: {} for e in field}
    for number in range(1, 6):
        current = [EntrantStub(id=e.id, seed=e.seed, met=dict(met[e.id])) for e in field]
        result = engine.pair(
            current, round_number=number, table_size=4, settings={"rounds": 5}, seed=3
        )
        for table in result.tables:
            for a, b in itertools.permutations(table.entrants, 2):
                met[a][b] = met[a].get(b, 0) + 1
    assert all(sorted(counts.values()) == [1] * 15 for counts in met.values())


# --- Swiss ----------------------------------------------------------------------------------


def test_swiss_pairs_equal_scores_and_avoids_rematches():
    field = [EntrantStub(id=i, seed=i + 1, score=float(3 - i // 2)) for i in range(8)]
    field[0] = EntrantStub(id=0, seed=1, score=3.0, met={1: 1})
    field[1] = EntrantStub(id=1, seed=2, score=3.0, met={0: 1})
    result = get_engine("swiss").pair(field, round_number=2, table_size=2, settings={}, seed=0)
    pairs = {frozenset(t.entrants) for t in result.tables}
    assert frozenset({0, 1}) not in pairs
    assert len(pairs) == 4


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 14), st.randoms(use_true_random=False))
def test_swiss_never_rematches_when_avoidable(n, rnd):
    ids = list(range(n))
    met = {i: {} for i in ids}
    # Some earlier meetings, as a previous round would leave them.
    shuffled = ids[:]
    rnd.shuffle(shuffled)
    for a, b in zip(shuffled[::2], shuffled[1::2], strict=False):
        met[a][b] = met[b][a] = 1
    field = [EntrantStub(id=i, seed=i + 1, score=float(rnd.randint(0, 2)), met=met[i]) for i in ids]
    result = get_engine("swiss").pair(field, round_number=2, table_size=2, settings={}, seed=0)
    seated = sorted(x for t in result.tables for x in t.entrants)
    assert seated == ids
    rematches = sum(
        1 for t in result.tables if len(t.entrants) == 2 and met[t.entrants[0]].get(t.entrants[1])
    )
    if n >= 4:
        assert rematches == 0


def test_swiss_bye_goes_to_the_lowest_without_one():
    field = [EntrantStub(id=i, seed=i + 1, score=float(5 - i)) for i in range(5)]
    field[4] = EntrantStub(id=4, seed=5, score=1.0, byes=1)
    result = get_engine("swiss").pair(field, round_number=2, table_size=2, settings={}, seed=0)
    (bye,) = [t for t in result.tables if t.bye]
    assert bye.entrants == (3,)


def test_swiss_at_tables_of_four_fills_from_the_top():
    field = [EntrantStub(id=i, seed=i + 1, score=float(20 - i)) for i in range(18)]
    result = get_engine("swiss").pair(field, round_number=1, table_size=4, settings={}, seed=0)
    assert sorted(len(t.entrants) for t in result.tables) == [3, 3, 4, 4, 4]
    assert set(result.tables[0].entrants) == {0, 1, 2, 3}


def test_swiss_pairs_a_thousand_quickly():
    field = [EntrantStub(id=i, seed=i + 1, score=float(i % 7)) for i in range(1024)]
    started = time.perf_counter()
    result = get_engine("swiss").pair(field, round_number=3, table_size=2, settings={}, seed=0)
    elapsed = time.perf_counter() - started
    assert len(result.tables) == 512
    print(f"1,024 Swiss entrants paired in {elapsed:.2f} s")


# --- elimination -------------------------------------------------------------------------------


def test_standard_seeding_order_for_sixteen():
    assert standard_order(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]


def test_first_round_of_sixteen_pairs_one_with_sixteen():
    bracket = build_bracket(16)
    assert [slot.seeds for slot in bracket if slot.round == 1][:2] == [(1, 16), (8, 9)]
    assert bracket[-1].key == "R4-1"


def test_byes_go_to_the_top_seeds():
    bracket = build_bracket(13)
    ready, settled = settle(bracket, list(range(1, 14)), {})
    through = sorted(v[0] for k, v in settled.items())
    assert through == [1, 2, 3]
    assert len(ready) == 5


def test_a_bracket_of_sixteen_plays_to_a_champion():
    engine = get_engine("single_elimination")
    field = stubs(16)
    results = {}
    for number in range(1, 5):
        result = engine.pair(
            field, round_number=number, table_size=2, settings={}, seed=0, results=results
        )
        assert len(result.tables) == 16 // 2**number
        for table in result.tables:
            results[table.slot] = sorted(table.entrants)  # lower id (better seed) wins
    bracket = build_bracket(16)
    _, settled = settle(bracket, [e.id for e in field], results)
    assert settled[bracket[-1].key][0] == 100


def test_four_a_table_bracket_sends_the_top_two_through():
    engine = get_engine("single_elimination")
    field = stubs(16)
    first = engine.pair(field, round_number=1, table_size=4, settings={"advance": 2}, seed=0)
    assert len(first.tables) == 4
    assert all(len(t.entrants) == 4 for t in first.tables)
    seeds_at_first = sorted(first.tables[0].entrants)
    assert 100 in seeds_at_first  # seed 1
    results = {t.slot: list(t.entrants) for t in first.tables}
    second = engine.pair(
        field, round_number=2, table_size=4, settings={"advance": 2}, seed=0, results=results
    )
    assert len(second.tables) == 2
    assert all(len(t.entrants) == 4 for t in second.tables)


def test_bad_advance_is_refused():
    with pytest.raises(PairingError):
        get_engine("single_elimination").validate_settings({"advance": 3}, table_size=4)


# --- pools -------------------------------------------------------------------------------------


def test_pools_snake_seed():
    groups = split(stubs(8), 2)
    assert [[e.seed for e in g] for g in groups] == [[1, 4, 5, 8], [2, 3, 6, 7]]


def test_pools_pair_each_group_apart():
    result = get_engine("pools").pair(
        stubs(8), round_number=1, table_size=2, settings={"pools": 2}, seed=0
    )
    assert {t.pool for t in result.tables} == {1, 2}
    assert len(result.tables) == 4


def test_advancers_take_top_k_per_pool():
    assert advancers([[1, 2, 3], [4, 5, 6]], 2) == [1, 4, 2, 5]


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(["round_robin", "swiss", "pools"]),
    st.integers(6, 30),
    st.sampled_from([2, 3, 4]),
    st.integers(0, 3),
)
def test_every_engine_seats_everyone_once_a_round(key, n, size, seed):
    engine = get_engine(key)
    options = {"pools": 2} if key == "pools" else {"rounds": 3}
    asked = {"round_number": 1, "table_size": size, "settings": options, "seed": seed}

    def pair():
        # The schedules the round reads, found by the quick search (what a round pressed
        # before the planning task has run gets): the full search's budget would only
        # make this property slower, not different.
        schedules = {}
        for need in engine.schedule_needs(stubs(n), **asked):
            schedules.update(compute_schedule(need, quick=True))
        return engine.pair(stubs(n), schedules=schedules, **asked)

    try:
        engine.validate_settings(options, table_size=size)
        result = pair()
    except PairingError:
        return  # e.g. five at tables of four: refused in plain words
    seated = [x for t in result.tables for x in t.entrants]
    assert len(seated) == len(set(seated))
    assert set(seated) == {e.id for e in stubs(n)}
    assert all(len(t.entrants) in (size, size - 1) or t.bye for t in result.tables)
    assert pair() == result  # deterministic, schedules included


# --- double elimination ------------------------------------------------------------------------


def play_double(n, *, reset, upset_final):
    from tournaments.pairing.elimination import build_double_bracket

    engine = get_engine("double_elimination")
    field = stubs(n)
    options = {"grand_final_reset": reset}
    results: dict = {}
    total = engine.total_rounds(n, table_size=2, settings=options)
    met: dict = {}
    for number in range(1, total + 1):
        result = engine.pair(
            field, round_number=number, table_size=2, settings=options, seed=0, results=results
        )
        for table in result.tables:
            a, b = sorted(table.entrants)
            pair = frozenset((a, b))
            met[pair] = met.get(pair, 0) + 1
            winner, loser = (b, a) if (upset_final and table.slot == "GF") else (a, b)
            results[table.slot] = [winner, loser]
    bracket = build_double_bracket(n, grand_final_reset=reset)
    _, settled = settle(bracket, [e.id for e in field], results)
    return settled, results, met


def test_double_elimination_plays_to_a_champion_without_a_reset():
    settled, results, _ = play_double(16, reset=True, upset_final=False)
    assert "GF2" not in results  # the winners' champion won the final
    assert settled["GF2"][0] == 100


def test_double_elimination_grand_final_reset_is_played_after_an_upset():
    settled, results, _ = play_double(16, reset=True, upset_final=True)
    assert "GF2" in results
    assert settled["GF2"][0] in results["GF2"]


def test_double_elimination_without_reset_ends_at_the_final():
    settled, results, _ = play_double(8, reset=False, upset_final=True)
    assert "GF2" not in settled
    assert settled["GF"][0] == results["GF"][0]


def test_double_elimination_everyone_loses_twice_but_the_champion():
    _, results, _ = play_double(16, reset=True, upset_final=False)
    losses: dict = {}
    for ranking in results.values():
        for loser in ranking[1:]:
            losses[loser] = losses.get(loser, 0) + 1
    assert all(count == 2 for entrant, count in losses.items())
    assert 100 not in losses
    assert len(losses) == 15


def test_double_elimination_avoids_immediate_rematches_in_the_losers_bracket():
    _, results, _ = play_double(16, reset=True, upset_final=False)
    # Crossed drop-ins: a winners' round-two loser meets a survivor from the other half,
    # never the entrant it beat in round one.
    first_round = [set(results[key]) for key in results if key.startswith("W1-")]
    drop_ins = [set(results[key]) for key in results if key.startswith("L2-")]
    assert drop_ins
    assert not any(pair == earlier for pair in drop_ins for earlier in first_round)


def test_double_elimination_with_byes():
    settled, _, _ = play_double(13, reset=False, upset_final=False)
    assert settled["GF"][0] == 100


# --- properties of brackets ------------------------------------------------------------------


def play_bracket(key, n, size, options, rnd):
    """Play every round with random results; returns the tables of each round and results."""
    engine = get_engine(key)
    field = stubs(n)
    total = engine.total_rounds(n, table_size=size, settings=options)
    results: dict = {}
    rounds = []
    for number in range(1, total + 1):
        result = engine.pair(
            field, round_number=number, table_size=size, settings=options, seed=0, results=results
        )
        again = engine.pair(
            field, round_number=number, table_size=size, settings=options, seed=0, results=results
        )
        assert again == result  # deterministic for the same input
        rounds.append(result)
        for table in result.tables:
            if table.bye:
                continue  # a bye is settled by the bracket itself
            order = list(table.entrants)
            rnd.shuffle(order)
            results[table.slot] = order
    return field, rounds, results


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 40),
    st.sampled_from([(2, 1), (3, 1), (4, 1), (4, 2)]),
    st.randoms(use_true_random=False),
)
def test_single_elimination_seats_everyone_at_most_once_and_crowns_one(n, size_advance, rnd):
    size, advance = size_advance
    options = {"advance": advance}
    try:
        field, rounds, results = play_bracket("single_elimination", n, size, options, rnd)
    except PairingError:
        return  # a field too small for its tables, refused in plain words
    for result in rounds:
        seated = [x for t in result.tables for x in t.entrants]
        assert len(seated) == len(set(seated))  # nobody at two tables in a round
        assert all(t.bye or 1 < len(t.entrants) <= size for t in result.tables)
    bracket = build_bracket(n, table_size=size, advance=advance)
    _, settled = settle(bracket, [e.id for e in field], results, advance=advance)
    final = max(bracket, key=lambda slot: slot.round)
    assert settled.get(final.key), "the bracket did not finish"
    first = [x for t in rounds[0].tables for x in t.entrants]
    assert sorted(first) == sorted(e.id for e in field)  # at a table or at a bye, once
    if size == 2:
        # Two a table, byes go to the top seeds: each is seeded above everyone who plays.
        byes = [e.seed for e in field for t in rounds[0].tables if t.bye and e.id in t.entrants]
        played = [
            e.seed for e in field for t in rounds[0].tables if not t.bye and e.id in t.entrants
        ]
        assert not byes or max(byes) < min(played)


@settings(max_examples=30, deadline=None)
@given(st.integers(4, 32), st.booleans(), st.randoms(use_true_random=False))
def test_double_elimination_knocks_out_everyone_but_one_after_two_losses(n, reset, rnd):
    options = {"grand_final_reset": reset}
    field, rounds, results = play_bracket("double_elimination", n, 2, options, rnd)
    losses = dict.fromkeys((e.id for e in field), 0)
    for result in rounds:
        seated = [x for t in result.tables for x in t.entrants]
        assert len(seated) == len(set(seated))
        for table in result.tables:
            if table.bye:
                continue
            assert len(table.entrants) == 2
            losses[results[table.slot][1]] += 1
    unbeaten_twice = [entrant for entrant, count in losses.items() if count < 2]
    assert len(unbeaten_twice) >= 1
    # Everyone but the champion (and, without a reset, the beaten finalist) is out twice.
    assert len(unbeaten_twice) <= 2


def test_a_pools_flag_names_its_table_by_the_rounds_numbering():
    from domain.say import say
    from tournaments.pairing.base import Flag
    from tournaments.pairing.pools import _renumbered

    flag = Flag("rematch", say("Table {table}: again ({count} pairs).", table=2, count=1), (1, 2))
    moved = _renumbered(flag, 3)
    assert moved.message == "Table 5: again (1 pairs)."
    assert moved.entrants == (1, 2)
    assert _renumbered(flag, 0) is flag

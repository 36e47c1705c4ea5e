"""The table-size policy (RULES.md, "Fields that don't divide"), pure: every count from
two to forty under every rule set's allowed sizes is seated with the fewest tables off
the stage's size, or refused saying which counts would work."""

import itertools

import pytest

from scoring.rulesets import PRESETS, allowed_table_sizes
from tournaments.pairing.base import EntrantStub, PairingError, seating
from tournaments.pairing.pools import Pools
from tournaments.pairing.round_robin import RoundRobin, compute_schedule
from tournaments.pairing.swiss import Swiss

# (rule set, the stage's size in entrants a table, the sizes it allows in entrants)
CASES = [
    ("cutthroat", 2, (2,)),  # head to head stays head to head: a bye
    ("cutthroat", 3, (2, 3, 4)),
    ("cutthroat", 4, (2, 3, 4)),
    ("two_box", 4, (4, 5, 6)),
    ("two_box", 5, (4, 5, 6)),
    ("two_box", 6, (4, 5, 6)),
    ("dcs", 4, (4,)),
    ("partners", 2, (2,)),  # two teams a table
]


def test_each_rule_set_declares_its_table_sizes():
    assert allowed_table_sizes("cutthroat") == (2, 3, 4)
    assert allowed_table_sizes("two_box") == (4, 5, 6)
    assert allowed_table_sizes("two_box_cutthroat") == (4, 5, 6)
    assert allowed_table_sizes("dcs") == (4,)
    for key in ("partners", "doscientos", "federation", "mexican"):
        assert allowed_table_sizes(key) == (4,)  # four players: two teams of two
    assert set(PRESETS) >= {"cutthroat", "dcs", "partners", "two_box"}
    assert allowed_table_sizes("nonsense") == ()


def mixes(count, sizes):
    """Every multiset of ``sizes`` adding up to ``count`` (brute force, for checking)."""
    found = []
    most = count // min(sizes)
    for counts in itertools.product(*(range(most + 1) for _ in sizes)):
        if sum(c * s for c, s in zip(counts, sizes, strict=True)) == count:
            found.append([s for c, s in zip(counts, sizes, strict=True) for _ in range(c)])
    return found


@pytest.mark.parametrize(("key", "size", "allowed"), CASES)
def test_every_count_is_seated_with_fewest_tables_off_size_or_refused(key, size, allowed):
    for count in range(2, 41):
        if len(allowed) == 1:
            result = seating(count, size, allowed) if count >= size else None
            if result is None:
                with pytest.raises(PairingError, match="cannot fill a table"):
                    seating(count, size, allowed)
                continue
            assert result.sizes == (size,) * (count // size)
            assert result.byes == count % size < size
            continue
        options = mixes(count, allowed)
        if not options:
            with pytest.raises(PairingError) as caught:
                seating(count, size, allowed)
            message = str(caught.value)
            assert "cannot be seated" in message and "would" in message
            continue
        result = seating(count, size, allowed)
        assert result.byes == 0
        assert sum(result.sizes) == count and set(result.sizes) <= set(allowed)
        # The nearest sizes that can seat the field, and the fewest tables off size there.
        for distance in sorted({abs(s - size) for s in allowed}):
            near = [s for s in allowed if abs(s - size) <= distance]
            tier = mixes(count, near)
            if tier:
                break
        assert set(result.sizes) <= set(near)
        fewest = min(sum(1 for s in mix if s != size) for mix in tier)
        assert sum(1 for s in result.sizes if s != size) == fewest, (count, result)


def test_the_examples_of_the_rules():
    assert seating(11, 5, (4, 5, 6)).sizes == (5, 6)
    assert seating(10, 4, (2, 3, 4)).sizes == (4, 3, 3)
    assert seating(13, 6, (4, 5, 6)).sizes == (5, 4, 4)
    assert seating(15, 4, (4,)) == seating(15, 4, [4])
    assert seating(15, 4, (4,)).byes == 3
    with pytest.raises(PairingError, match="6 or 8 entrants would"):
        seating(7, 5, (4, 5, 6))


def stubs(count):
    return [EntrantStub(id=i, seed=i) for i in range(1, count + 1)]


def check_round(result, count, size, allowed):
    seated = [e for t in result.tables for e in t.entrants]
    assert sorted(seated) == list(range(1, count + 1))
    played = [len(t.entrants) for t in result.tables if not t.bye]
    byes = [t for t in result.tables if t.bye]
    expected = seating(count, size, allowed)
    assert sorted(played) == sorted(expected.sizes)
    assert len(byes) == expected.byes and all(len(t.entrants) == 1 for t in byes)


@pytest.mark.parametrize(("key", "size", "allowed"), [c for c in CASES if c[1] > 2])
def test_swiss_seats_every_count_by_the_policy(key, size, allowed):
    settings = {"rounds": 3, "table_sizes": list(allowed)}
    for count in range(size, 41):
        try:
            seating(count, size, allowed)
        except PairingError:
            with pytest.raises(PairingError):
                Swiss().pair(
                    stubs(count), round_number=1, table_size=size, settings=settings, seed=1
                )
            continue
        result = Swiss().pair(
            stubs(count), round_number=1, table_size=size, settings=settings, seed=1
        )
        check_round(result, count, size, allowed)


def quick_pair(engine, field, size, settings, number=1, seed=1):
    """A round as the services pair it: the schedules searched first (the quick budget)."""
    schedules = {}
    for need in engine.schedule_needs(
        field, round_number=number, table_size=size, settings=settings, seed=seed
    ):
        schedules.update(compute_schedule(need, quick=True))
    return engine.pair(
        field,
        round_number=number,
        table_size=size,
        settings=settings,
        seed=seed,
        schedules=schedules,
    )


@pytest.mark.parametrize(("key", "size", "allowed"), [c for c in CASES if c[1] > 2])
def test_round_robins_and_pools_seat_counts_by_the_policy(key, size, allowed):
    settings = {"rounds": 2, "table_sizes": list(allowed)}
    for count in (*range(size, 16), 23, 29, 40):
        try:
            seating(count, size, allowed)
        except PairingError:
            with pytest.raises(PairingError):
                quick_pair(RoundRobin(), stubs(count), size, settings)
            continue
        check_round(quick_pair(RoundRobin(), stubs(count), size, settings), count, size, allowed)
    pools = quick_pair(Pools(), stubs(26), size, {**settings, "pools": 2})
    for pool in (1, 2):
        tables = [t for t in pools.tables if t.pool == pool]
        assert len([e for t in tables for e in t.entrants]) == 13
        expected = seating(13, size, allowed)
        assert sorted(len(t.entrants) for t in tables if not t.bye) == sorted(expected.sizes)


def test_byes_rotate_in_swiss_and_round_robins():
    """Fifteen at one size of four, five rounds: everyone sits out exactly once."""
    import random

    for engine in (Swiss(), RoundRobin()):
        met = {i: {} for i in range(1, 16)}
        byes = dict.fromkeys(met, 0)
        score = dict.fromkeys(met, 0.0)
        rng = random.Random(7)
        for number in range(1, 6):
            field = [
                EntrantStub(id=i, seed=i, score=score[i], met=dict(met[i]), byes=byes[i])
                for i in met
            ]
            result = quick_pair(
                engine, field, 4, {"rounds": 5, "table_sizes": [4]}, number=number, seed=3
            )
            for table in result.tables:
                if table.bye:
                    (alone,) = table.entrants
                    assert byes[alone] == 0, (engine.key, number)  # nobody twice
                    byes[alone] += 1
                    continue
                for a in table.entrants:
                    for b in table.entrants:
                        if a != b:
                            met[a][b] = met[a].get(b, 0) + 1
                score[rng.choice(table.entrants)] += 1
        assert set(byes.values()) == {1}

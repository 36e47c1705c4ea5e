"""Forming ladder tables, pure: similar ratings together, no repeat of the last game's
opponents where it can be helped, the last to arrive wait on."""

from circuit.ladder_tables import Waiting, form_tables, repeats


def waiting(n: int, **last) -> list[Waiting]:
    """Players 1 to n, player 1 the best rated and the first to arrive."""
    return [
        Waiting(p, float(100 - p), float(p), frozenset(last.get(f"p{p}", ())))
        for p in range(1, n + 1)
    ]


def test_similar_ratings_sit_together():
    formed = form_tables(waiting(8), 4)
    assert formed.tables == [[1, 2, 3, 4], [5, 6, 7, 8]] and not formed.flags


def test_the_last_to_arrive_wait_when_a_table_cannot_be_filled():
    formed = form_tables(waiting(6), 4)
    assert formed.tables == [[1, 2, 3, 4]]
    assert form_tables(waiting(3), 4).tables == []


def test_last_game_opponents_are_split_up_where_possible():
    last = {"p1": (2,), "p2": (1,)}
    formed = form_tables(waiting(8, **last), 4)
    assert all(not ({1, 2} <= set(table)) for table in formed.tables)
    assert sorted(p for t in formed.tables for p in t) == list(range(1, 9))
    assert not formed.flags


def test_a_repeat_that_cannot_be_helped_is_flagged():
    last = {"p1": (2, 3, 4), "p2": (1, 3, 4), "p3": (1, 2, 4), "p4": (1, 2, 3)}
    formed = form_tables(waiting(4, **last), 4)
    assert formed.tables == [[1, 2, 3, 4]] and formed.flags


def test_partners_tables_put_the_strongest_with_the_weakest():
    formed = form_tables(waiting(4), 4, partners=True)
    assert formed.tables == [[1, 2, 4, 3]]  # A+C = 1 and 4, B+D = 2 and 3


def test_repeats_counts_pairs_from_either_side():
    table = waiting(3, p1=(2,))
    assert repeats(table) == 1

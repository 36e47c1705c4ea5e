"""Series standings, pure: event placings from stages, points, best N, the tie order; and
the standings kept after two players are merged."""

import pytest

from circuit.series_standings import Result, StageLine, event_placings, rank_series

POINTS = {"1": 10, "2": 6, "3": 4, "4": 2}


def test_the_last_stage_places_its_players_above_those_left_out():
    round_robin = [StageLine(1, 1), StageLine(2, 2), StageLine(3, 3), StageLine(4, 4)]
    final = [StageLine(2, 1), StageLine(1, 2)]
    assert event_placings([round_robin, final]) == {2: 1, 1: 2, 3: 3, 4: 4}


def test_players_tied_in_a_stage_share_the_placing():
    lines = [StageLine(1, 1), StageLine(2, 2), StageLine(3, 2), StageLine(4, 4)]
    assert event_placings([lines]) == {1: 1, 2: 2, 3: 2, 4: 4}


def test_points_sum_over_events_and_best_n_drops_the_weakest():
    results = [Result(1, 7, 1), Result(2, 7, 4), Result(3, 7, 2), Result(1, 8, 2)]
    (line, other) = rank_series(results, points=POINTS, best_of=2)
    assert line.player_id == 7 and line.points == 16  # 10 + 6, the 2 left out
    assert [r[3] for r in line.results] == [True, False, True]
    assert other.points == 6 and other.rank == 2


def test_a_placing_off_the_table_scores_nothing():
    (line,) = rank_series([Result(1, 3, 9)], points=POINTS, best_of=None)
    assert line.points == 0 and line.best == 9


def test_ties_go_to_wins_then_best_placing_then_fewer_events():
    placings = {
        4: [1, 3],  # 14 points, a win, in two events
        2: [1, 3, 5],  # 14 points, a win, in three events
        1: [2, 2],  # 12 points, best placing 2
        6: [2, 2],  # the same as player 1 on everything: they share the rank
        5: [3, 3, 3],  # 12 points, best placing 3
        8: [1],  # 10 points with a win
        9: [2, 3],  # 10 points without one
    }
    results = [
        Result(event, player, place)
        for player, places in placings.items()
        for event, place in enumerate(places, start=1)
    ]
    lines = rank_series(results, points=POINTS, best_of=None)
    order = [(line.player_id, line.rank, line.tied) for line in lines]
    assert order == [
        (4, 1, False), (2, 2, False), (1, 3, True), (6, 3, True), (5, 5, False),
        (8, 6, False), (9, 7, False),
    ]  # fmt: skip


@pytest.mark.django_db
def test_a_merge_leaves_one_line_holding_every_event_of_the_person(committed):
    """The player merged away leaves no nameless line; the kept one has both events."""
    from circuit.services.series import create_next_event, create_series, read_standings
    from players.identity import merge_players
    from tests.circuit.test_series import run_event
    from tests.factories import PlayerFactory, UserFactory

    organizer = UserFactory(username="organizer")
    series = create_series(
        by=organizer, name="Friday", ruleset_key="cutthroat", table_size=4,
        stage_settings={"rounds": 1}, series_points=POINTS,
    )  # fmt: skip
    first, second = (create_next_event(series, by=organizer) for _ in range(2))
    ana, beto, carmen, dario, twin = (PlayerFactory() for _ in range(5))
    run_event(first, organizer, [ana, beto, carmen, dario], committed, seed=1)
    run_event(second, organizer, [twin, beto, carmen, dario], committed, seed=2)
    assert len(read_standings(series)["lines"]) == 5

    with committed():
        merge_players(ana, twin, by=organizer)
    lines = read_standings(series)["lines"]
    assert len(lines) == 4 and all(line["name"] for line in lines)
    [line] = [line for line in lines if line["player_id"] == ana.pk]
    assert [r["event"] for r in line["results"]] == [1, 2]

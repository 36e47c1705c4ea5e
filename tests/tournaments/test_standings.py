"""The pure standings: every metric, head to head, byes, withdrawals and the reasons."""

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.read.standings import (
    METRICS,
    NO_SCORE,
    RAW_TOTALS,
    ROUND_WINNERS,
    STAGE_AVERAGE,
    TARGET_SHARE,
    ByeRow,
    EntrantInfo,
    EntrantResult,
    GameRow,
    StandingsSettings,
    compute_standings,
    target_scale,
)


def two(game_id, a, b, ta, tb, round_number=1):
    """A two-sided game: entrant a scored ta, b scored tb."""
    return GameRow(
        game_id,
        round_number,
        (
            EntrantResult(a, 0, ta, 1 if ta >= tb else 2, ta > tb, hands_won=3, dominoes=1),
            EntrantResult(
                b, 1, tb, 1 if tb >= ta else 2, tb > ta, hands_won=2, dominoes=0, penalty_points=10
            ),
        ),
    )


def infos(*ids):
    return [EntrantInfo(i, seed=i) for i in ids]


def by_id(rows):
    return {row.entrant_id: row for row in rows}


def test_metrics_on_a_partners_game():
    rows = by_id(compute_standings(infos(1, 2), [two(1, 1, 2, 250, 180)], StandingsSettings()))
    one, two_ = rows[1].metrics, rows[2].metrics
    assert (one["match_points"], one["wins"], one["points_for"]) == (1, 1, 250)
    assert (one["points_against"], one["point_differential"]) == (180, 70)
    assert (one["hands_won"], one["dominoes"], two_["penalties"]) == (3, 1, 10)
    assert two_["average_points"] == 180
    assert rows[1].rank == 1
    assert rows[1].reason == "ahead on match points 1 to 0"


def test_a_cutthroat_table_of_four_checked_by_hand():
    game = GameRow(
        1,
        1,
        (
            EntrantResult(1, 0, 262, 1, True),
            EntrantResult(2, 1, 180, 2, False),
            EntrantResult(3, 2, 95, 3, False),
            EntrantResult(4, 3, 40, 4, False),
        ),
    )
    rows = by_id(compute_standings(infos(1, 2, 3, 4), [game], StandingsSettings()))
    # Points against: the mean of the three opponents' totals.
    assert rows[1].metrics["points_against"] == pytest.approx((180 + 95 + 40) / 3, abs=0.01)
    assert rows[4].metrics["points_against"] == pytest.approx((262 + 180 + 95) / 3, abs=0.01)
    assert [rows[i].rank for i in (1, 2, 3, 4)] == [1, 2, 3, 4]
    assert rows[2].reason.startswith("tied on match points, ahead on point differential")


def test_placement_points_table_per_size():
    game = GameRow(1, 1, tuple(EntrantResult(i, i, 100 - i, i, i == 1) for i in (1, 2, 3, 4)))
    settings = StandingsSettings(placement_points={4: {1: 3, 2: 2, 3: 1}})
    rows = by_id(compute_standings(infos(1, 2, 3, 4), [game], settings))
    assert [rows[i].metrics["match_points"] for i in (1, 2, 3, 4)] == [3, 2, 1, 0]


def test_head_to_head_settles_a_two_way_tie():
    games = [two(1, 1, 2, 100, 150), two(2, 1, 3, 200, 100), two(3, 3, 4, 100, 200)]
    settings = StandingsSettings(order=("match_points", "head_to_head", "seed"))
    rows = compute_standings(infos(1, 2, 3, 4), games, settings)
    # 1, 2 and 4 have a win each; among them only 2 beat 1, and 4 met neither.
    assert [r.entrant_id for r in rows[:3]] == [2, 1, 4]


def test_head_to_head_splits_a_three_way_tie_then_applies_again():
    games = [two(1, 1, 2, 100, 150), two(2, 1, 3, 200, 100), two(3, 2, 4, 100, 200)]
    settings = StandingsSettings(order=("match_points", "head_to_head", "seed"))
    rows = compute_standings(infos(1, 2, 3, 4), games, settings)
    # 1, 2 and 4 have a win each. Among them 2 beat 1 and 4 beat 2: 2 and 4 lead 1, and
    # between the two of them, 4 beat 2.
    assert [r.entrant_id for r in rows[:3]] == [4, 2, 1]
    assert rows[0].reason == "tied on match points, ahead on head to head 1 to 0"


def test_head_to_head_in_a_three_way_cycle_falls_to_the_next_metric():
    games = [two(1, 1, 2, 200, 100), two(2, 2, 3, 200, 100), two(3, 3, 1, 200, 100)]
    settings = StandingsSettings(order=("match_points", "head_to_head", "seed"))
    rows = compute_standings(infos(1, 2, 3), games, settings)
    assert [r.entrant_id for r in rows] == [1, 2, 3]  # all 1 win, h2h 1 each: seed decides
    assert rows[0].reason.endswith("ahead on seed 1 to 2")


def test_head_to_head_applies_again_within_a_remaining_tie():
    # Four tied on one win; A and B beat the other two once each... a partial split.
    games = [
        two(1, 1, 3, 200, 100),
        two(2, 2, 4, 200, 100),
        two(3, 3, 2, 200, 100),
        two(4, 4, 1, 200, 100),
    ]
    settings = StandingsSettings(order=("match_points", "head_to_head", "seed"))
    rows = compute_standings(infos(1, 2, 3, 4), games, settings)
    assert len(rows) == 4
    assert all(r.metrics["match_points"] == 1 for r in rows)


def test_identical_records_are_ordered_by_seed_whatever_the_input_order():
    games = [two(1, 1, 2, 100, 100), two(2, 3, 4, 100, 100)]
    entrants = infos(4, 3, 2, 1)
    first = compute_standings(entrants, games, StandingsSettings())
    shuffled = list(reversed(games))
    second = compute_standings(list(reversed(entrants)), shuffled, StandingsSettings())
    assert first == second
    assert [r.entrant_id for r in first][:1] == [1]


def test_ties_share_a_rank_without_seed():
    games = [two(1, 1, 2, 100, 100)]
    settings = StandingsSettings(order=("match_points", "points_for"))
    rows = compute_standings(infos(1, 2), games, settings)
    assert [r.rank for r in rows] == [1, 1]
    assert all(r.tied for r in rows)
    assert rows[0].reason == "level on every tiebreaker"


# Round 1: winners scored 200 and 151 (mean 175.5); round 2: one winner, 120. Every seat
# of the stage: 200 + 100 + 151 + 20 + 120 + 119 over six, 118.33.
BYE_GAMES = [two(1, 1, 2, 200, 100), two(2, 4, 5, 151, 20), two(3, 1, 4, 120, 119, 2)]


@pytest.mark.parametrize(
    ("scores", "points_for", "match_points", "games"),
    [
        (ROUND_WINNERS, 175.5 + 120, 2, 2),  # the default: each round's winners' mean
        (STAGE_AVERAGE, 2 * 118.33, 2, 2),
        (NO_SCORE, 0, 0, 0),
    ],
)
def test_a_bye_scores_what_the_stage_chooses(scores, points_for, match_points, games):
    byes = [ByeRow(3, 1), ByeRow(3, 2)]
    settings = StandingsSettings(bye_scores=scores)
    rows = by_id(compute_standings(infos(1, 2, 3, 4, 5), BYE_GAMES, settings, byes=byes))
    assert rows[3].metrics["points_for"] == pytest.approx(points_for, abs=1e-9)
    assert rows[3].metrics["match_points"] == match_points
    assert rows[3].games_played == games and rows[3].metrics["points_against"] == 0
    # Its own settings: the same bye, worth what the stage says.
    worth = by_id(
        compute_standings(
            infos(1, 2, 3, 4, 5),
            BYE_GAMES,
            StandingsSettings(bye_scores=scores, bye_match_points=0.5),
            byes=byes,
        )
    )
    assert worth[3].metrics["match_points"] == (0 if scores == NO_SCORE else 1)


def test_a_bye_in_a_round_without_a_winner_yet_has_no_points_for():
    live = GameRow(9, 3, two(9, 1, 2, 50, 20, 3).entrants, finished=False)
    rows = by_id(
        compute_standings(
            infos(1, 2, 3), [*BYE_GAMES[:1], live], StandingsSettings(), byes=[ByeRow(3, 3)]
        )
    )
    assert rows[3].metrics["points_for"] == 0 and rows[3].metrics["match_points"] == 1


def test_a_bye_scores_on_the_stages_points_basis():
    """Cutthroat at four (250) with a table of three (200): a winner's 180 at the table of
    three counts 225 as a share of the target, 180 raw."""
    scale = target_scale({2: 150, 3: 200, 4: 250}, 250)
    three = GameRow(
        1,
        1,
        (
            EntrantResult(1, 0, 180, 1, True),
            EntrantResult(2, 1, 90, 2, False),
            EntrantResult(5, 2, 30, 3, False),
        ),
    )
    four = GameRow(
        2,
        1,
        tuple(
            EntrantResult(entrant, n, total, n + 1, n == 0)
            for n, (entrant, total) in enumerate(((4, 250), (6, 100), (8, 50), (9, 0)))
        ),
    )
    games = [three, four]
    for basis, expected in ((TARGET_SHARE, (225 + 250) / 2), (RAW_TOTALS, (180 + 250) / 2)):
        settings = StandingsSettings(points_basis=basis, scale=scale)
        rows = by_id(compute_standings(infos(*range(1, 10)), games, settings, byes=[ByeRow(7, 1)]))
        assert rows[7].metrics["points_for"] == expected
    stage = StandingsSettings(bye_scores=STAGE_AVERAGE, points_basis=TARGET_SHARE, scale=scale)
    rows = by_id(compute_standings(infos(*range(1, 10)), games, stage, byes=[ByeRow(7, 1)]))
    # (180 + 90 + 30) x 250/200 + 400, over seven seats.
    assert rows[7].metrics["points_for"] == round((300 * 1.25 + 400) / 7, 2) == 110.71


def test_the_averages_a_bye_takes_are_rounded_to_hundredths():
    games = [two(1, 1, 2, 100, 0), two(2, 4, 5, 101, 0), two(3, 6, 7, 101, 0)]
    rows = by_id(
        compute_standings(infos(*range(1, 9)), games, StandingsSettings(), byes=[ByeRow(8, 1)])
    )
    assert rows[8].metrics["points_for"] == 100.67  # 302 / 3


def test_withdrawn_entrants_keep_their_results_and_are_marked():
    rows = by_id(
        compute_standings(
            [EntrantInfo(1, 1, withdrawn=True), EntrantInfo(2, 2)],
            [two(1, 1, 2, 200, 100)],
            StandingsSettings(),
        )
    )
    assert rows[1].withdrawn
    assert rows[1].metrics["wins"] == 1


def test_live_games_count_only_when_asked():
    live = GameRow(1, 1, two(1, 1, 2, 50, 20).entrants, finished=False)
    assert by_id(compute_standings(infos(1, 2), [live], StandingsSettings()))[1].games_played == 0
    counted = compute_standings(infos(1, 2), [live], StandingsSettings(include_live=True))
    assert by_id(counted)[1].games_played == 1


def test_buchholz_sums_opponents_match_points():
    games = [two(1, 1, 2, 200, 100), two(2, 2, 3, 200, 100)]
    rows = by_id(compute_standings(infos(1, 2, 3), games, StandingsSettings()))
    assert rows[1].metrics["buchholz"] == 1  # its opponent 2 has one win
    assert rows[3].metrics["buchholz"] == 1


def test_unknown_tiebreaker_is_refused():
    with pytest.raises(ValueError, match="luck"):
        compute_standings(infos(1), [], StandingsSettings(order=("luck",)))


def test_every_metric_has_a_label_and_direction():
    for metric in METRICS.values():
        assert metric.label
        assert isinstance(metric.higher_is_better, bool)
        assert metric.explain


@given(st.integers(2, 12), st.integers(0, 30), st.randoms(use_true_random=False))
def test_ranks_are_ordered_ties_share_and_input_order_does_not_matter(n, count, rng):
    games = []
    for game_id in range(count):
        a, b = rng.sample(range(1, n + 1), 2)
        games.append(two(game_id, a, b, rng.randint(0, 250), rng.randint(0, 250)))
    entrants = infos(*range(1, n + 1))
    rows = compute_standings(entrants, games, StandingsSettings())
    ranks = [r.rank for r in rows]
    assert ranks == sorted(ranks)
    shuffled = games[:]
    random.Random(1).shuffle(shuffled)
    assert compute_standings(list(reversed(entrants)), shuffled, StandingsSettings()) == rows


def test_a_reason_shows_a_metric_value_as_the_standings_table_does():
    from tournaments.read.standings import StandingRow, explain, metric_text, reason_text

    order = ["point_differential"]
    above = StandingRow(1, False, 1, False, 3, {"point_differential": 227.5})
    below = StandingRow(2, False, 2, False, 3, {"point_differential": 12.25})
    reason = explain([above], order, below)[0].reason
    assert reason == "ahead on point differential 227.5 to 12.25"
    assert metric_text(227.5) in reason
    stored = {"metric": "point_differential", "one": "227.50", "two": "3", "tied": []}
    assert reason_text(stored, str) == "ahead on point differential 227.5 to 3"


def table(game_id, totals: dict, round_number=1):
    """A Cutthroat table: each entrant's total; equal totals share a placement."""
    ordered = sorted(totals.values(), reverse=True)
    best = ordered[0]
    return GameRow(
        game_id,
        round_number,
        tuple(
            EntrantResult(entrant, seat, total, ordered.index(total) + 1, total == best)
            for seat, (entrant, total) in enumerate(totals.items())
        ),
    )


def reason_agrees(above, below) -> None:
    """``above``'s reason says why it sits above ``below``, truly and in the right sense."""
    from tournaments.read.standings import NOT_PLAYED, PLAYED, WITHDRAWN

    def part(row):
        if row.withdrawn:
            return WITHDRAWN
        return PLAYED if row.games_played else NOT_PLAYED

    data = above.reason_data
    assert part(above) <= part(below)
    if below.rank == above.rank:
        assert data == {}
        return
    assert data, (above, below)
    if "apart" in data:
        assert part(above) < part(below)
        return
    assert part(above) == part(below)
    metric = METRICS[data["metric"]]
    one, two = float(data["one"]), float(data["two"])
    assert (one > two) if metric.higher_is_better else (one < two), above.reason
    if metric.among is None:
        assert (one, two) == (
            float(above.metrics[metric.key]),
            float(below.metrics[metric.key]),
        ), above.reason
    for key in data["tied"]:
        if METRICS[key].among is None:
            assert above.metrics[key] == below.metrics[key], above.reason


ORDERS = st.permutations(["match_points", "head_to_head", "points_for", "seed"])


@given(
    st.integers(3, 14),
    st.integers(0, 24),
    ORDERS,
    st.sets(st.integers(1, 14), max_size=3),
    st.randoms(use_true_random=False),
)
def test_every_reason_agrees_with_the_order_and_the_tiebreakers_sense(
    n, count, order, withdrawn, rng
):
    games = []
    for game_id in range(count):
        seated = rng.sample(range(1, n + 1), rng.choice([2, 3, 4][: n - 1]))
        games.append(table(game_id, {e: rng.choice([0, 50, 100]) for e in seated}))
    entrants = [
        EntrantInfo(i, seed=rng.randint(1, n), withdrawn=i in withdrawn) for i in range(1, n + 1)
    ]
    rows = compute_standings(entrants, games, StandingsSettings(order=tuple(order)))
    for above, below in itertools.pairwise(rows):
        reason_agrees(above, below)


def test_a_head_to_head_split_explains_itself_when_the_upper_part_is_ranked_again():
    # 1, 2 and 3 are level on a win each; head to head among the three puts 1 and 2 (a
    # win each over 3) above 3, then again between 1 and 2 (who never met) it is 0 to 0,
    # and seed orders them. The line of 2 says head to head put it above 3, although
    # 3's seed is better.
    games = [
        two(1, 1, 3, 200, 100),
        two(2, 2, 3, 200, 100),
        two(3, 3, 4, 200, 100),
        two(4, 5, 1, 200, 100),
        two(5, 5, 2, 200, 100),
    ]
    entrants = [
        EntrantInfo(1, 8),
        EntrantInfo(2, 10),
        EntrantInfo(3, 4),
        EntrantInfo(4, 1),
        EntrantInfo(5, 2),
    ]
    order = ("match_points", "head_to_head", "seed")
    rows = compute_standings(entrants, games, StandingsSettings(order=order))
    ids = [row.entrant_id for row in rows]
    assert ids.index(1) < ids.index(2) < ids.index(3)
    line = by_id(rows)[2]
    assert line.reason == "tied on match points, ahead on head to head 1 to 0"
    for above, below in itertools.pairwise(rows):
        reason_agrees(above, below)


def test_entrants_who_never_played_rank_after_those_who_did_and_the_withdrawn_last():
    # 1 and 2 lost every game (a negative differential); 3 and 4 were never seated; 5
    # withdrew after a win.
    games = [two(1, 6, 1, 200, 0), two(2, 6, 2, 200, 0), two(3, 5, 6, 200, 100)]
    entrants = [EntrantInfo(i, seed=i, withdrawn=i == 5) for i in range(1, 7)]
    rows = compute_standings(entrants, games, StandingsSettings())
    assert [row.entrant_id for row in rows] == [6, 1, 2, 3, 4, 5]
    assert by_id(rows)[2].reason == "has played; those below have not played a game yet"
    assert by_id(rows)[4].reason == "still in the event; those below withdrew or were disqualified"
    for above, below in itertools.pairwise(rows):
        reason_agrees(above, below)

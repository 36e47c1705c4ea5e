"""The pure rules engine: every worked example in RULES.md, every path, every error."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.engine import (
    GameOutcome,
    ScoringError,
    decide_game,
    hand_capacity,
    next_leader,
    round_to_five,
    score_hand,
    score_play,
    score_stack,
    steal_victim,
)
from scoring.rulesets import PRESETS, get_ruleset

SEATS = ["A", "B", "C", "D"]


def block(key, players=4, overrides=None, **pips):
    rules = get_ruleset(key, players=players, overrides=overrides)
    return score_hand(rules, seats=list(pips), pips=pips)


def domino(key, by, players=4, overrides=None, **pips):
    rules = get_ruleset(key, players=players, overrides=overrides)
    return score_hand(rules, seats=list(pips), pips=pips, domino_by=by)


# --- RULES.md, "Worked examples every implementation must reproduce" ---------------------


def test_dcs_block_awards_the_sum_of_differences():
    result = block("dcs", A=8, B=15, C=22, D=12)
    assert result.awards == {"A": 25, "B": 0, "C": 0, "D": 0}
    assert result.winners == ("A",)
    assert result.ended == "block"


def test_cutthroat_block_awards_opponents_less_own_rounded():
    result = block("cutthroat", A=8, B=15, C=22, D=12)
    assert result.raw_awards["A"] == 41
    assert result.awards["A"] == 40


def test_cutthroat_domino_awards_opponents_pips_rounded():
    result = domino("cutthroat", "A", A=0, B=13, C=9, D=5)
    assert result.raw_awards["A"] == 27
    assert result.awards == {"A": 25, "B": 0, "C": 0, "D": 0}
    assert result.ended == "domino"


def test_partners_domino_scores_the_losing_teams_pips():
    result = domino("partners", "A", A=0, B=11, C=20, D=6)
    assert result.raw_awards == {"A+C": 17, "B+D": 0}
    assert result.awards == {"A+C": 15, "B+D": 0}
    assert result.winners == ("A+C",)


def test_partners_tied_block_is_a_draw():
    result = block("partners", A=9, B=12, C=10, D=7)
    assert result.awards == {"A+C": 0, "B+D": 0}
    assert result.winners == ()


def test_doscientos_domino_scores_every_pip_on_the_table():
    result = domino("doscientos", "A", A=0, B=11, C=20, D=6)
    assert result.raw_awards["A+C"] == 37
    assert result.awards["A+C"] == 35


def test_two_box_in_play_spinner_example():
    rules = get_ruleset("two_box")
    assert score_play(rules, [12, 3]) == 15  # 6-6 spinner, 6-3 on a long side
    assert score_play(rules, [3, 2]) == 5  # 6-2 on the other long side
    assert score_play(rules, [3, 2, 5]) == 10  # 6-5 off a tip


def test_two_box_cutthroat_stack_steals_and_a_double_steals_double():
    rules = get_ruleset("two_box_cutthroat")
    assert score_stack(rules, 10) == (10, 10)
    assert score_stack(rules, 10, double=True) == (20, 20)


def test_steal_takes_from_the_previous_seat_unless_the_referee_names_the_last_player():
    assert steal_victim(SEATS, "A") == "D"
    assert steal_victim(SEATS, "C") == "B"
    # B passed after A's play: C's stack takes from A, who played the tile.
    assert steal_victim(SEATS, "C", "A") == "A"


@pytest.mark.parametrize("victim", ["C", "E"])
def test_steal_cannot_take_from_the_stacker_or_a_seat_not_at_the_table(victim):
    with pytest.raises(ScoringError) as error:
        steal_victim(SEATS, "C", victim)
    assert error.value.field == "from_seat"


def test_plain_two_box_stack_scores_without_stealing():
    rules = get_ruleset("two_box")
    assert score_stack(rules, 10, double=True) == (10, 0)


# --- each preset's domino and block path -------------------------------------------------


@pytest.mark.parametrize(
    ("key", "players", "pips", "expected"),
    [
        ("cutthroat", 2, {"A": 0, "B": 23}, {"A": 25, "B": 0}),
        ("cutthroat", 3, {"A": 0, "B": 13, "C": 9}, {"A": 20, "B": 0, "C": 0}),
        ("dcs", 4, {"A": 0, "B": 13, "C": 9, "D": 5}, {"A": 27, "B": 0, "C": 0, "D": 0}),
        ("federation", 4, {"A": 0, "B": 11, "C": 20, "D": 6}, {"A+C": 15, "B+D": 0}),
        ("mexican", 4, {"A": 0, "B": 11, "C": 20, "D": 6}, {"A+C": 15, "B+D": 0}),
        ("two_box", 4, {"A": 0, "B": 13, "C": 9, "D": 5}, {"A": 27, "B": 0, "C": 0, "D": 0}),
        (
            "two_box_cutthroat",
            5,
            {"A": 0, "B": 1, "C": 2, "D": 3, "E": 4},
            {"A": 10, "B": 0, "C": 0, "D": 0, "E": 0},
        ),
    ],
)
def test_every_preset_scores_a_domino(key, players, pips, expected):
    rules = get_ruleset(key, players=players)
    assert score_hand(rules, seats=list(pips), pips=pips, domino_by="A").awards == expected


@pytest.mark.parametrize(
    ("key", "pips", "expected"),
    [
        ("cutthroat", {"A": 3, "B": 10, "C": 20, "D": 17}, {"A": 45}),  # 47 - 3 = 44 -> 45
        ("dcs", {"A": 8, "B": 15, "C": 22, "D": 12}, {"A": 25}),
        ("partners", {"A": 2, "B": 12, "C": 10, "D": 7}, {"A+C": 20}),  # 12 v 19: 19 -> 20
        ("doscientos", {"A": 2, "B": 12, "C": 10, "D": 7}, {"A+C": 30}),  # all 31 -> 30
        ("federation", {"A": 2, "B": 12, "C": 10, "D": 7}, {"A+C": 20}),
        ("mexican", {"A": 12, "B": 2, "C": 10, "D": 7}, {"B+D": 20}),  # 9 v 22 -> 20
        ("two_box", {"A": 8, "B": 15, "C": 22, "D": 12}, {"A": 41}),  # not rounded
        ("two_box_cutthroat", {"A": 8, "B": 15, "C": 22, "D": 12}, {"A": 41}),
    ],
)
def test_every_preset_scores_a_block(key, pips, expected):
    result = block(key, **pips)
    for side, award in expected.items():
        assert result.awards[side] == award
    assert sum(result.awards.values()) == sum(expected.values())


def test_three_player_cutthroat_removes_the_double_blank():
    rules = get_ruleset("cutthroat", players=3)
    assert rules.hand_size == 9
    assert rules.target == 200
    assert rules.removed_tiles == ((0, 0),)
    assert len(rules.tiles) == 27


# --- block winners and awards --------------------------------------------------------------


def test_opponents_pips_block_award_does_not_subtract():
    result = block("cutthroat", overrides={"block_award": "opponents_pips"}, A=8, B=15, C=22, D=12)
    assert result.raw_awards["A"] == 49


def test_cascade_pays_every_player_the_differences_below_them():
    result = block(
        "cutthroat", overrides={"block_award": "cascade", "rounding": "none"}, A=8, B=15, C=22, D=12
    )
    assert result.awards == {"A": 25, "B": 7, "C": 0, "D": 13}
    assert result.winners == ("A",)


def test_lowest_hand_with_partners_goes_to_the_team_of_the_lowest_single_hand():
    result = block("partners", overrides={"block_winner": "lowest_hand"}, A=1, B=5, C=20, D=6)
    # A+C hold 21 against 11, but A's single hand is the lowest.
    assert result.winners == ("A+C",)
    assert result.awards["A+C"] == 10  # the losing team's 11 -> 10


def test_partners_lowest_hand_tie_within_one_team_is_no_tie():
    result = block("partners", overrides={"block_winner": "lowest_hand"}, A=3, B=5, C=3, D=6)
    assert result.winners == ("A+C",)


# --- tie policies ---------------------------------------------------------------------------


def test_split_shares_the_award_among_tied_lowest_hands():
    result = block("dcs", A=8, B=8, C=22, D=12)
    assert result.awards == {"A": 9, "B": 9, "C": 0, "D": 0}
    assert result.winners == ("A", "B")


def test_split_rounds_down_to_a_whole_point_before_rounding_to_five():
    result = block("dcs", overrides={"rounding": "nearest_5"}, A=8, B=8, C=21, D=12)
    # (21 - 8) + (12 - 8) = 17, split 8 each, then 8 -> 10.
    assert result.raw_awards["A"] == 8
    assert result.awards["A"] == 10


def test_no_award_tie_scores_nothing():
    result = block("cutthroat", A=8, B=8, C=22, D=12)
    assert result.awards == dict.fromkeys("ABCD", 0)
    assert result.winners == ()


def test_lowest_tile_tie_goes_to_the_lowest_single_tile():
    rules = get_ruleset("two_box")
    pips = {"A": 5, "B": 5, "C": 20, "D": 10}
    result = score_hand(rules, seats=SEATS, pips=pips, lowest_tiles={"A": (0, 2), "B": (1, 1)})
    assert result.winners == ("A",)  # 0-2 before 1-1: same total, smaller half
    assert result.awards["A"] == 35 - 5


def test_lowest_tile_tie_with_the_same_tile_splits():
    rules = get_ruleset("two_box")
    pips = {"A": 5, "B": 5, "C": 20, "D": 10}
    result = score_hand(rules, seats=SEATS, pips=pips, lowest_tiles={"A": (0, 1), "B": [1, 0]})
    assert result.winners == ("A", "B")
    assert result.awards["A"] == result.awards["B"] == (30 - 5) // 2


def test_lowest_tile_tie_needs_the_tiles():
    rules = get_ruleset("two_box")
    with pytest.raises(ScoringError) as error:
        score_hand(rules, seats=SEATS, pips={"A": 5, "B": 5, "C": 20, "D": 10})
    assert error.value.field == "lowest_tiles"


def test_starting_team_wins_a_tied_block_in_mexican():
    rules = get_ruleset("mexican")
    pips = {"A": 9, "B": 12, "C": 10, "D": 7}
    result = score_hand(rules, seats=SEATS, pips=pips, leader="B")
    assert result.winners == ("B+D",)
    assert result.awards["B+D"] == 20  # the losing team's 19 -> 20


def test_starting_team_tie_needs_the_leader():
    with pytest.raises(ScoringError) as error:
        block("mexican", A=9, B=12, C=10, D=7)
    assert error.value.field == "leader"


# --- rounding -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "rounded"),
    [(10, 10), (11, 10), (12, 10), (13, 15), (14, 15), (17, 15), (18, 20), (0, 0), (44, 45)],
)
def test_round_to_five_at_each_remainder(n, rounded):
    assert round_to_five(n) == rounded


def test_rounding_applies_once_to_the_final_figure():
    result = block("cutthroat", A=3, B=10, C=20, D=17)
    assert result.raw_awards["A"] == 44
    assert result.awards["A"] == 45  # not 45 - 5


# --- in-play ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("ends", "points"), [([5, 5], 10), ([6, 4], 10), ([3, 4], 0), ([0], 0)])
def test_score_play_counts_multiples_of_five(ends, points):
    assert score_play(get_ruleset("cutthroat", players=4), ends) == points


def test_score_play_is_nothing_where_nothing_scores_in_play():
    assert score_play(get_ruleset("dcs"), [5, 5]) == 0


@pytest.mark.parametrize("ends", [[13], [-1], [], [1, 2, 3, 4, 5], "55", [True]])
def test_score_play_refuses_impossible_ends(ends):
    with pytest.raises(ScoringError):
        score_play(get_ruleset("cutthroat", players=4), ends)


def test_score_stack_refused_where_nobody_stacks():
    with pytest.raises(ScoringError):
        score_stack(get_ruleset("cutthroat", players=4), 10)


# --- leaders -----------------------------------------------------------------------------------


def test_previous_winner_leads_next():
    rules = get_ruleset("cutthroat", players=4)
    result = score_hand(rules, seats=SEATS, pips={"A": 8, "B": 15, "C": 22, "D": 12})
    assert next_leader(rules, SEATS, leader="C", result=result) == "A"
    result = score_hand(rules, seats=SEATS, pips={"A": 8, "B": 0, "C": 22, "D": 12}, domino_by="B")
    assert next_leader(rules, SEATS, leader="C", result=result) == "B"


def test_a_tied_block_is_led_again_by_its_leader():
    rules = get_ruleset("cutthroat", players=4)
    result = score_hand(rules, seats=SEATS, pips={"A": 8, "B": 8, "C": 22, "D": 12})
    assert next_leader(rules, SEATS, leader="C", result=result) == "C"


def test_rotation_passes_the_lead_to_the_next_seat():
    rules = get_ruleset("partners")
    result = score_hand(rules, seats=SEATS, pips={"A": 0, "B": 1, "C": 2, "D": 3}, domino_by="A")
    assert next_leader(rules, SEATS, leader="D", result=result) == "A"
    assert next_leader(rules, SEATS, leader="A", result=result) == "B"


def test_team_winner_leads_from_its_lowest_hand_in_mexican():
    rules = get_ruleset("mexican")
    result = score_hand(rules, seats=SEATS, pips={"A": 4, "B": 12, "C": 1, "D": 17})
    assert next_leader(rules, SEATS, leader="B", result=result) == "C"


def test_highest_double_leaves_the_lead_to_the_tiles():
    rules = get_ruleset("dcs")
    result = score_hand(rules, seats=SEATS, pips={"A": 8, "B": 15, "C": 22, "D": 12})
    assert next_leader(rules, SEATS, leader="A", result=result) is None


# --- winning a game ---------------------------------------------------------------------------


def test_nobody_at_the_target_plays_on():
    rules = get_ruleset("cutthroat", players=4)
    assert decide_game(rules, {"A": 245, "B": 0, "C": 0, "D": 0}) == GameOutcome(False)


def test_the_highest_total_at_or_over_the_target_wins():
    rules = get_ruleset("cutthroat", players=4)
    outcome = decide_game(rules, {"A": 262, "B": 251, "C": 0, "D": 0})
    assert outcome.finished
    assert outcome.winner == "A"


def test_equal_top_totals_at_the_target_play_on():
    rules = get_ruleset("dcs")
    outcome = decide_game(rules, {"A": 260, "B": 260, "C": 10, "D": 0})
    assert not outcome.finished
    assert outcome.tied == ("A", "B")


def test_equal_tops_end_as_a_draw_when_play_on_is_off():
    rules = get_ruleset("dcs", overrides={"play_on_tie_at_target": False})
    outcome = decide_game(rules, {"A": 260, "B": 260, "C": 10, "D": 0})
    assert outcome.finished
    assert outcome.winner is None


def test_teams_win_by_side_name():
    rules = get_ruleset("partners")
    assert decide_game(rules, {"A+C": 250, "B+D": 240}).winner == "A+C"


# --- tiles -------------------------------------------------------------------------------------


def test_tiles_give_the_pips():
    rules = get_ruleset("cutthroat", players=4)
    tiles = {"A": [], "B": [(6, 6), (1, 2)], "C": [[0, 3]], "D": [(2, 2)]}
    result = score_hand(rules, seats=SEATS, tiles=tiles, domino_by="A")
    assert result.pips == {"A": 0, "B": 15, "C": 3, "D": 4}
    assert result.awards["A"] == 20  # 22 -> 20


def test_a_tile_held_twice_from_one_set_is_refused():
    rules = get_ruleset("cutthroat", players=4)
    with pytest.raises(ScoringError, match="appears 2 times") as error:
        score_hand(
            rules,
            seats=SEATS,
            tiles={"A": [], "B": [(6, 6)], "C": [(6, 6)], "D": []},
            domino_by="A",
        )
    assert error.value.field == "tiles"


def test_two_boxes_hold_every_tile_twice():
    rules = get_ruleset("two_box")
    tiles = {"A": [], "B": [(6, 6)], "C": [(6, 6)], "D": []}
    assert score_hand(rules, seats=SEATS, tiles=tiles, domino_by="A").awards["A"] == 24


def test_the_removed_double_blank_cannot_be_held():
    rules = get_ruleset("cutthroat", players=3)
    with pytest.raises(ScoringError, match="holds none"):
        score_hand(
            rules, seats=["A", "B", "C"], tiles={"A": [], "B": [(0, 0)], "C": []}, domino_by="A"
        )


@pytest.mark.parametrize("tile", [(7, 1), (-1, 2), (1,), "12", (True, 1)])
def test_a_tile_that_is_not_a_tile_is_refused(tile):
    rules = get_ruleset("cutthroat", players=4)
    with pytest.raises(ScoringError) as error:
        score_hand(
            rules, seats=SEATS, tiles={"A": [], "B": [tile], "C": [], "D": []}, domino_by="A"
        )
    assert error.value.field == "tiles"


# --- errors a referee can make -------------------------------------------------------------


def cutthroat():
    return get_ruleset("cutthroat", players=4)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"pips": {"A": 8, "B": 15, "C": 22}}, "pips"),  # missing seat
        ({"pips": {"A": 8, "B": 15, "C": 22, "D": 1, "E": 3}}, "pips"),  # unknown seat
        ({"pips": {"A": 8, "B": -1, "C": 22, "D": 12}}, "pips"),
        ({"pips": {"A": 8, "B": 70, "C": 22, "D": 12}}, "pips"),  # 7 tiles hold at most 69
        ({"pips": {"A": 8, "B": 1.5, "C": 22, "D": 12}}, "pips"),
        ({"pips": {"A": 3, "B": 15, "C": 22, "D": 12}, "domino_by": "A"}, "domino_by"),
        ({"pips": {"A": 0, "B": 15, "C": 22, "D": 12}, "domino_by": "Z"}, "domino_by"),
        ({"pips": {"A": 0, "B": 15, "C": 22, "D": 12}, "leader": "Z"}, "leader"),
        ({}, "pips"),
    ],
)
def test_impossible_hands_raise_with_the_field_at_fault(kwargs, field):
    with pytest.raises(ScoringError) as error:
        score_hand(cutthroat(), seats=SEATS, **kwargs)
    assert error.value.field == field
    assert str(error.value)


def test_the_wrong_number_of_seats_is_refused():
    with pytest.raises(ScoringError, match="played by 4") as error:
        score_hand(cutthroat(), seats=["A", "B", "C"], pips={"A": 1, "B": 2, "C": 3})
    assert error.value.field == "seats"


def test_more_pips_than_all_hands_hold_is_refused():
    with pytest.raises(ScoringError, match="together"):
        score_hand(cutthroat(), seats=SEATS, pips={"A": 69, "B": 69, "C": 69, "D": 69})


def test_seven_tiles_hold_at_most_69_pips():
    assert hand_capacity(cutthroat()) == (69, 168)
    score_hand(cutthroat(), seats=SEATS, pips={"A": 69, "B": 0, "C": 0, "D": 0})


def test_zero_pips_is_not_going_out():
    result = score_hand(cutthroat(), seats=SEATS, pips={"A": 0, "B": 15, "C": 22, "D": 12})
    assert result.ended == "block"
    assert result.awards["A"] == 50  # 49 - 0 -> 50


def test_hands_grow_where_players_draw():
    rules = get_ruleset("two_box")
    result = score_hand(rules, seats=SEATS, pips={"A": 90, "B": 0, "C": 3, "D": 4}, domino_by="B")
    assert result.awards["B"] == 97


# --- properties -----------------------------------------------------------------------------

KEYS = sorted(PRESETS)


@st.composite
def hands(draw):
    key = draw(st.sampled_from(KEYS))
    players = draw(st.sampled_from(PRESETS[key].players))
    rules = get_ruleset(key, players=players)
    seats = [chr(ord("A") + i) for i in range(players)]
    most, _ = hand_capacity(rules)
    cap = min(most, 40)
    pips = {seat: draw(st.integers(0, cap)) for seat in seats}
    domino_by = draw(st.one_of(st.none(), st.sampled_from(seats)))
    if domino_by:
        pips[domino_by] = 0
    leader = draw(st.sampled_from(seats))
    lowest = {seat: (0, index) for index, seat in enumerate(seats)}
    return rules, seats, pips, domino_by, leader, lowest


def score(case):
    rules, seats, pips, domino_by, leader, lowest = case
    return score_hand(
        rules, seats=seats, pips=pips, domino_by=domino_by, leader=leader, lowest_tiles=lowest
    )


@given(hands())
def test_awards_are_never_negative(case):
    assert all(award >= 0 for award in score(case).awards.values())


@given(hands())
def test_awards_are_multiples_of_five_where_the_rules_round(case):
    rules = case[0]
    result = score(case)
    if rules.rounding == "nearest_5":
        assert all(award % 5 == 0 for award in result.awards.values())


@given(hands(), st.randoms())
def test_relabelling_seats_relabels_the_result(case, rng):
    rules, seats, pips, domino_by, leader, lowest = case
    names = [f"p{i}" for i in range(len(seats))]
    rng.shuffle(names)
    rename = dict(zip(seats, names, strict=True))
    renamed = score_hand(
        rules,
        seats=[rename[s] for s in seats],
        pips={rename[s]: p for s, p in pips.items()},
        domino_by=rename.get(domino_by),
        leader=rename[leader],
        lowest_tiles={rename[s]: t for s, t in lowest.items()},
    )
    original = score(case)

    def side(name):
        return "+".join(rename[s] for s in name.split("+"))

    assert renamed.awards == {side(s): a for s, a in original.awards.items()}
    assert renamed.winners == tuple(side(s) for s in original.winners)


@given(st.lists(st.integers(0, 40), min_size=3, max_size=4))
def test_sum_of_differences_never_exceeds_opponents_minus_own(counts):
    seats = SEATS[: len(counts)]
    pips = dict(zip(seats, counts, strict=True))
    differences = get_ruleset(
        "cutthroat",
        players=len(counts),
        overrides={"block_award": "sum_of_differences", "rounding": "none", "block_tie": "split"},
    )
    minus_own = get_ruleset(
        "cutthroat", players=len(counts), overrides={"rounding": "none", "block_tie": "split"}
    )
    low = score_hand(differences, seats=seats, pips=pips)
    high = score_hand(minus_own, seats=seats, pips=pips)
    assert sum(low.awards.values()) <= sum(high.awards.values())


@given(hands())
def test_a_domino_under_opponents_pips_pays_the_opponents_pips(case):
    rules, _seats, pips, domino_by, _leader, _lowest = case
    if domino_by is None or rules.domino_award != "opponents_pips":
        return
    result = score(case)
    winner = result.winners[0]
    members = winner.split("+")
    owed = sum(p for seat, p in pips.items() if seat not in members)
    expected = round_to_five(owed) if rules.rounding == "nearest_5" else owed
    assert result.awards[winner] == expected

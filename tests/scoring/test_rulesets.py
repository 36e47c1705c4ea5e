"""Presets, their resolution per table size, overrides and the JSON round trip."""

import json
from dataclasses import fields

import pytest

from scoring.rulesets import CHOICES, PRESETS, RuleSet, ScoringError, get_ruleset

RULES_MD_FIELDS = {
    "players",
    "teams",
    "boxes",
    "hand_size",
    "removed_tiles",
    "target",
    "in_play_scoring",
    "stacking",
    "steal",
    "domino_award",
    "block_winner",
    "block_award",
    "rounding",
    "block_tie",
    "first_leader",
    "next_leader",
    "play_on_tie_at_target",
    "win_check",
    "penalty_points",
}


def test_every_preset_of_rules_md_exists():
    assert set(PRESETS) == {
        "cutthroat",
        "dcs",
        "partners",
        "doscientos",
        "federation",
        "mexican",
        "two_box",
        "two_box_cutthroat",
    }


def test_every_field_of_rules_md_is_a_ruleset_field():
    assert {f.name for f in fields(RuleSet)} >= RULES_MD_FIELDS


@pytest.mark.parametrize("key", sorted(PRESETS))
def test_presets_have_a_label_and_one_line_description(key):
    preset = PRESETS[key]
    assert preset.label
    assert preset.description
    assert "\n" not in preset.description


@pytest.mark.parametrize(
    ("key", "players"), [(key, n) for key, preset in PRESETS.items() for n in preset.players]
)
def test_every_preset_round_trips_through_json(key, players):
    rules = get_ruleset(key, players=players)
    assert RuleSet.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules


@pytest.mark.parametrize(
    ("key", "players", "hand", "target"),
    [
        ("cutthroat", 2, 14, 150),
        ("cutthroat", 3, 9, 200),
        ("cutthroat", 4, 7, 250),
        ("dcs", 4, 7, 250),
        ("partners", 4, 7, 250),
        ("doscientos", 4, 7, 200),
        ("federation", 4, 7, 200),
        ("mexican", 4, 7, 250),
        ("two_box", 6, 7, 150),
    ],
)
def test_per_table_size_fields_resolve(key, players, hand, target):
    rules = get_ruleset(key, players=players)
    assert (rules.players, rules.hand_size, rules.target) == (players, hand, target)


def test_presets_follow_rules_md():
    assert get_ruleset("dcs").block_award == "sum_of_differences"
    assert get_ruleset("dcs").in_play_scoring is False
    assert get_ruleset("partners").teams == "partners"
    assert get_ruleset("doscientos").domino_award == "all_pips"
    assert get_ruleset("federation").first_leader == "drawn"
    assert get_ruleset("mexican").block_tie == "starting_team"
    assert get_ruleset("mexican").next_leader == "previous_winner"
    assert get_ruleset("two_box").boxes == 2
    assert get_ruleset("two_box").block_tie == "lowest_tile"
    assert get_ruleset("two_box_cutthroat").steal is True
    assert get_ruleset("cutthroat", players=4).penalty_points == 10


def test_overrides_change_a_field():
    rules = get_ruleset("dcs", players=4, overrides={"rounding": "nearest_5", "target": 300})
    assert rules.rounding == "nearest_5"
    assert rules.target == 300


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"colour": "red"}, "colour"),
        ({"rounding": "nearest_10"}, "rounding"),
        ({"target": 0}, "target"),
        ({"in_play_scoring": "yes"}, "in_play_scoring"),
        ({"players": 3}, "players"),
        ({"steal": True}, "steal"),
        ({"removed_tiles": [[7, 7]]}, "removed_tiles"),
    ],
)
def test_bad_overrides_name_the_field(overrides, field):
    with pytest.raises(ScoringError) as error:
        get_ruleset("cutthroat", players=4, overrides=overrides)
    assert error.value.field == field


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("target", 10**30),
        ("target", 2**31),
        ("target", 2**32 + 10),
        ("target", 24),
        ("target", 5_001),
        ("target", -250),
        ("penalty_points", 2**63),
        ("penalty_points", 501),
        ("penalty_points", -10),
        ("hand_size", 8),  # four hands of eight need 32 of the 28 tiles
        ("hand_size", 2**31),
        ("hand_size", 0),
    ],
)
def test_numbers_outside_the_games_range_are_refused_with_both_bounds(field, value):
    with pytest.raises(ScoringError, match=r"whole number from \d+ to \d+") as error:
        get_ruleset("cutthroat", players=4, overrides={field: value})
    assert error.value.field == field


def test_the_ends_of_each_range_are_accepted():
    assert get_ruleset("cutthroat", overrides={"target": 25}).target == 25
    assert get_ruleset("cutthroat", overrides={"target": 5_000}).target == 5_000
    assert get_ruleset("cutthroat", overrides={"penalty_points": 500}).penalty_points == 500
    # Drawing from two sets, six players may still hold nine tiles each (56 // 6).
    assert get_ruleset("two_box", players=6, overrides={"hand_size": 9}).hand_size == 9
    with pytest.raises(ScoringError):
        get_ruleset("two_box", players=6, overrides={"hand_size": 10})


def test_a_table_size_the_preset_does_not_allow_is_refused():
    with pytest.raises(ScoringError, match="played by 4 players, not 3"):
        get_ruleset("partners", players=3)


def test_a_preset_with_several_sizes_defaults_to_its_usual_table():
    assert get_ruleset("cutthroat").players == 4
    assert get_ruleset("two_box").players == 4


def test_unknown_preset_is_refused():
    with pytest.raises(ScoringError, match="no rule set called"):
        get_ruleset("muggins")


def test_choices_cover_every_enumerated_field():
    rules = get_ruleset("cutthroat", players=4)
    for name, allowed in CHOICES.items():
        assert getattr(rules, name) in allowed


def test_preset_to_dict_lists_every_table_size():
    described = PRESETS["cutthroat"].to_dict()
    assert described["players"] == [2, 3, 4]
    assert described["per_table_size"]["3"]["removed_tiles"] == [[0, 0]]

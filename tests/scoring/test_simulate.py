"""Simulated hands are legal: tiles conserved, pips true, play points multiples of five."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import engine
from scoring.rulesets import PRESETS, get_ruleset
from scoring.simulate import play_hand

TABLES = [(key, size) for key, preset in PRESETS.items() for size in preset.players]


@settings(max_examples=120, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 10**6))
def test_a_simulated_hand_is_one_a_referee_could_report(table, seed):
    key, size = table
    rules = get_ruleset(key, players=size)
    seats = [chr(ord("A") + i) for i in range(size)]
    hand = play_hand(rules, seats, random.Random(seed))
    for seat in seats:
        assert hand.pips[seat] == sum(a + b for a, b in hand.tiles_left[seat])
    if hand.domino_by:
        assert hand.tiles_left[hand.domino_by] == []
    else:
        assert all(hand.tiles_left[seat] for seat in seats)
    left = [tile for seat in seats for tile in hand.tiles_left[seat]]
    assert len(left) < len(rules.tiles)
    for tile in left:
        assert tuple(tile) in rules.tiles
    for seat, points in hand.in_play:
        assert seat in seats and points > 0 and points % 5 == 0
        assert rules.in_play_scoring
    result = engine.score_ending(
        rules,
        seats,
        ended=hand.ended,
        domino_by=hand.domino_by,
        pips=hand.pips,
        tiles=None,
        leader=hand.leader,
        lowest_tiles=None
        if hand.domino_by or rules.block_tie != "lowest_tile"
        else {s: min(hand.tiles_left[s], key=lambda t: (t[0] + t[1], t)) for s in seats},
    )
    assert all(points >= 0 for points in result.awards.values())

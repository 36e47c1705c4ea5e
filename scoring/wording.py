"""Rule sets in plain words, for pages and printed cards (pure: no Django, no ORM)."""

from scoring.rulesets import RuleSet

_DOMINO = {
    "opponents_pips": "the pips left in the opponents' hands",
    "all_pips": "every pip left on the table",
}

_BLOCK_WINNER = {
    "lowest_hand": "the player with the fewest pips wins a block",
    "lowest_team": "the team with the fewest pips wins a block",
}

_BLOCK_AWARD = {
    "opponents_pips": "and scores the opponents' pips",
    "opponents_minus_own": "and scores the opponents' pips less its own",
    "sum_of_differences": "and scores the difference to each opponent",
    "cascade": "and the places below score the differences in turn",
    "losing_team_pips": "and scores the losing team's pips",
    "all_pips": "and scores every pip left on the table",
}

_BLOCK_TIE = {
    "split": "a tie splits the award",
    "no_award": "a tie scores nothing",
    "lowest_tile": "a tie goes to the lowest single tile",
    "starting_team": "a tie goes to the team that led",
}

_FIRST_LEADER = {
    "double_six": "the double six leads the first hand",
    "highest_double": "the highest double leads the first hand",
    "highest_double_then_tile": "the highest double (else the highest tile) leads first",
    "drawn": "the first leader is drawn",
}

_NEXT_LEADER = {
    "previous_winner": "the hand's winner leads the next",
    "rotate": "the lead passes to the right",
    "highest_double": "the highest double leads every hand",
}


def who_plays(rules: RuleSet) -> str:
    if rules.teams == "partners":
        return "two teams of two"
    return f"{rules.players} players, each for themselves"


def summary(rules: RuleSet) -> str:
    """One line: who plays, to what score and how a block is scored."""
    block = f"{_BLOCK_WINNER[rules.block_winner]} {_BLOCK_AWARD[rules.block_award]}"
    return f"{who_plays(rules).capitalize()} to {rules.target}; {block}."


def describe(rules: RuleSet) -> list[str]:
    """The rule set as short sentences, one per rule an organizer could change."""
    boxes = "two double-six sets" if rules.boxes == 2 else "one double-six set"
    removed = ""
    if rules.removed_tiles:
        shown = ", ".join(f"{a}-{b}" for a, b in rules.removed_tiles)
        removed = f", without {shown}"
    draw = "players draw from the boneyard" if rules.draws else "no drawing from the boneyard"
    lines = [
        f"{who_plays(rules).capitalize()}; first to {rules.target} points wins.",
        f"{rules.hand_size} tiles each from {boxes}{removed}; {draw}.",
    ]
    if rules.in_play_scoring:
        play = "Points score during play when the open ends add up to a multiple of five"
        if rules.stacking:
            play += "; a matching tile stacks"
        if rules.steal:
            play += " and steals the previous play's points"
        lines.append(play + ".")
    else:
        lines.append("No points score during play.")
    rounded = " to the nearest five" if rules.rounding == "nearest_5" else ", not rounded"
    lines.append(f"Whoever dominoes scores {_DOMINO[rules.domino_award]}{rounded}.")
    lines.append(
        f"When play is blocked, {_BLOCK_WINNER[rules.block_winner]} "
        f"{_BLOCK_AWARD[rules.block_award]}; {_BLOCK_TIE[rules.block_tie]}."
    )
    lines.append(
        f"{_FIRST_LEADER[rules.first_leader].capitalize()}; {_NEXT_LEADER[rules.next_leader]}."
    )
    if rules.win_check == "immediate":
        lines.append("The game ends the moment a side reaches the target.")
    elif rules.play_on_tie_at_target:
        lines.append("A tie at or past the target plays another hand.")
    lines.append(f"A penalty costs {rules.penalty_points} points.")
    return lines

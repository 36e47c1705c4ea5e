"""Rule sets in plain words, for pages and printed cards (pure: no Django, no ORM).

Every function takes ``_``, the translation function of the caller (Django's gettext on
the pages); the phrases are marked so that ``makemessages`` finds them.
"""

from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet

from scoring.rulesets import RuleSet, gettext_noop

Translate = Callable[[str], str]


def _same(message: str) -> str:
    return message


_DOMINO = {
    "opponents_pips": gettext_noop("the pips left in the opponents' hands"),
    "all_pips": gettext_noop("every pip left on the table"),
}

_BLOCK_WINNER = {
    "lowest_hand": gettext_noop("the player with the fewest pips wins a block"),
    "lowest_team": gettext_noop("the team with the fewest pips wins a block"),
}

_BLOCK_AWARD = {
    "opponents_pips": gettext_noop("and scores the opponents' pips"),
    "opponents_minus_own": gettext_noop("and scores the opponents' pips less its own"),
    "sum_of_differences": gettext_noop("and scores the difference to each opponent"),
    "cascade": gettext_noop("and the places below score the differences in turn"),
    "losing_team_pips": gettext_noop("and scores the losing team's pips"),
    "all_pips": gettext_noop("and scores every pip left on the table"),
}

_BLOCK_TIE = {
    "split": gettext_noop("a tie splits the award"),
    "no_award": gettext_noop("a tie scores nothing"),
    "lowest_tile": gettext_noop("a tie goes to the lowest single tile"),
    "starting_team": gettext_noop("a tie goes to the team that led"),
}

_FIRST_LEADER = {
    "double_six": gettext_noop("the double six leads the first hand"),
    "highest_double": gettext_noop("the highest double leads the first hand"),
    "highest_double_then_tile": gettext_noop(
        "the highest double (else the highest tile) leads first"
    ),
    "drawn": gettext_noop("the first leader is drawn"),
}

_NEXT_LEADER = {
    "previous_winner": gettext_noop("the hand's winner leads the next"),
    "rotate": gettext_noop("the lead passes to the right"),
    "highest_double": gettext_noop("the highest double leads every hand"),
}


def who_plays(rules: RuleSet, _: Translate = _same) -> str:
    if rules.teams == "partners":
        return _("two teams of two")
    return _("{players} players, each for themselves").format(players=rules.players)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def summary(rules: RuleSet, _: Translate = _same) -> str:
    """One line: who plays, to what score and how a block is scored."""
    return _("{who} to {target}; {winner} {award}.").format(
        who=_cap(who_plays(rules, _)),
        target=rules.target,
        winner=_(_BLOCK_WINNER[rules.block_winner]),
        award=_(_BLOCK_AWARD[rules.block_award]),
    )


def describe(rules: RuleSet, _: Translate = _same) -> list[str]:
    """The rule set as short sentences, one per rule an organizer could change."""
    boxes = _("two double-six sets") if rules.boxes == 2 else _("one double-six set")
    removed = ""
    if rules.removed_tiles:
        shown = ", ".join(f"{a}-{b}" for a, b in rules.removed_tiles)
        removed = _(", without {tiles}").format(tiles=shown)
    draw = _("players draw from the boneyard") if rules.draws else _("no drawing from the boneyard")
    lines = [
        _("{who}; first to {target} points wins.").format(
            who=_cap(who_plays(rules, _)), target=rules.target
        ),
        _("{count} tiles each from {boxes}{removed}; {draw}.").format(
            count=rules.hand_size, boxes=boxes, removed=removed, draw=draw
        ),
    ]
    if rules.in_play_scoring:
        if rules.steal:
            lines.append(
                _(
                    "Points score during play when the open ends add up to a multiple of "
                    "five; a matching tile stacks and steals the previous play's points."
                )
            )
        elif rules.stacking:
            lines.append(
                _(
                    "Points score during play when the open ends add up to a multiple of "
                    "five; a matching tile stacks."
                )
            )
        else:
            lines.append(
                _("Points score during play when the open ends add up to a multiple of five.")
            )
    else:
        lines.append(_("No points score during play."))
    domino = _(_DOMINO[rules.domino_award])
    if rules.rounding == "nearest_5":
        lines.append(_("Whoever dominoes scores {what} to the nearest five.").format(what=domino))
    else:
        lines.append(_("Whoever dominoes scores {what}, not rounded.").format(what=domino))
    lines.append(
        _("When play is blocked, {winner} {award}; {tie}.").format(
            winner=_(_BLOCK_WINNER[rules.block_winner]),
            award=_(_BLOCK_AWARD[rules.block_award]),
            tie=_(_BLOCK_TIE[rules.block_tie]),
        )
    )
    lines.append(
        _("{first}; {next}.").format(
            first=_cap(_(_FIRST_LEADER[rules.first_leader])),
            next=_(_NEXT_LEADER[rules.next_leader]),
        )
    )
    if rules.win_check == "immediate":
        lines.append(_("The game ends the moment a side reaches the target."))
    elif rules.play_on_tie_at_target:
        lines.append(_("A tie at or past the target plays another hand."))
    lines.append(_("A penalty costs {points} points.").format(points=rules.penalty_points))
    if rules.play_clock_seconds:
        lines.append(
            _(
                "Each play has {seconds} seconds: a player's first clock violation in a game "
                "is a forced pass, each later one a penalty."
            ).format(seconds=rules.play_clock_seconds)
        )
    return lines


def names_list(names: Sequence[str], _: Translate = _same) -> str:
    """Names in a sentence: "A", "A and B", "A, B and C"."""
    if len(names) < 2:
        return "".join(names)
    return _("{names} and {last}").format(names=", ".join(names[:-1]), last=names[-1])


def forfeit_outcome(
    totals: Mapping[str, int],
    forfeited: AbstractSet[str],
    labels: Mapping[str, str],
    _: Translate = _same,
) -> str:
    """How a game ended by a forfeit, in words (RULES.md, Officiating): who forfeited, and
    the leader of the others who wins, or the leaders level on total who share first
    place (a drawn game among them: "Forfeit by D; A, B and C share first place.")."""
    names = sorted(totals)
    gave_up = names_list([labels.get(n, n) for n in names if n in forfeited], _)
    others = {n: totals[n] for n in names if n not in forfeited}
    if not others:
        return _("Forfeit by {names}.").format(names=gave_up)
    top = max(others.values())
    leaders = [labels.get(n, n) for n, total in others.items() if total == top]
    if len(leaders) == 1:
        return _("Forfeit by {names}; {winner} wins.").format(names=gave_up, winner=leaders[0])
    return _("Forfeit by {names}; {leaders} share first place.").format(
        names=gave_up, leaders=names_list(leaders, _)
    )


# What an undone play was, in words (never a bare "+0": a forced pass scores nothing).
_UNDONE = {
    "in_play": gettext_noop("Undone: {points} points in play for {name}."),
    "steal": gettext_noop("Undone: the steal of {points} points by {name}."),
    "stolen": gettext_noop("Undone: the {points} points stolen from {name}."),
    "penalty": gettext_noop("Undone: the penalty of {points} points for {name}."),
    "forced_pass": gettext_noop("Undone: the forced pass for {name}."),
}


def undone(kind: str, name: str, points: int, _: Translate = _same) -> str:
    """The referee's bar after a play is taken back: what it was, and whose."""
    template = _UNDONE.get(kind, _UNDONE["in_play"])
    return _(template).format(name=name, points=abs(points))

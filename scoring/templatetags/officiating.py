"""What the scoring page's officiating parts need, computed where they are included
(``{% officiating game request.user as o %}``), so that any page can include them."""

from django import template
from django.utils.translation import gettext

from accounts.permissions import allowed
from scoring import officiating, wording
from scoring.models import Dispute, Game
from scoring.selectors import ruleset_of

register = template.Library()


@register.simple_tag
def officiating_state(game: Game, user) -> dict:
    ruleset = ruleset_of(game)
    seats = list(game.seats.order_by("position"))
    number = game.hand_count + 1
    rule = officiating.leader_rule(ruleset, number, game.next_leader)
    playing = game.status != Game.Status.FINISHED and not game.held
    return {
        "game": game,
        "ruleset": ruleset,
        "seats": seats,
        "number": number,
        "playing": playing,
        "clock": ruleset.play_clock_seconds,
        "leader": game.next_leader,
        "leader_name": next((s.display_name for s in seats if s.name == game.next_leader), ""),
        "question": gettext(officiating.LEADER_QUESTIONS[rule]) if rule and playing else "",
        "disputes": list(game.disputes.filter(status=Dispute.Status.OPEN).order_by("pk")),
        "hands": range(1, number + 1),
        "recorded": range(1, number),
        "manages": allowed(user, "game.manage", game),
        "forfeits": [s.display_name for s in seats if s.name in game.forfeits],
        "outcome": _outcome(game, seats) if game.forfeits else "",
    }


def _outcome(game: Game, seats) -> str:
    by_name = {seat.name: seat.display_name for seat in seats}
    labels = {
        side: " & ".join(by_name.get(name, name) for name in side.split("+"))
        for side in game.totals
    }
    return wording.forfeit_outcome(game.totals, game.forfeited_sides, labels, gettext)


@register.simple_tag
def forfeit_outcome(game: Game) -> str:
    """How a game ended by a forfeit, in words ("Forfeit by D; A, B and C share first
    place."); nothing for any other game."""
    if not game.forfeits:
        return ""
    return _outcome(game, list(game.seats.order_by("position")))


@register.simple_tag
def under_dispute(game: Game) -> bool:
    return game.disputes.filter(status=Dispute.Status.OPEN).exists()

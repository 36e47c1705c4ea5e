"""Template helpers for parts other apps' pages include: the player page's ratings, the
account page's ladders."""

from django import template
from django.utils.safestring import mark_safe

from circuit.services.ladders import ladders_of
from circuit.views import player_ratings_context

register = template.Library()


@register.simple_tag
def player_ratings(player) -> list[dict]:
    """The player's rating in each pool with its chart (SVG markup, every label escaped)."""
    if player is None or getattr(player, "pk", None) is None:
        return []
    pools = player_ratings_context(player)
    for entry in pools:
        entry["chart"] = mark_safe(entry["chart"])
    return pools


@register.inclusion_tag("circuit/ladder_account.html", takes_context=True)
def account_ladders(context) -> dict:
    """The account page's ladders part: every ladder entry of the user's player, how it
    was consented, and the requests ladders sent them, to accept or decline."""
    entries, requests = ladders_of(context["request"].user)
    return {"entries": entries, "requests": requests, "request": context["request"]}

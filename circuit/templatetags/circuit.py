"""Template helpers for parts other apps' pages include (the player page's ratings)."""

from django import template
from django.utils.safestring import mark_safe

register = template.Library()


@register.simple_tag
def player_ratings(player) -> list[dict]:
    """The player's rating in each pool with its chart (SVG markup, every label escaped)."""
    from circuit.views import player_ratings_context

    if player is None or getattr(player, "pk", None) is None:
        return []
    pools = player_ratings_context(player)
    for entry in pools:
        entry["chart"] = mark_safe(entry["chart"])
    return pools

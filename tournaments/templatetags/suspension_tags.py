"""A player's own suspensions on their account page (an inclusion tag: the account page
knows nothing of events)."""

from django import template

from players.models import Player
from tournaments import suspensions

register = template.Library()


@register.inclusion_tag("players/_suspensions.html", takes_context=True)
def account_suspensions(context):
    user = context["request"].user
    found = []
    for player in Player.objects.filter(user=user) if user.is_authenticated else []:
        found += list(suspensions.visible_to(player, user))
    return {"suspensions": found, "is_me": True}

"""The player's side of the account page: their player, their events, claim codes and
their entries in progress (an inclusion tag: the account page knows nothing of players)."""

from django import template

from players import selectors

register = template.Library()


@register.inclusion_tag("players/_account_body.html", takes_context=True)
def account_players(context):
    request = context["request"]
    user = request.user
    player = selectors.own_player(user)
    return {
        "request": request,
        "csrf_token": context.get("csrf_token"),
        "own_player": player,
        "events": selectors.player_events(player, user) if player else [],
        "applications": list(selectors.open_applications(user)),
        "user": user,
    }

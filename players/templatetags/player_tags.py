"""The player's side of the account page: their player, their events, claim codes, their
entries in progress, the merges asked for or waiting for them to confirm, and the record
of acts on who they are (an inclusion tag: the account page knows nothing of players)."""

from django import template

from players import entries as entry_requests
from players import identity, selectors

register = template.Library()


@register.inclusion_tag("players/_account_body.html", takes_context=True)
def account_players(context):
    request = context["request"]
    user = request.user
    player = selectors.own_player(user)
    asked = [
        (one, "expired" if entry_requests.expired(one) else one.answer)
        for one in entry_requests.requests_of(user)
    ]
    return {
        "request": request,
        "csrf_token": context.get("csrf_token"),
        "own_player": player,
        "events": selectors.player_events(player, user) if player else [],
        "applications": list(selectors.open_applications(user)),
        "entry_requests": asked,
        "entry_requests_pending": any(answer == "pending" for _, answer in asked),
        "merges": [
            (asked, identity.may_confirm(user, asked))
            for asked in selectors.merge_requests(user).order_by("-created_at", "-pk")[:20]
        ],
        "acts": list(selectors.identity_acts(user)[:20]),
        "user": user,
    }

"""Links from a game's pages back to the tournament table it is played at."""

from django.urls import reverse
from django.utils.translation import gettext

from tournaments.models import Match


def links_of_game(game) -> list[tuple[str, str]]:
    match = Match.objects.filter(game=game).select_related("round__stage__tournament").first()
    if match is None:
        return []
    round_ = match.round
    tournament = round_.stage.tournament
    url = reverse("tournament-page", args=[tournament.slug])
    return [
        (tournament.name, url),
        (
            gettext("%(stage)s, round %(round)s, table %(table)s")
            % {"stage": round_.stage.name, "round": round_.number, "table": match.table_number},
            f"{url}?stage={round_.stage.order}&round={round_.number}#table-{match.table_number}",
        ),
    ]

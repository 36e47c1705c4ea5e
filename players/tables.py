"""Each player's table in a round, for the email when it is published and their page."""

from django.db.models import Prefetch

from jobs import runner
from players import notices
from tournaments.models import Match, MatchSeat, Round


def seated(round_: Round):
    """The round's tables with their seats, entrants and the entrants' players (two queries)."""
    seats = MatchSeat.objects.select_related(
        "entrant__player__user", "entrant__partner__user"
    ).order_by("position")
    return (
        Match.objects.filter(round=round_)
        .select_related("round__stage__tournament")
        .prefetch_related(Prefetch("seats", queryset=seats))
        .order_by("table_number")
    )


def tell_tables(round_: Round, matches=None) -> int:
    """Write every seated player with an email address their table (sent after commit,
    asked of the runner together): at every table of the round, or only at ``matches``
    (tables seated later)."""
    written = []
    tables = seated(round_)
    if matches is not None:
        tables = tables.filter(pk__in=[match.pk for match in matches])
    for match in tables:
        names = [seat.entrant.name for seat in match.seats.all()]
        tournament = match.round.stage.tournament
        for seat in match.seats.all():
            for player in (seat.entrant.player, seat.entrant.partner):
                if player is None or player.user is None:
                    continue
                context = {
                    "tournament": tournament,
                    "round": round_,
                    "match": match,
                    "names": names,
                    "url": notices.tournament_url(tournament),
                }
                notice = notices.write(player.user, "table", context)
                if notice is not None:
                    written.append(notice.pk)
    runner.request_all_on_commit("notice", written)
    return len(written)


def my_table(round_: Round | None, entrant) -> Match | None:
    if round_ is None or entrant is None:
        return None
    return (
        Match.objects.filter(round=round_, seats__entrant=entrant)
        .prefetch_related(Prefetch("seats", queryset=MatchSeat.objects.select_related("entrant")))
        .first()
    )

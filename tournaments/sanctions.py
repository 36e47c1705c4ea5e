"""Sanctions on an entrant and the event's officiating record (RULES.md, Officiating).

A disqualified entrant keeps its played results, forfeits its unplayed games and is not
paired again (it is withdrawn, with the reason shown publicly). The audit list is every
officiating act of the event's games and of its entrants, newest first.
"""

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.permissions import require
from domain.say import say
from jobs import runner
from scoring.audit import record_act
from scoring.models import Dispute, Game, OfficialAct
from scoring.officiating import forfeit_seat
from scoring.rulesets import ScoringError
from tournaments.models import Entrant, MatchSeat, Tournament
from tournaments.read import live
from tournaments.services import TournamentConflict


def scope_of(tournament: Tournament) -> str:
    """How an act on one of the event's entrants names the event."""
    return f"tournament:{tournament.pk}"


def seat_of(game: Game, position: int) -> str:
    """The seat that plays for the entrant in match position ``position``: side i's
    first seat (a team's first player)."""
    return sorted(game.totals)[position].split("+")[0]


def disqualify(entrant: Entrant, *, reason: str, by) -> Entrant:
    """Disqualify ``entrant``: withdrawn with the reason, every game of theirs not
    finished forfeited (a table still in draft is left to be paired again)."""
    reason = (reason if isinstance(reason, str) else "").strip()[:500]
    if not reason:
        raise ScoringError(say("Say why the entrant is disqualified."), "reason")
    with transaction.atomic():
        entrant = Entrant.objects.select_for_update().get(pk=entrant.pk)
        tournament = entrant.tournament
        require(by, "tournament.manage", tournament)
        if entrant.disqualified_at is not None:
            raise TournamentConflict(
                say("{name} is already disqualified.", name=entrant.name), "entrant"
            )
        now = timezone.now()
        entrant.withdrawn = True
        entrant.withdrawn_at = entrant.withdrawn_at or now
        entrant.disqualified_at = now
        entrant.disqualified_reason = reason
        entrant.save(
            update_fields=["withdrawn", "withdrawn_at", "disqualified_at", "disqualified_reason"]
        )
        unplayed = (
            MatchSeat.objects.filter(entrant=entrant, match__game__isnull=False)
            .exclude(match__game__status=Game.Status.FINISHED)
            .exclude(match__game__held=True)
            .select_related("match__game")
        )
        forfeited = []
        for seat in unplayed:
            game = seat.match.game
            forfeit_seat(game, seat_of(game, seat.position), reason, by)
            forfeited.append(game.pk)
        record_act(
            OfficialAct.Kind.DISQUALIFIED,
            by=by,
            scope=scope_of(tournament),
            subject=entrant.name,
            reason=reason,
            entrant=entrant.pk,
            forfeited_games=forfeited,
        )
        tournament_id = tournament.pk

        def forget():
            live.forget_tournament(tournament_id)
            runner.request("standings", tournament_id)  # the line is marked disqualified

        transaction.on_commit(forget)
    return entrant


def audit_acts(tournament: Tournament) -> QuerySet:
    """Every officiating act of the event, newest first."""
    return (
        OfficialAct.objects.filter(
            Q(game__match__round__stage__tournament=tournament) | Q(scope=scope_of(tournament))
        )
        .select_related("actor", "game__match__round__stage")
        .order_by("-at", "-pk")
    )


def open_disputes(tournament: Tournament) -> QuerySet:
    """The event's disputes waiting for an organizer, oldest first."""
    return (
        Dispute.objects.filter(
            status=Dispute.Status.OPEN, game__match__round__stage__tournament=tournament
        )
        .select_related("game__match__round__stage", "opened_by")
        .prefetch_related("photos")
        .order_by("pk")
    )

"""Seats that do not play: a no-show or a forfeit recorded at a table, and a bracket's
walkovers.

A seat that does not play ends its game as a forfeit (RULES.md, Officiating: the
forfeiting seat is placed last whatever its total, the others by total); the seat keeps
why (``MatchSeat.did_not_play``) for the pages, the standings and the exports. In a
bracket, a table where nobody is left to beat is a walkover: it gets no game, and whoever
came goes through.
"""

from django.db import transaction

from accounts.permissions import require
from domain.say import say
from scoring.models import SEAT_NAMES
from tournaments.models import Entrant, Match, MatchSeat, Round, Stage
from tournaments.services.common import (
    TournamentConflict,
    TournamentError,
    _forget_live_parts,
)


def record_did_not_play(seat: MatchSeat, *, by, reason: str, note: str = "") -> MatchSeat:
    """Record that the entrant at ``seat`` did not play its table (a no-show, a withdrawal,
    a disqualification or another reason): its game ends as their forfeit."""
    from scoring.officiating import forfeit_seat

    if reason not in MatchSeat.DidNotPlay.values:
        raise TournamentError(
            say("Say why: one of {choices}.", choices=", ".join(MatchSeat.DidNotPlay.values)),
            "reason",
        )
    note = " ".join((note or "").split())[:300] if isinstance(note, str) else ""
    with transaction.atomic():
        seat = (
            MatchSeat.objects.select_for_update()
            .select_related("match__round__stage__tournament", "entrant")
            .get(pk=seat.pk)
        )
        match = seat.match
        tournament = match.round.stage.tournament
        require(by, "tournament.manage", tournament)
        if match.bye or match.game_id is None:
            raise TournamentConflict(say("Nothing is played at this table."), "match")
        if match.round.status == Round.Status.DRAFT:
            raise TournamentConflict(
                say("Round {number} is not published yet.", number=match.round.number), "round"
            )
        if seat.did_not_play:
            raise TournamentConflict(
                say("{name} is already recorded as not playing here.", name=seat.entrant.name),
                "entrant",
            )
        label = MatchSeat.DidNotPlay(reason).label
        # The game keeps the reason in English words, as every officiating act does.
        written = f"{label}: {note}" if note else str(label)
        forfeit_seat(match.game_id, SEAT_NAMES[seat.position], written, by)
        seat.did_not_play = reason
        seat.save(update_fields=["did_not_play"])
        _forget_live_parts(tournament.pk)
    return seat


def forfeit_unplayed(entrant: Entrant, *, by, reason: str) -> list[MatchSeat]:
    """Every unfinished game of ``entrant`` at a published table ends as their forfeit,
    with ``reason`` kept on the seat (a withdrawal); games already played stay."""
    from scoring.models import Game

    seats = (
        MatchSeat.objects.filter(entrant=entrant, match__game__isnull=False, did_not_play="")
        .exclude(match__game__status=Game.Status.FINISHED)
        .exclude(round__status=Round.Status.DRAFT)
        .order_by("pk")
    )
    return [record_did_not_play(seat, by=by, reason=reason) for seat in seats]


def absent(stage: Stage, entrant: Entrant) -> bool:
    """Whether ``entrant`` cannot sit at a table of ``stage`` now: withdrawn, or not
    checked in where the stage requires it."""
    return entrant.withdrawn or (stage.check_in_required and not entrant.checked_in)


def walkover_reason(stage: Stage, entrant: Entrant) -> str:
    return MatchSeat.DidNotPlay.WITHDRAWN if entrant.withdrawn else MatchSeat.DidNotPlay.NO_SHOW


def is_walkover(stage: Stage, table, entrants: list[Entrant]) -> bool:
    """A bracket table where no more than ``advance`` of its entrants can play: it is not
    played, and those who came go through."""
    from tournaments.services.pairing import engine_of

    if not engine_of(stage).advances or table.bye or not table.slot:
        return False
    if not any(absent(stage, e) for e in entrants):
        return False
    present = [e for e in entrants if not absent(stage, e)]
    return len(present) <= stage.settings.get("advance", 1)


def walkover_results(stage: Stage) -> dict[str, list[int]]:
    """Walkover slots of a bracket: slot → entrant ids, those who came first."""
    results: dict[str, list[int]] = {}
    walkovers = (
        Match.objects.filter(round__stage=stage, bye=False, game=None)
        .exclude(slot="")
        .prefetch_related("seats")
    )
    for match in walkovers:
        seats = sorted(match.seats.all(), key=lambda s: (bool(s.did_not_play), s.position))
        results[match.slot] = [s.entrant_id for s in seats]
    return results

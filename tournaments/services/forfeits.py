"""Seats that do not play: a no-show or a forfeit recorded at a table, and a bracket's
walkovers.

A seat that does not play ends its game as a forfeit (RULES.md, Officiating: the
forfeiting seat is placed last whatever its total, the others by total); the seat keeps
why (``MatchSeat.did_not_play``) for the pages, the standings and the exports. In a
bracket, a table where nobody is left to beat is a walkover: it gets no game, and whoever
came goes through.
"""

from django.db import transaction
from django.utils import translation

from accounts.permissions import require
from domain.say import say
from scoring.models import SEAT_NAMES, Game, Seat
from scoring.officiating import forfeit_seat
from scoring.rulesets import PRESETS
from scoring.services import create_game
from tournaments.models import Entrant, MatchSeat, Round, Stage
from tournaments.services.common import (
    TournamentConflict,
    TournamentError,
    forget_live_parts,
    game_seats,
)
from tournaments.stage_facts import is_bracket


def record_did_not_play(seat: MatchSeat, *, by, reason: str, note: str = "") -> MatchSeat:
    """Record that the entrant at ``seat`` did not play its table (a no-show, a withdrawal,
    a disqualification or another reason): its game ends as their forfeit."""
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
        # The game keeps the reason in English words, as every officiating act does
        # (whatever the organizer's language: the audit list says it in the reader's).
        with translation.override("en"):
            label = str(MatchSeat.DidNotPlay(reason).label)
        written = f"{label}: {note}" if note else label
        forfeit_seat(match.game_id, SEAT_NAMES[seat.position], written, by)
        seat.did_not_play = reason
        seat.save(update_fields=["did_not_play"])
        forget_live_parts(tournament.pk)
    return seat


def forfeit_unplayed(entrant: Entrant, *, by, reason: str) -> list[MatchSeat]:
    """Every unfinished game of ``entrant`` at a published table ends as their forfeit,
    with ``reason`` kept on the seat (a withdrawal); games already played stay."""
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
    if not is_bracket(stage) or table.bye or not table.slot:
        return False
    if not any(absent(stage, e) for e in entrants):
        return False
    present = [e for e in entrants if not absent(stage, e)]
    return len(present) <= stage.settings.get("advance", 1)


# --- leaving a table that has not started ---------------------------------------------------

PLAY_ON, RESEAT, FORFEIT = "play_on", "reseat", "forfeit"
LEAVING = (PLAY_ON, RESEAT, FORFEIT)


def unstarted_seats(entrant: Entrant) -> list[MatchSeat]:
    """``entrant``'s seats at published tables whose game has not started (no hand yet)."""
    return list(
        MatchSeat.objects.filter(
            entrant=entrant,
            did_not_play="",
            match__game__status=Game.Status.SCHEDULED,
            match__game__hands__isnull=True,
        )
        .exclude(round__status=Round.Status.DRAFT)
        .select_related("match__round__stage__tournament", "match__game")
        .distinct()
        .order_by("pk")
    )


def substitutes(seat: MatchSeat) -> list[Entrant]:
    """Who may take ``seat``'s place: entrants still in the event who sit at no played
    table of that round (a bye, or not seated), checked in where the stage asks it."""
    stage = seat.match.round.stage
    seated = MatchSeat.objects.filter(round_id=seat.round_id, match__bye=False).values("entrant")
    found = stage.tournament.entrants.filter(withdrawn=False).exclude(pk__in=seated)
    if stage.check_in_required:
        found = found.filter(checked_in=True)
    return list(found.order_by("seed", "pk"))


def leaving_options(seat: MatchSeat) -> list[str]:
    """What may happen at ``seat``'s unstarted table when its entrant leaves: the others
    play on with one fewer where the rule set plays at that size, someone free takes the
    seat, or the game ends as the leaver's forfeit."""
    tournament = seat.match.round.stage.tournament
    options = []
    fewer = seat.match.seats.count() - 1
    preset = PRESETS.get(tournament.ruleset_key)
    if not tournament.is_teams and preset and fewer >= 2 and fewer in preset.players:
        options.append(PLAY_ON)
    if substitutes(seat):
        options.append(RESEAT)
    options.append(FORFEIT)
    return options


def leave_unstarted(seat: MatchSeat, *, by, how: str, substitute: Entrant | None = None) -> None:
    """The entrant at ``seat`` leaves its table before the game started, as the organizer
    chose (``LEAVING``); nobody else's game ends unless ``how`` is a forfeit."""
    if how not in LEAVING:
        raise TournamentError(
            say("Say what happens at the table: {choices}.", choices=", ".join(LEAVING)),
            "unstarted",
        )
    with transaction.atomic():
        seat = (
            MatchSeat.objects.select_for_update()
            .select_related("match__round__stage__tournament", "entrant")
            .get(pk=seat.pk)
        )
        match = seat.match
        tournament = match.round.stage.tournament
        require(by, "tournament.manage", tournament)
        game = Game.objects.select_for_update().filter(pk=match.game_id).first()
        if game is None or game.status != Game.Status.SCHEDULED or game.hands.exists():
            raise TournamentConflict(
                say("The game at table {table} has started.", table=match.table_number), "match"
            )
        if how not in leaving_options(seat):
            raise TournamentConflict(
                say(
                    "At table {table} the choices are: {choices}.",
                    table=match.table_number,
                    choices=", ".join(leaving_options(seat)),
                ),
                "unstarted",
            )
        if how == FORFEIT:
            record_did_not_play(seat, by=by, reason=MatchSeat.DidNotPlay.WITHDRAWN)
            return
        if how == RESEAT:
            if substitute is None or substitute.pk not in {e.pk for e in substitutes(seat)}:
                raise TournamentError(
                    say("Choose who takes the seat: an entrant free in this round."), "substitute"
                )
            # The substitute leaves their bye (a bye table left empty goes).
            for bye in MatchSeat.objects.filter(round_id=seat.round_id, entrant=substitute):
                bye_match = bye.match
                bye.delete()
                if not bye_match.seats.exists():
                    bye_match.delete()
            seat.entrant = substitute
            seat.save(update_fields=["entrant"])
            ordered = [
                s.entrant
                for s in match.seats.select_related("entrant__player", "entrant__partner").order_by(
                    "position"
                )
            ]
            for game_seat, player in zip(
                Seat.objects.filter(game=game).order_by("position"),
                game_seats(tournament, ordered),
                strict=True,
            ):
                game_seat.player = player
                game_seat.display_name = player.display_name
                game_seat.save(update_fields=["player", "display_name"])
        else:  # PLAY_ON: the table's game again, at its new size
            seat.delete()
            stay = list(
                match.seats.select_related("entrant__player", "entrant__partner").order_by(
                    "position"
                )
            )
            for position, kept in enumerate(stay):  # ascending: each moves to a free place
                if kept.position != position:
                    MatchSeat.objects.filter(pk=kept.pk).update(position=position)
            fresh = create_game(
                ruleset_key=game.ruleset_key,
                overrides=game.overrides,
                seats=game_seats(tournament, [s.entrant for s in stay]),
                label=game.label,
                public=game.public,
                followed=True,
                referees=list(game.referees.all()),
            )
            match.game = fresh
            match.save(update_fields=["game"])
            game.delete()
        forget_live_parts(tournament.pk)


def leave_tables(
    entrant: Entrant, *, by, unstarted: str | None = None, substitute: Entrant | None = None
) -> None:
    """A withdrawing ``entrant`` leaves every table not finished: an unstarted one as
    ``unstarted`` says (a forfeit when not said), one in play as their forfeit."""
    for seat in unstarted_seats(entrant):
        leave_unstarted(seat, by=by, how=unstarted or FORFEIT, substitute=substitute)
    forfeit_unplayed(entrant, by=by, reason=MatchSeat.DidNotPlay.WITHDRAWN)


def withdrawal_effect(entrant: Entrant):
    """What withdrawing ``entrant`` does, in words to confirm it by."""
    playing = list(
        MatchSeat.objects.filter(
            entrant=entrant,
            did_not_play="",
            match__game__status=Game.Status.IN_PROGRESS,
        )
        .exclude(round__status=Round.Status.DRAFT)
        .select_related("match")
        .order_by("pk")
    )
    unstarted = unstarted_seats(entrant)
    said = [
        say(
            "{name} leaves the event: later rounds leave them out; games already played stay.",
            name=entrant.name,
        )
    ]
    for seat in playing:
        said.append(
            say(
                "Their game in play at table {table} ends now as their forfeit: they are "
                "placed last, the others by their totals.",
                table=seat.match.table_number,
            )
        )
    for seat in unstarted:
        said.append(
            say(
                "Table {table} has not started: you choose what happens there; its game "
                "ends only if you choose their forfeit.",
                table=seat.match.table_number,
            )
        )
    return said


def disqualify_effect(entrant: Entrant):
    """What disqualifying ``entrant`` does, in words to confirm it by."""
    return say(
        "{name} is disqualified: their games not finished end as their forfeit, they are "
        "not paired again, and the reason is shown publicly.",
        name=entrant.name,
    )


def did_not_play_effect(seat: MatchSeat):
    """What recording that ``seat`` did not play does, in words to confirm it by."""
    return say(
        "The game at table {table} ends now as {name}'s forfeit: they are placed last, the "
        "others by their totals.",
        table=seat.match.table_number,
        name=seat.entrant.name,
    )

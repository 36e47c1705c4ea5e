"""The organizer's event day on the manage page: a stage's check-in, and recording a seat
that did not play. Each action goes through its service and comes back to the manage
page with a message saying what it did, or why it did not."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from domain.i18n import told
from domain.pages import refusals_said
from domain.say import say
from scoring.bounds import ID_MAX, digits
from tournaments import services
from tournaments.clock import read_local
from tournaments.models import MatchSeat, Stage
from tournaments.services.forfeits import did_not_play_effect
from tournaments.views import managed_tournament


def _back(tournament, request):
    back = reverse("manage-tournament", args=[tournament.slug])
    anchor = request.POST.get("back", "")
    return redirect(back + (f"?{anchor}" if anchor.startswith(("stage=", "round=")) else ""))


def _time(request, tournament, name: str):
    try:
        return read_local(request.POST.get(name, ""), tournament)
    except ValueError as error:
        raise services.TournamentError(
            gettext("Give a date and a time, as 2026-05-01 09:30."), name
        ) from error


@login_required
@require_POST
def stage_check_in(request, slug: str):
    """Require check-in for a stage (or not), and set its window on the event's clock."""
    tournament = managed_tournament(request, slug)

    def change():
        stage = Stage.objects.filter(
            tournament=tournament, pk=digits(request.POST.get("stage"), (1, ID_MAX)) or 0
        ).first()
        if stage is None:
            raise services.TournamentError(gettext("Choose a stage of this tournament."), "stage")
        stage = services.set_check_in(
            stage,
            by=request.user,
            required=request.POST.get("required") == "1",
            opens=_time(request, tournament, "opens"),
            closes=_time(request, tournament, "closes"),
        )
        if stage.check_in_required:
            return gettext("{name} seats only checked-in entrants.").format(name=stage.name)
        return gettext("{name} seats every entrant, checked in or not.").format(name=stage.name)

    with refusals_said(request):
        messages.success(request, change())
    return _back(tournament, request)


@login_required
@require_POST
def did_not_play(request, slug: str):
    """Record that a seated entrant did not play their table: the game is their forfeit."""
    tournament = managed_tournament(request, slug)

    def record():
        seat = (
            MatchSeat.objects.filter(
                match__round__stage__tournament=tournament,
                pk=digits(request.POST.get("seat"), (1, ID_MAX)) or 0,
            )
            .select_related("entrant", "match")
            .first()
        )
        if seat is None:
            raise services.TournamentError(gettext("Choose a seat at a table."), "seat")
        if request.POST.get("confirm") != "1":  # nothing ends until the effect is confirmed
            raise services.TournamentError(
                told(say("Nothing changed: {effect}", effect=told(did_not_play_effect(seat)))),
                "confirm",
            )
        seat = services.record_did_not_play(
            seat,
            by=request.user,
            reason=request.POST.get("reason", ""),
            note=request.POST.get("note", ""),
        )
        return gettext(
            "{name} did not play at table {table} ({reason}): the game is their forfeit."
        ).format(
            name=seat.entrant.name,
            table=seat.match.table_number,
            reason=seat.get_did_not_play_display().lower(),
        )

    with refusals_said(request):
        messages.success(request, record())
    return _back(tournament, request)

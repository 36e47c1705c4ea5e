"""Check-in that counts: a stage may seat only the entrants checked in, during a window
set on the event's clock."""

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts.permissions import require
from domain.say import say
from tournaments.clock import local_text
from tournaments.models import Stage, Tournament
from tournaments.services.common import (
    TournamentConflict,
    TournamentError,
    forget_live_parts,
    lock_tournament,
)

YEARS = (2000, 2999)


def set_check_in(
    stage: Stage,
    *,
    by,
    required: bool,
    opens: datetime | None = None,
    closes: datetime | None = None,
) -> Stage:
    """Say whether the stage seats only checked-in entrants, and when check-in is open
    (either end may be left open)."""
    if not isinstance(required, bool):
        raise TournamentError(say("Check-in required is yes or no."), "check_in_required")
    for value, field in ((opens, "check_in_opens"), (closes, "check_in_closes")):
        if value is not None and (
            not isinstance(value, datetime)
            or timezone.is_naive(value)
            or not YEARS[0] <= value.year <= YEARS[1]
        ):
            raise TournamentError(
                say("Give a date and a time from {low} to {high}.", low=YEARS[0], high=YEARS[1]),
                field,
            )
    if opens is not None and closes is not None and opens >= closes:
        raise TournamentError(say("Check-in must open before it closes."), "check_in_closes")
    with transaction.atomic():
        tournament = lock_tournament(stage.tournament)
        stage = Stage.objects.select_for_update().get(pk=stage.pk)
        require(by, "tournament.manage", tournament)
        if stage.status == Stage.Status.FINISHED:
            raise TournamentConflict(say("This stage is finished."), "stage")
        stage.check_in_required = required
        stage.check_in_opens = opens
        stage.check_in_closes = closes
        stage.save(update_fields=["check_in_required", "check_in_opens", "check_in_closes"])
        forget_live_parts(tournament.pk)
    return stage


def check_in_stage(tournament: Tournament) -> Stage | None:
    """The stage whose check-in window governs now: the first one not finished, if it
    asks for check-in."""
    stage = tournament.stages.exclude(status=Stage.Status.FINISHED).order_by("order").first()
    if stage is None or not stage.check_in_required:
        return None
    return stage


def check_window(tournament: Tournament, *, now: datetime | None = None) -> None:
    """Refuse a check-in outside the current stage's window."""
    stage = check_in_stage(tournament)
    if stage is None:
        return
    now = now or timezone.now()
    if stage.check_in_opens and now < stage.check_in_opens:
        raise TournamentConflict(
            say(
                "Check-in is not open yet: it opens at {time}.",
                time=local_text(stage.check_in_opens, tournament),
            ),
            "checked_in",
        )
    if stage.check_in_closes and now >= stage.check_in_closes:
        raise TournamentConflict(
            say(
                "Check-in closed at {time}.",
                time=local_text(stage.check_in_closes, tournament),
            ),
            "checked_in",
        )

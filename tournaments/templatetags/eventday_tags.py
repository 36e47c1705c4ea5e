"""The event-day panel of the manage page: a stage's check-in and the seats that did not
play in the round shown."""

from django import template
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_noop

from tournaments import clock
from tournaments.models import Entrant, MatchSeat, Round
from tournaments.services.checkin import check_in_stage

register = template.Library()


def window_state(stage, tournament, now=None) -> str:
    """``open``, ``not_yet`` or ``closed`` for a stage's check-in window."""
    now = now or timezone.now()
    if stage.check_in_opens and now < stage.check_in_opens:
        return "not_yet"
    if stage.check_in_closes and now >= stage.check_in_closes:
        return "closed"
    return "open"


@register.simple_tag
def check_in_refused(tournament) -> bool:
    """Whether a check-in now falls outside the window (the page then offers to check in
    anyway)."""
    stage = check_in_stage(tournament)
    return stage is not None and window_state(stage, tournament) != "open"


@register.inclusion_tag("tournaments/organize/_event_day.html", takes_context=True)
def event_day(context, tournament, stage, round_=None, oob=False):
    """``oob``: the panel sent beside a part answered in place, to replace the one shown."""
    if stage is None:
        return {"stage": None}
    active = Entrant.objects.filter(tournament=tournament, withdrawn=False)
    members = stage.entrants.filter(withdrawn=False)
    if members.exists():
        active = members
    seats, absent, missing = [], [], []
    if round_ is not None:
        seats = list(
            MatchSeat.objects.filter(round=round_)
            .select_related("entrant", "match__game")
            .order_by("match__table_number", "position")
        )
        seated = {seat.entrant_id for seat in seats}
        missing = [e for e in active.order_by("seed") if e.pk not in seated]
    open_seats = [
        seat
        for seat in seats
        if not seat.did_not_play
        and seat.match.game is not None
        and round_.status != Round.Status.DRAFT
        and (seat.match.game.status != "finished" or getattr(seat.match.game, "forfeits", ""))
    ]
    absent = [seat for seat in seats if seat.did_not_play]
    return {
        "csrf_token": context.get("csrf_token"),
        "tournament": tournament,
        "stage": stage,
        "round": round_,
        "zone": clock.zone(tournament).key,
        "opens_value": clock.input_value(stage.check_in_opens, tournament),
        "closes_value": clock.input_value(stage.check_in_closes, tournament),
        "opens_text": clock.local_text(stage.check_in_opens, tournament),
        "closes_text": clock.local_text(stage.check_in_closes, tournament),
        "state": window_state(stage, tournament),
        "checked_in": active.filter(checked_in=True).count(),
        "active": active.count(),
        "missing": missing,
        "open_seats": open_seats,
        "absent": absent,
        "reasons": MatchSeat.DidNotPlay.choices,
        "oob": oob,
    }


# Reasons the code writes into the record in English words (a game keeps its acts so):
# said in the reader's language when shown; a reason someone typed is shown as typed.
WRITTEN_REASONS = (gettext_noop("undone"), gettext_noop("undone by referee"))


@register.filter
def reason_said(text: str) -> str:
    """A stored officiating reason in the active language: the words the code wrote
    ("undone by referee", "No-show: ..." before an organizer's note), the rest as typed."""
    if not text:
        return text
    if text in WRITTEN_REASONS:
        return gettext(text)
    with translation.override("en"):
        english = {str(label): label for _, label in MatchSeat.DidNotPlay.choices}
    said, colon, note = text.partition(": ")
    if said in english:
        return f"{english[said]}{colon}{note}"
    return text


@register.filter
def event_time(moment, tournament) -> str:
    """A time on the event's clock, in the one format its pages use, with the zone named
    (``2026-11-24 18:00 (America/Puerto_Rico)``)."""
    return clock.local_text(moment, tournament)

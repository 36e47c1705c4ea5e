"""The officiating parts of the scoring page: the play clock with its violation, forced
pass and penalty buttons, the leader question, re-deals, disputes, forfeits and
deductions.

The actions the phone's outbox sends (``OUTBOX_ACTIONS``: they score or change the hand
in progress) carry an idempotency key and are answered like the scoring panel's own
actions (``scoring.views._answer``): the panel, with what happened in its data and the
outcome in a header, so that the page never moves. A dispute (with its photos) and a
forfeit answer htmx with the officiating part. A plain form post gets the scoring page.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import FileResponse, Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from accounts.idempotency import claim
from accounts.permissions import allowed
from domain.pages import refusals_kept
from domain.say import say
from scoring import officiating, services
from scoring.bounds import digits
from scoring.forms import in_names
from scoring.models import DisputePhoto, ScoreEvent
from scoring.views import _answer, _scorable

# The part each action belongs to, and whether only organizers take it.
CLOCK_ACTIONS = {"clock_violation", "forced_pass", "penalty"}
ACTIONS = CLOCK_ACTIONS | {"leader", "redeal", "dispute", "forfeit", "deduct"}
MANAGER_ACTIONS = {"forfeit", "deduct"}
# Sent through the phone's outbox, with a key, and answered with the scoring panel.
OUTBOX_ACTIONS = CLOCK_ACTIONS | {"leader", "redeal", "deduct"}


def _number(text, bounds=(1, 500)) -> int | None:
    return digits(text, bounds) if isinstance(text, str) else None


def _run(request, game, action: str) -> str:
    """Carry out ``action`` from the posted form; the message for the referee."""
    post = request.POST
    seat = post.get("seat", "")
    labels = {s.name: s.display_name for s in game.seats.all()}
    who = labels.get(seat, seat)
    if action in CLOCK_ACTIONS:
        points = _number(post.get("points", "")) if action == "penalty" else None
        note = post.get("reason", "").strip()[:300]
        (event,) = services.add_score_event(
            game,
            by=request.user,
            hand=game.hand_count + 1,
            seat=seat,
            kind=action,
            points=points if allowed(request.user, "game.manage", game) else None,
            note=note,
        )
        if event.kind == ScoreEvent.Kind.FORCED_PASS:
            return gettext("Forced pass for {name}.").format(name=who)
        return gettext("Penalty for {name}: {points}.").format(name=who, points=event.points)
    if action == "leader":
        officiating.set_leader(game, by=request.user, seat=seat)
        return gettext("{name} leads hand {number}.").format(name=who, number=game.hand_count + 1)
    if action == "redeal":
        officiating.redeal(game, by=request.user, reason=post.get("reason", ""))
        return gettext("Re-deal of hand {number}: nothing was scored.").format(
            number=game.hand_count + 1
        )
    if action == "dispute":
        given = post.get("hand", "")
        hand = _number(given)
        if given and hand is None:
            raise services.ScoringError(
                say("This game has no hand {number}.", number=given[:12]), "hand"
            )
        officiating.open_dispute(
            game,
            by=request.user,
            note=post.get("note", ""),
            hand=hand,
            photos=request.FILES.getlist("photos"),
        )
        return gettext("Dispute opened: an organizer will settle it. Play goes on.")
    if action == "forfeit":
        officiating.forfeit_seat(game, seat, post.get("reason", ""), request.user)
        return gettext("{name} forfeits the game.").format(name=who)
    points = _number(post.get("points", ""))
    if points is None:
        raise services.ScoringError(say("Say how many points to deduct."), "points")
    officiating.deduct_points(
        game, seat=seat, points=points, reason=post.get("reason", ""), by=request.user
    )
    return gettext("{points} points deducted from {name}.").format(points=points, name=who)


@login_required
@require_POST
def officiate(request, pk: int, action: str):
    if action not in ACTIONS:
        raise Http404
    game = _scorable(request, pk)
    if action in MANAGER_ACTIONS and not allowed(request.user, "game.manage", game):
        raise PermissionDenied(gettext("Only the event's organizers may do that."))
    labels = {s.name: s.display_name for s in game.seats.all()}
    notice = error = ""
    key = request.POST.get("key", "")
    what = f"officiate {game.pk} {action} {sorted(request.POST.items())}"
    try:
        with refusals_kept() as refused, transaction.atomic():
            if action in OUTBOX_ACTIONS and not claim(request.user, key, what):
                notice = gettext("Already done; nothing was done twice.")
            else:
                notice = _run(request, game, action)
        error = in_names(refused.text, labels)
    except PermissionDenied:
        error = gettext("Only the event's organizers may do that.")
    if not request.htmx:
        (messages.success if notice else messages.error)(request, notice or error)
        return redirect(reverse("score-game", args=[game.pk]))
    if action in OUTBOX_ACTIONS:
        return _answer(request, game, notice=notice, error=error)
    game.refresh_from_db()
    response = render(
        request,
        "scoring/_officiating.html",
        {"game": game, "officiating_notice": notice, "officiating_error": error},
    )
    # The phone's script shows the scoring panel afresh (a forfeit ends the game).
    response["HX-Trigger"] = "capicu:officiated"
    return response


@login_required
def dispute_photo(request, pk: int, photo_id: int):
    """A dispute's photo, for those who may score or manage its game (never public)."""
    game = _scorable(request, pk)
    photo = DisputePhoto.objects.filter(pk=photo_id, dispute__game=game).first()
    if photo is None:
        raise Http404
    try:
        handle = photo.image.open("rb")
    except OSError as missing:
        raise Http404 from missing
    response = FileResponse(handle, content_type=photo.content_type)
    response["Cache-Control"] = "private, max-age=3600"
    response["X-Content-Type-Options"] = "nosniff"
    return response

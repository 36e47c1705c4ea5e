"""The organizers' officiating pages: settle disputes, disqualify entrants and read the
event's audit list. Each write is one service call (``scoring.officiating``,
``tournaments.sanctions``); a refusal comes back as a message on the manage page."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from domain.errors import DomainError
from domain.pages import refusals_said
from scoring import officiating
from scoring.bounds import ID_MAX, digits
from scoring.models import Dispute
from tournaments import sanctions
from tournaments.models import Entrant
from tournaments.services.forfeits import disqualify_effect
from tournaments.views import managed_tournament

PIPS = (0, 400)


def _back(tournament):
    return redirect(reverse("manage-tournament", args=[tournament.slug]) + "#disputes")


def _correction(post, dispute: Dispute) -> dict | None:
    """The corrected hand the organizer typed in with an upheld dispute, if any."""
    ended = post.get("ended", "")
    if ended not in ("domino", "block") or dispute.hand_number is None:
        return None
    hand = dispute.game.hands.filter(number=dispute.hand_number, is_current=True).first()
    if hand is None:
        return None
    pips = {}
    for seat in dispute.game.seats.all():
        value = digits(post.get(f"pips_{seat.name}", ""), PIPS)
        pips[seat.name] = value if value is not None else hand.pips.get(seat.name, 0)
    return {
        "expected_version": hand.version,
        "ended": ended,
        "domino_by": post.get("domino_by") or None if ended == "domino" else None,
        "pips": pips,
        "leader": hand.leader or None,
    }


@login_required
@require_POST
def resolve(request, slug: str, pk: int):
    tournament = managed_tournament(request, slug)
    dispute = (
        Dispute.objects.filter(pk=pk, game__match__round__stage__tournament=tournament)
        .select_related("game")
        .first()
    )
    if dispute is None:
        raise Http404
    upheld = request.POST.get("outcome") == "upheld"
    with refusals_said(request):
        officiating.resolve_dispute(
            dispute,
            by=request.user,
            upheld=upheld,
            reason=request.POST.get("reason", ""),
            correction=_correction(request.POST, dispute) if upheld else None,
        )
        messages.success(
            request,
            gettext("Dispute upheld.") if upheld else gettext("Dispute dismissed."),
        )
    return _back(tournament)


@login_required
@require_POST
def disqualify(request, slug: str):
    tournament = managed_tournament(request, slug)
    pk = digits(request.POST.get("entrant", ""), (1, ID_MAX))
    entrant = Entrant.objects.filter(pk=pk, tournament=tournament).first() if pk else None
    if entrant is None:
        raise Http404
    with refusals_said(request):
        if request.POST.get("confirm") != "1":  # nothing changes until the effect is confirmed
            raise DomainError(disqualify_effect(entrant), "confirm")
        sanctions.disqualify(entrant, reason=request.POST.get("reason", ""), by=request.user)
        messages.success(request, gettext("{name} is disqualified.").format(name=entrant.name))
    return redirect(reverse("manage-tournament", args=[tournament.slug]) + "#sanctions")


@login_required
def audit(request, slug: str):
    tournament = managed_tournament(request, slug)
    acts = list(sanctions.audit_acts(tournament)[:500])
    return render(
        request, "tournaments/organize/audit.html", {"tournament": tournament, "acts": acts}
    )

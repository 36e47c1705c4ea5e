"""The organizer's "Seed by rating" button on an event's manage page."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from circuit.services.common import CircuitError
from circuit.services.seeding import seed_by_rating
from domain.i18n import told
from tournaments.views import managed_tournament


@login_required
@require_POST
def seed_event_by_rating(request, slug: str):
    tournament = managed_tournament(request, slug)
    try:
        ranked = seed_by_rating(tournament, by=request.user)
    except CircuitError as error:
        messages.error(request, told(error.message))
    else:
        messages.success(
            request, gettext("Seeds given by rating to {count} entrants.").format(count=len(ranked))
        )
    return redirect("manage-tournament", slug=tournament.slug)

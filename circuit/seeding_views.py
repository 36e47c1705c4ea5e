"""The organizer's "Seed by rating" button on an event's manage page."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from circuit.services.seeding import seed_by_rating
from domain.pages import refusals_said
from tournaments.views import managed_tournament


@login_required
@require_POST
def seed_event_by_rating(request, slug: str):
    tournament = managed_tournament(request, slug)
    with refusals_said(request):
        ranked = seed_by_rating(tournament, by=request.user)
        messages.success(
            request, gettext("Seeds given by rating to {count} entrants.").format(count=len(ranked))
        )
    return redirect("manage-tournament", slug=tournament.slug)

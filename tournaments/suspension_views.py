"""The organizer's suspension page for one entrant of their event: record a suspension
of its player under the code of conduct, see the ones they recorded, and lift one."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext

from domain.pages import refusals_kept
from domain.say import say
from scoring.bounds import ID_MAX, digits
from tournaments import suspensions
from tournaments.models import Entrant, Suspension
from tournaments.services.common import TournamentError
from tournaments.views import managed_tournament


@login_required
def suspension_page(request, slug: str, pk: int):
    tournament = managed_tournament(request, slug)
    entrant = (
        Entrant.objects.filter(tournament=tournament, pk=pk)
        .select_related("player", "partner")
        .first()
    )
    if entrant is None:
        raise Http404
    members = suspensions.players_of(entrant)
    series = list(suspensions.series_choices(request.user))
    error, values = "", {}
    if request.method == "POST":
        values = request.POST
        with refusals_kept() as refused:
            lifting = digits(request.POST.get("lift"), (1, ID_MAX))
            if lifting is not None:
                found = Suspension.objects.filter(
                    pk=lifting, player__in=members, organizer=request.user
                ).first()
                if found is None:
                    raise Http404
                suspensions.lift(found, by=request.user, tournament=tournament)
                messages.success(request, gettext("The suspension is lifted."))
            else:
                chosen = digits(request.POST.get("player"), (1, ID_MAX))
                player = next((p for p in members if p.pk == chosen), members[0])
                series_id = digits(request.POST.get("series"), (1, ID_MAX))
                in_series = next((s for s in series if s.pk == series_id), None)
                if request.POST.get("series") and in_series is None:
                    raise TournamentError(say("Choose a series you run."), "series")
                suspensions.suspend(
                    entrant,
                    by=request.user,
                    player=player,
                    starts_on=request.POST.get("starts_on", ""),
                    ends_on=request.POST.get("ends_on", ""),
                    reason=request.POST.get("reason", ""),
                    series=in_series,
                )
                messages.success(
                    request,
                    gettext("{name} is suspended.").format(name=player.display_name),
                )
            return redirect(reverse("manage-suspension", args=[tournament.slug, entrant.pk]))
        error = refused.text
    recorded = []
    for player in members:
        recorded += list(suspensions.visible_to(player, request.user))
    return render(
        request,
        "tournaments/organize/suspension.html",
        {
            "tournament": tournament,
            "entrant": entrant,
            "members": members,
            "series": series,
            "recorded": recorded,
            "error": error,
            "values": values,
        },
        status=400 if error else 200,
    )

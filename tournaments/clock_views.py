"""The organizer's round clock controls on the manage page: the stage's time limit and
starting, pausing, resuming or extending a round's clock (tournaments/round_clock.py)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from domain.pages import refusals_said
from tournaments import round_clock
from tournaments.models import Round, Stage
from tournaments.views import managed_tournament


def _back(tournament, stage: Stage, round_: Round | None = None):
    query = f"?stage={stage.order}" + (f"&round={round_.number}" if round_ else "")
    return redirect(
        reverse("manage-tournament", args=[tournament.slug]) + query + "#round-clock-admin"
    )


@login_required
@require_POST
def stage_clock(request, slug: str, order: int):
    """Set or remove the stage's round time limit."""
    tournament = managed_tournament(request, slug)
    stage = Stage.objects.filter(tournament=tournament, order=order).first()
    if stage is None:
        raise Http404
    minutes = request.POST.get("minutes", "").strip()
    with refusals_said(request):
        round_clock.set_stage_clock(
            stage,
            by=request.user,
            minutes=minutes or None,
            hands_after_time=request.POST.get("hands_after_time", "0").strip() or 0,
            starts=request.POST.get("starts", "publish"),
        )
        messages.success(
            request,
            gettext("Rounds of this stage now last {minutes} minutes.").format(minutes=minutes)
            if minutes
            else gettext("Rounds of this stage have no time limit now."),
        )
    return _back(tournament, stage)


DONE = {
    "start": lambda: gettext("The round clock is running."),
    "pause": lambda: gettext("The round clock is paused."),
    "resume": lambda: gettext("The round clock is running again."),
    "extend": lambda: gettext("The round has more time."),
}


@login_required
@require_POST
def round_clock_action(request, slug: str, order: int, number: int):
    """Start, pause, resume or extend a published round's clock."""
    tournament = managed_tournament(request, slug)
    round_ = Round.objects.filter(
        stage__tournament=tournament, stage__order=order, number=number
    ).first()
    if round_ is None:
        raise Http404
    action = request.POST.get("action", "")
    if action not in round_clock.ACTIONS:
        messages.error(request, gettext("Choose what to do with the clock."))
        return _back(tournament, round_.stage, round_)
    extra = {"minutes": request.POST.get("minutes", "").strip()} if action == "extend" else {}
    with refusals_said(request):
        round_clock.ACTIONS[action](round_, by=request.user, **extra)
        messages.success(request, DONE[action]())
    return _back(tournament, round_.stage, round_)

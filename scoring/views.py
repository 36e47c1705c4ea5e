"""Game pages: the public hand-by-hand page and the referee's scoring page for a phone.

Every write goes through ``scoring.services``; these views only read forms, call a
service and say what happened. The scoring page answers htmx requests with its panel
alone and plain form posts with the whole page, so it works without JavaScript too.
"""

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.staticfiles import finders
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Case, IntegerField, Value, When
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from accounts.idempotency import claim
from accounts.permissions import allowed
from domain.live import Viewer, live_answer
from domain.pages import refusal_text, refusals_answered, refusals_in, refusals_kept
from scoring import officiating, services, wording
from scoring.bounds import MAX_PLAY_POINTS, MOST_PLAY_POINTS, PLAY_POINTS_STEP
from scoring.forms import CorrectionForm, EventForm, HandForm, ReopenForm, in_names
from scoring.live import GameQuestion, sheet_context
from scoring.models import Game, Hand, ScoreEvent
from scoring.rulesets import RuleSet, ScoringError
from scoring.selectors import game_sheet, preview_hand, ruleset_of


def in_play_buttons(ruleset: RuleSet) -> list[int]:
    """+5 up to the most the open ends can show: 35 with one set, 40 with two."""
    if not ruleset.in_play_scoring:
        return []
    most = MAX_PLAY_POINTS.get(ruleset.boxes, MOST_PLAY_POINTS)
    return list(range(PLAY_POINTS_STEP, most + 1, PLAY_POINTS_STEP))


def _viewable(request, pk: int) -> Game:
    game = get_object_or_404(Game, pk=pk)
    if not allowed(request.user, "game.view", game):
        raise Http404("No such game.")
    return game


def _scorable(request, pk: int) -> Game:
    game = _viewable(request, pk)
    if not allowed(request.user, "game.score", game):
        raise PermissionDenied(
            gettext("Only this table's referees and the event's organizers score it.")
        )
    return game


def game_page(request, pk: int):
    """Public: every hand, the running totals and a chart; refreshes itself while live.

    The page and its poll ask the live answer (``scoring.live.answer_game``): the poll
    carries the revision it shows and is answered 204 after one cache read while the game
    is unchanged and everyone may see it, else with the live part, rendered once per
    revision and language for every viewer."""
    question = GameQuestion.of(pk, request)
    answer = live_answer(question, Viewer.of(request))
    if answer is None:
        raise Http404("No such game.")
    if question.since is None:
        context = sheet_context(answer.game)
        context["can_score"] = allowed(request.user, "game.score", answer.game)
        response = HttpResponse(render_to_string("scoring/game.html", context, request))
    elif answer.html is None:
        return HttpResponse(status=204)
    else:
        response = HttpResponse(answer.html)
    response["ETag"] = answer.etag
    return response


@login_required
def my_tables(request):
    """The games this referee is assigned to: those in play first, then those to come."""
    games = (
        Game.objects.filter(referees=request.user)
        .annotate(
            order=Case(
                When(status=Game.Status.IN_PROGRESS, then=Value(0)),
                When(status=Game.Status.SCHEDULED, then=Value(1)),
                default=Value(2),
                output_field=IntegerField(),
            )
        )
        .select_related("match__round__stage__tournament")
        .prefetch_related("sides", "seats")
        .order_by("order", "-updated_at", "pk")
    )
    rows = []
    for game in games:
        seats = {seat.name: seat.display_name for seat in game.seats.all()}
        rows.append(
            {
                "game": game,
                "sides": [
                    {
                        "label": " & ".join(seats[n] for n in side.name.split("+")),
                        "total": game.total_of(side.name),
                    }
                    for side in game.sides.all()
                ],
            }
        )
    return render(request, "scoring/my_tables.html", {"rows": rows})


# --- the scoring page ------------------------------------------------------------------


def _panel_context(
    game: Game, *, form: HandForm | None = None, notice: str = "", error="", user=None
):
    context = sheet_context(game)
    sheet = context["sheet"]
    ruleset = sheet.ruleset
    number = game.hand_count + 1
    expected = _expected_leader(game, ruleset, [seat.name for seat in sheet.seats])
    if form is None:
        form = HandForm(
            seats=sheet.seats, ruleset=ruleset, leader=expected, initial={"number": number}
        )
    events = list(
        ScoreEvent.objects.filter(game=game, hand_number=number, active=True)
        .exclude(kind=ScoreEvent.Kind.STOLEN)
        .select_related("seat")
        .order_by("pk")
    )
    context.update(
        form=form,
        number=number,
        events=events,
        ruleset=ruleset,
        in_play_buttons=in_play_buttons(ruleset),
        # Whom a steal takes from when the referee names nobody (engine.steal_victim).
        previous_seat={
            seat.name: sheet.seats[index - 1].display_name for index, seat in enumerate(sheet.seats)
        },
        most_play_points=MAX_PLAY_POINTS.get(ruleset.boxes, MOST_PLAY_POINTS),
        event_key=_fresh_key(),
        # The leader question replaces the hand's "Led by" where it is asked.
        leader_asked=bool(
            game.status != Game.Status.FINISHED
            and not game.held
            and officiating.leader_rule(ruleset, number, expected)
        ),
        notice=notice,
        error=error,
        recent=[row for row in reversed(sheet.rows) if not row.in_progress],
        referee_words=_referee_words(),
        can_reopen=(
            game.status == Game.Status.FINISHED
            and user is not None
            and allowed(user, "game.manage", game)
        ),
        reopen_form=ReopenForm(prefix="reopen"),
    )
    return context


def _referee_words() -> dict[str, str]:
    """What the phone's script says, in the page's language ({…} are filled in there)."""
    return {
        "saving": gettext("Saving: {what}…"),
        "waiting_one": gettext("1 action not sent yet: it is sent when the connection returns."),
        "waiting_many": gettext(
            "{count} actions not sent yet: they are sent, in order, when the connection returns."
        ),
        "kept": gettext("Not sent yet: {what}. Kept on this phone; nothing is counted twice."),
        "hand_kept": gettext(
            "Hand {number} is kept on this phone and sent by itself when the connection "
            "returns; it will not be counted twice. You can go on with hand {next}."
        ),
        "refused": gettext(
            "Not saved: {what}. The server refused it: {reason} The page now shows the game "
            "as the server has it."
        ),
        "not_saved": gettext("Not saved: {what}. {reason}"),
        "hand_incomplete": gettext(
            "Not kept: say how the hand ended and fill in every player's pips first "
            "(without a connection the server cannot check the hand)."
        ),
        "dropped_one": gettext("1 later action depended on it and was not sent."),
        "dropped_many": gettext("{count} later actions depended on it and were not sent."),
        "signed_out": gettext(
            "The server did not take it (are you still logged in?). Nothing is lost: "
            "the actions wait on this phone."
        ),
        "server_error": gettext(
            "The server could not answer ({status}); it tries again by itself."
        ),
        "hand": gettext("Hand {number}"),
        "ends_scores": gettext("scores {points}: tap who played"),
        "ends_not_five": gettext("does not score: not a multiple of 5"),
        "ends_too_many": gettext("more than any play scores ({most}): check the ends"),
    }


def _expected_leader(game: Game, ruleset: RuleSet, seat_names: list[str]) -> str:
    """Who leads the next hand where the engine knows it: the game's next leader, or,
    under rotation, the seat after the last leader noted (so a hand recorded without
    "Led by" does not stop the rotation)."""
    if game.next_leader or ruleset.next_leader != "rotate":
        return game.next_leader
    noted = (
        Hand.objects.filter(game=game, is_current=True)
        .exclude(leader="")
        .order_by("-number")
        .values_list("number", "leader")
        .first()
    )
    if noted is None or noted[1] not in seat_names:
        return ""
    number, leader = noted
    steps = game.hand_count + 1 - number
    return seat_names[(seat_names.index(leader) + steps) % len(seat_names)]


def _fresh_key() -> str:
    return uuid.uuid4().hex


# The phone's outbox reads this header to tell a write that was saved (or replayed)
# from one the server refused ("refused": show the game as the server has it) or one
# with a field to fix ("invalid": the panel shows which).
OUTCOME_HEADER = "X-Capicu-Outcome"


def _answer(request, game: Game, **panel):
    """The panel for htmx, the whole page otherwise (with a status code that fits)."""
    refused = bool(panel.get("error") or (panel.get("form") and panel["form"].errors))
    status = 400 if refused else 200
    game.refresh_from_db()
    template = "scoring/_score_panel.html" if request.htmx else "scoring/score.html"
    if request.htmx and status == 400:
        status = 200  # htmx swaps only successful answers; the panel shows the problem
    response = render(
        request, template, _panel_context(game, user=request.user, **panel), status=status
    )
    invalid = bool(panel.get("form") and panel["form"].errors)
    response[OUTCOME_HEADER] = "invalid" if invalid else "refused" if refused else "saved"
    return response


def _panel_refusal(request, error, pk: int, *args, **kwargs):
    """A refusal on the scoring panel: the problem, in the players' names, above the game
    as the server has it."""
    game = get_object_or_404(Game, pk=pk)
    labels = {seat.name: seat.display_name for seat in game.seats.all()}
    return _answer(request, game, error=in_names(refusal_text(error), labels))


def service_worker(request):
    """The referee's service worker, from the site's root so that it may serve the
    scoring pages again without a connection (static/referee-sw.js)."""
    script = finders.find("referee-sw.js")
    with open(script, encoding="utf-8") as source:
        response = HttpResponse(source.read(), content_type="text/javascript")
    response["Cache-Control"] = "no-cache"
    return response


@login_required
def score_page(request, pk: int):
    game = _scorable(request, pk)
    return render(request, "scoring/score.html", _panel_context(game, user=request.user))


@login_required
@require_POST
def preview(request, pk: int):
    """The award the engine gives for the form as it stands; nothing is stored."""
    game = _scorable(request, pk)
    form = HandForm(request.POST, seats=game.seats.order_by("position"), ruleset=ruleset_of(game))
    result = problem = None
    if form.is_valid():
        with refusals_kept() as refused:
            result = preview_hand(game, **form.ending_kwargs())
        problem = in_names(refused.text, form.labels) if refused else None
    sheet = game_sheet(game)
    awards = []
    if result is not None:
        awards = [
            {"label": sheet.side_labels[name], "points": points}
            for name, points in result.awards.items()
        ]
    return render(
        request,
        "scoring/_preview.html",
        {"awards": awards, "problem": problem, "complete": form.is_valid()},
    )


@login_required
@require_POST
@refusals_answered(_panel_refusal)
def record(request, pk: int):
    game = _scorable(request, pk)
    sheet_seats = list(game.seats.order_by("position"))
    form = HandForm(request.POST, seats=sheet_seats, ruleset=ruleset_of(game))
    if not form.is_valid():
        return _answer(
            request, game, form=form, error=gettext("The hand was not saved: see below.")
        )
    data = form.cleaned_data
    try:
        outcome = services.record_hand(
            game,
            by=request.user,
            number=data["number"],
            idempotency_key=data["idempotency_key"] or None,
            **form.ending_kwargs(),
        )
    except ScoringError as error:  # beside the field it is about; a conflict is the panel's
        form.refuse(error)
        return _answer(
            request, game, form=form, error=gettext("The hand was not saved: see below.")
        )
    notice = _saved_notice(outcome, form.labels)
    if not request.htmx:
        return _redirect_with(request, game, notice)
    return _answer(request, outcome.game, notice=notice)


def _saved_notice(outcome: services.HandOutcome, labels: dict[str, str]) -> str:
    hand = outcome.hand
    if outcome.replayed:
        return gettext("Hand {number} was already saved; it was not counted twice.").format(
            number=hand.number
        )
    scored = [
        f"{_side_label(name, labels)} +{points}" for name, points in hand.awards.items() if points
    ]
    if scored:
        text = gettext("Hand {number} saved: {awards}.").format(
            number=hand.number, awards=", ".join(scored)
        )
    else:
        text = gettext("Hand {number} saved: no award.").format(number=hand.number)
    if outcome.game.is_finished:
        winner = outcome.game.winner
        text += " " + (
            gettext("Game over: {winner} won.").format(winner=_side_label(winner, labels))
            if winner
            else gettext("Game drawn.")
        )
    return text


def _side_label(side_name: str, labels: dict[str, str]) -> str:
    return " & ".join(labels.get(name, name) for name in side_name.split("+"))


def _redirect_with(request, game: Game, notice: str):
    messages.success(request, notice)
    return redirect(reverse("score-game", args=[game.pk]))


@login_required
@require_POST
@refusals_answered(_panel_refusal)
def add_event(request, pk: int):
    """Points during play: +5 … +35, a steal or a penalty for one seat."""
    game = _scorable(request, pk)
    form = EventForm(request.POST)
    if not form.is_valid():
        problem = form.errors.get("points")
        return _answer(
            request,
            game,
            error=problem[0]
            if problem
            else gettext("Those points were not saved: tap the button again."),
        )
    data = form.cleaned_data
    labels = {seat.name: seat.display_name for seat in game.seats.all()}
    key = request.POST.get("key", "")
    what = f"event {game.pk} {sorted(request.POST.items())}"
    with transaction.atomic():
        if not claim(request.user, key, what):
            return _answer(
                request, game, notice=gettext("Already counted; nothing was added twice.")
            )
        events = services.add_score_event(
            game,
            by=request.user,
            hand=data["hand"],
            seat=data["seat"],
            kind=data["kind"],
            points=data["points"],
            double=data["double"],
            from_seat=data["from_seat"] or None,
        )
    who = labels.get(data["seat"], data["seat"])
    if data["kind"] == ScoreEvent.Kind.PENALTY:
        notice = gettext("Penalty for {name}.").format(name=who)
    elif data["kind"] == ScoreEvent.Kind.STEAL:
        notice = _steal_notice(events, labels)
    else:
        notice = f"{who} +{data['points']}."
    if not request.htmx:
        return _redirect_with(request, game, notice)
    return _answer(request, game, notice=notice)


def _steal_notice(events: list[ScoreEvent], labels: dict[str, str]) -> str:
    """What a steal did: the stacker's gain and, by name, the seat that lost the points."""
    gain = events[0]
    name = labels.get(gain.seat.name, gain.seat.name)
    if len(events) < 2:
        return gettext("Steal by {name}: +{points}.").format(name=name, points=gain.points)
    lost = events[1]
    return gettext("Steal by {name}: +{points}, taken from {victim} ({lost}).").format(
        name=name,
        points=gain.points,
        victim=labels.get(lost.seat.name, lost.seat.name),
        lost=lost.points,
    )


@login_required
@require_POST
@refusals_answered(_panel_refusal)
def undo_event(request, pk: int, event_id: int):
    game = _scorable(request, pk)
    key = request.POST.get("key", "")
    with transaction.atomic():
        if not claim(request.user, key, f"undo {game.pk} {event_id}"):
            return _answer(
                request, game, notice=gettext("Already undone; nothing was undone twice.")
            )
        event = services.undo_event(game, event_id, by=request.user, reason="undone by referee")
    notice = wording.undone(event.kind, event.seat.display_name, event.points, gettext)
    if not request.htmx:
        return _redirect_with(request, game, notice)
    return _answer(request, game, notice=notice)


@login_required
@require_POST
@refusals_answered(_panel_refusal)
def void(request, pk: int, number: int):
    """Void a recorded hand from the phone, with the reason (a misdeal, a hand in error)."""
    game = _scorable(request, pk)
    key = request.POST.get("key", "")
    reason = request.POST.get("reason", "")[:300]
    with transaction.atomic():
        if not claim(request.user, key, f"void {game.pk} {number}"):
            return _answer(request, game, notice=gettext("Already voided; nothing was done twice."))
        services.void_hand(game, number, by=request.user, reason=reason)
    notice = gettext("Hand {number} voided: {reason}").format(number=number, reason=reason.strip())
    if not request.htmx:
        return _redirect_with(request, game, notice)
    return _answer(request, game, notice=notice)


@login_required
def correct(request, pk: int, number: int):
    """Write a new version of an earlier hand, with the reason, after checking the version."""
    game = _scorable(request, pk)
    current = Hand.objects.filter(game=game, number=number, is_current=True).first()
    if current is None:
        raise Http404("No such hand.")
    seats = list(game.seats.order_by("position"))
    ruleset = ruleset_of(game)
    conflict = ""
    if request.method == "POST":
        form = CorrectionForm(request.POST, seats=seats, ruleset=ruleset)
        if form.is_valid():
            data = form.cleaned_data
            notice = gettext("Hand {number} corrected: {reason}").format(
                number=number, reason=data["reason"]
            )
            with refusals_kept() as refused, transaction.atomic():
                # The phone's outbox may send a correction again after a lost answer.
                if not claim(request.user, data["idempotency_key"], f"correct {game.pk}"):
                    notice = gettext(
                        "Hand {number} was already corrected; it was not done twice."
                    ).format(number=number)
                else:
                    services.correct_hand(
                        game,
                        number,
                        by=request.user,
                        reason=data["reason"],
                        expected_version=data["expected_version"],
                        **form.ending_kwargs(),
                    )
            if isinstance(refused.error, services.GameConflict):
                # Changed meanwhile: the hand as it is now, to check before correcting again.
                conflict = refused.text
                current = Hand.objects.get(game=game, number=number, is_current=True)
            elif refused:
                form.refuse(refused.error)
            elif request.htmx:
                return _answer(request, game, notice=notice)
            else:
                return _redirect_with(request, game, notice)
    else:
        initial = HandForm.initial_from(current)
        initial["expected_version"] = current.version
        form = CorrectionForm(initial=initial, seats=seats, ruleset=ruleset)
    refused = bool(form.errors or conflict)
    response = render(
        request,
        "scoring/correct.html",
        {
            "game": game,
            "hand": current,
            "form": form,
            "conflict": conflict,
            "error": gettext("The correction was not saved: see above.") if refused else "",
            "referee_words": _referee_words(),
        },
        status=400 if refused and not request.htmx else 200,
    )
    if request.method == "POST":
        response[OUTCOME_HEADER] = "invalid" if form.errors else "refused" if conflict else "saved"
    return response


@login_required
@require_POST
def reopen(request, pk: int):
    """An organizer undoes a finished game's result; the reason is kept on the game."""
    game = _viewable(request, pk)
    if not allowed(request.user, "game.manage", game):
        raise PermissionDenied(gettext("Only the event's organizers reopen a finished game."))
    reopen_form = ReopenForm(request.POST, prefix="reopen")
    if reopen_form.is_valid():
        reason = reopen_form.cleaned_data["reason"]
        with refusals_in(reopen_form) as refused:
            services.reopen_game(game, by=request.user, reason=reason)
        if not refused:
            return _redirect_with(
                request, game, gettext("The game is open again: {reason}").format(reason=reason)
            )
    context = _panel_context(game, user=request.user)
    context["reopen_form"] = reopen_form
    return render(request, "scoring/score.html", context, status=400)


def _referee_name(game: Game) -> str:
    """Who referees the game: its table's assigned referee, else the game's own referees."""
    match = getattr(game, "match", None)
    if match is not None and match.referee_id:
        referees = [match.referee]
    else:
        referees = list(game.referees.order_by("username"))
    return ", ".join(user.get_full_name() or user.get_username() for user in referees)


def game_print(request, pk: int):
    """A filled score sheet of a game, laid out like the blank one, for printing."""
    game = _viewable(request, pk)
    sheet = game_sheet(game)
    filled = []
    for row in sheet.rows:
        if row.in_progress:
            continue
        if row.voided:
            ended = gettext("void")
        elif row.ended == Hand.Ended.BLOCK:
            ended = gettext("Blocked")
        else:
            ended = sheet.seat_labels.get(row.domino_by, row.domino_by)
        cells = []
        for side in sheet.sides:
            in_play = row.in_play.get(side.name, 0)
            penalty = row.penalties.get(side.name, 0)
            cells.append(
                {
                    "pips": sum(row.pips.get(seat, 0) for seat in side.name.split("+")),
                    "in_play": (in_play or "") if not penalty else f"{in_play}, pen. {penalty}",
                    "award": row.awards.get(side.name, 0),
                    "total": row.totals[side.name],
                }
            )
        filled.append({"number": row.number, "ended": ended, "reason": row.reason, "cells": cells})
    return render(
        request,
        "scoring/print_sheet.html",
        {
            "game": game,
            "referee": _referee_name(game),
            "title": game.title,
            "sides": [sheet.side_labels[side.name] for side in sheet.sides],
            "filled": filled,
            "target": sheet.ruleset.target,
            "rules_summary": wording.summary(sheet.ruleset, gettext),
            "winner": sheet.side_labels.get(game.winner, ""),
        },
    )

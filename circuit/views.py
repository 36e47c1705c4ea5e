"""The circuit's pages: series, leaderboards, ladder sessions."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from accounts.permissions import allowed
from circuit import charts, exports, selectors
from circuit.models import LadderSession, Pool, Series
from circuit.selectors import visible_series
from circuit.series_seen import standings_for
from circuit.services import ladders as ladder_services
from circuit.services import series as series_services
from circuit.services.common import CircuitError, bounded
from domain.i18n import told
from domain.pages import refusals_kept, refusals_said
from domain.say import say
from players.models import Player
from players.names import name_key
from scoring.rulesets import PRESETS
from tournaments.models import Stage


def _series(request, slug: str) -> Series:
    series = Series.objects.filter(slug=slug).first()
    if series is None or not allowed(request.user, "series.view", series):
        raise Http404("No such series.")
    return series


def series_list(request):
    return render(
        request,
        "circuit/series_list.html",
        {"series": visible_series(request.user).order_by("name", "pk")[:200]},
    )


def series_page(request, slug: str):
    series = _series(request, slug)
    standings = standings_for(series, request.user)
    numbers = [event["number"] for event in standings["events"]]
    for line in standings["lines"]:
        by_event = {result["event"]: result for result in line["results"]}
        line["cells"] = [by_event.get(number) for number in numbers]
    return render(
        request,
        "circuit/series.html",
        {
            "series": series,
            "standings": standings,
            "manages": allowed(request.user, "series.manage", series),
        },
    )


def series_export(request, slug: str):
    return exports.series_csv_response(_series(request, slug), request.user)


@login_required
@require_POST
def series_next_event(request, slug: str):
    series = _series(request, slug)
    if not allowed(request.user, "series.manage", series):
        raise Http404("No such series.")
    with refusals_said(request) as refused:
        tournament = series_services.create_next_event(series, by=request.user)
    if refused:
        return redirect("series-page", slug=series.slug)
    messages.success(request, gettext("{name} is created.").format(name=tournament.name))
    return redirect("manage-tournament", slug=tournament.slug)


def _form_values(post) -> dict:
    return {key: post.get(key, "") for key in post}


@login_required
def new_series(request):
    values = {"ruleset_key": "cutthroat", "stage_format": "swiss", "rounds": "3",
              "series_points": "25, 18, 15, 12, 10, 8, 6, 4"}  # fmt: skip
    errors: dict[str, str] = {}
    if request.method == "POST":
        values = _form_values(request.POST)
        with refusals_kept() as refused:
            rounds = bounded(values.get("rounds") or "3", 1, 40)
            if rounds is None:
                raise CircuitError(gettext("Rounds: a number from 1 to 40."), "rounds")
            fmt = values.get("stage_format", "swiss")
            settings = {"rounds": rounds} if fmt == "swiss" else {}
            series = series_services.create_series(
                by=request.user,
                name=values.get("name", ""),
                ruleset_key=values.get("ruleset_key", ""),
                table_size=bounded(values.get("table_size"), 2, 6),
                stage_format=fmt,
                stage_settings=settings,
                series_points=series_services.parse_points(values.get("series_points", "")),
                best_of=_optional(values.get("best_of"), 1, 1000, "best_of"),
                every_days=_optional(values.get("every_days"), 1, 365, "every_days"),
            )
            return redirect("series-page", slug=series.slug)
        errors[refused.error.field] = refused.text
    return render(
        request,
        "circuit/series_new.html",
        {
            "values": values,
            "errors": errors,
            "presets": sorted(PRESETS),
            "formats": Stage.Format.choices,
        },
        status=400 if errors else 200,
    )


def _optional(value, low: int, high: int, field: str) -> int | None:
    if value in (None, ""):
        return None
    number = bounded(value, low, high)
    if number is None:
        raise CircuitError(
            gettext("Give a whole number from {low} to {high}.").format(low=low, high=high), field
        )
    return number


def leaderboard(request, pool: str = Pool.INDIVIDUAL):
    if pool not in Pool.values:
        raise Http404("No such pool.")
    asked = request.GET.get("min_games", "")
    min_games = bounded(asked, 0, 1_000_000) if asked else selectors.min_games_default()
    if min_games is None:
        min_games = selectors.min_games_default()
    page = Paginator(selectors.leaderboard(pool, min_games=min_games), 50).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "circuit/leaderboard.html",
        {
            "pool": pool,
            "pools": Pool.choices,
            "page": page,
            "start": (page.number - 1) * 50,
            "min_games": min_games,
        },
    )


def _ladder(request, slug: str) -> LadderSession:
    session = LadderSession.objects.filter(slug=slug).first()
    if session is None or not allowed(request.user, "ladder.view", session):
        raise Http404("No such session.")
    return session


def ladder_list(request):
    sessions = [
        s for s in LadderSession.objects.all()[:200] if allowed(request.user, "ladder.view", s)
    ]
    return render(request, "circuit/ladder_list.html", {"sessions": sessions})


def _ladder_context(request, session: LadderSession) -> dict:
    waiting, tables = ladder_services.session_floor(session)
    own = getattr(request.user, "player", None) if request.user.is_authenticated else None
    own_table = next(
        (t for t in tables if own and any(s.player_id == own.pk for s in t.game.seats.all())),
        None,
    )
    return {
        "session": session,
        "waiting": waiting,
        "tables": tables,
        "standings": ladder_services.session_standings(session),
        "manages": allowed(request.user, "ladder.manage", session),
        "own_player": own,
        "own_entry": session.players.filter(player=own).first() if own else None,
        "own_table": own_table if own_table and own_table.game.status != "finished" else None,
        "own_request": session.requests.filter(player=own, answer="pending").first()
        if own
        else None,
    }


def ladder_page(request, slug: str):
    session = _ladder(request, slug)
    return render(request, "circuit/ladder.html", _ladder_context(request, session))


def ladder_floor(request, slug: str):
    """The live part of the session page: who waits, the tables, the standings."""
    session = _ladder(request, slug)
    return render(request, "circuit/_ladder_floor.html", _ladder_context(request, session))


@login_required
@require_POST
def ladder_act(request, slug: str, action: str):
    session = _ladder(request, slug)
    user = request.user
    with refusals_said(request):
        if action == "check-in":
            player = _own_or_none(request)
            ladder_services.check_in(
                session, by=user, player=player, name=request.POST.get("name", "")
            )
        elif action == "check-out":
            ladder_services.check_out(session, by=user, player=_posted_player(request))
        elif action == "ask":
            ladder_services.ask(session, by=user, player=_named_account(request))
        elif action == "forfeit":
            player = _posted_player(request)
            _confirmed(request, ladder_services.forfeit_effect(session, by=user, player=player))
            ladder_services.forfeit(
                session, by=user, player=player, reason=request.POST.get("reason", "")
            )
        elif action == "form":
            made = ladder_services.form_now(session, by=user)
            messages.success(request, gettext("Tables formed: {count}.").format(count=len(made)))
        elif action == "close":
            _confirmed(request, ladder_services.close_effect(session, by=user))
            ladder_services.close_session(session, by=user)
        else:
            raise Http404("No such action.")
    return redirect("ladder-page", slug=session.slug)


def _confirmed(request, effect) -> None:
    """Nothing ends and nobody leaves until the form's box saying ``effect`` is ticked."""
    if request.POST.get("confirm") != "1":
        raise CircuitError(say("Nothing changed: {effect}", effect=told(effect)), "confirm")


def _posted_player(request) -> Player:
    player = Player.objects.filter(pk=bounded(request.POST.get("player"), 1, 2**63 - 1) or 0)
    player = player.first()
    if player is None:
        raise CircuitError(gettext("Say which player."), "player")
    return player


def _named_account(request) -> Player:
    """The one player with an account under the name the organizer typed."""
    key = name_key(" ".join(request.POST.get("name", "").split()))
    found = list(Player.objects.filter(name_key=key, user__isnull=False)[:2]) if key else []
    if len(found) != 1:
        raise CircuitError(
            gettext("No one player with an account goes by that name: give their full name."),
            "name",
        )
    return found[0]


@login_required
@require_POST
def answer_ladder_request(request, pk: int, answer: str):
    """A player accepts or declines a ladder's request from their account page."""
    if answer not in ("accept", "decline"):
        raise Http404("No such answer.")
    asked = ladder_services.request_for(request.user, pk) if pk <= 2**63 - 1 else None
    if asked is None:
        raise Http404("No such request.")
    with refusals_said(request):
        ladder_services.answer(asked, by=request.user, accept=answer == "accept")
        if answer == "accept":
            messages.success(
                request, gettext("You are checked in to {name}.").format(name=asked.session.name)
            )
        else:
            messages.success(request, gettext("Request declined."))
    return redirect("account")


def _own_or_none(request) -> Player | None:
    """Checking oneself in: the signed-in user's own player, unless an organizer typed a name."""
    if request.POST.get("self") == "1":
        own = getattr(request.user, "player", None)
        if own is None:
            raise CircuitError(gettext("Your account is not linked to a player."), "name")
        return own
    return None


@login_required
def new_ladder(request):
    values = {"ruleset_key": "cutthroat", "every_minutes": "0"}
    errors: dict[str, str] = {}
    if request.method == "POST":
        values = _form_values(request.POST)
        with refusals_kept() as refused:
            minutes = bounded(values.get("every_minutes") or "0", 0, 240)
            if minutes is None:
                raise CircuitError(
                    gettext("Minutes between table forming: a number from 0 to 240."),
                    "every_minutes",
                )
            session = ladder_services.create_session(
                by=request.user,
                name=values.get("name", ""),
                ruleset_key=values.get("ruleset_key", ""),
                table_size=bounded(values.get("table_size"), 2, 6),
                every_minutes=minutes,
            )
            return redirect("ladder-page", slug=session.slug)
        errors[refused.error.field] = refused.text
    return render(
        request,
        "circuit/ladder_new.html",
        {"values": values, "errors": errors, "presets": sorted(PRESETS)},
        status=400 if errors else 200,
    )


def player_ratings_context(player: Player) -> list[dict]:
    """What the player page's ratings part shows: each pool's rating and its chart."""
    pools = selectors.player_ratings(player.pk)
    for entry in pools:
        entry["chart"] = charts.rating_svg(entry["history"], label=str(entry["label"]))
    return pools

"""Public tournament pages: the list, a tournament with live standings and tables, a player.

Pages read snapshots (standings) and stored totals; they never compute standings. The
live regions poll with the tag of what they show and get 204 No Content while nothing
changed, answered from the cache (``tournaments.read.live``), so a hall full of phones costs
one cache read each every few seconds.
"""

import segno
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse, HttpResponseNotModified
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext, override

from accounts.permissions import allowed
from domain.live import Viewer, live_answer
from domain.numbers import whole_number
from scoring import wording
from tournaments import exports
from tournaments.models import Entrant, MatchSeat, Stage, Tournament
from tournaments.read import answers, live, selectors
from tournaments.read.live import StandingsMark
from tournaments.stage_facts import is_bracket


def _visible(request, slug: str) -> Tournament:
    """The tournament, if this visitor may see it."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if not allowed(request.user, "tournament.view", tournament):
        raise Http404("No such tournament.")
    return tournament


def home(request):
    tournaments = list(
        selectors.visible_tournaments(request.user).order_by("-updated_at", "-pk")[:50]
    )
    running = [t for t in tournaments if t.status == Tournament.Status.RUNNING]
    others = [t for t in tournaments if t.status != Tournament.Status.RUNNING]
    return render(request, "tournaments/home.html", {"running": running, "others": others})


def format_unless_named(stage: Stage | None) -> str:
    """The stage's format for its header, or "" when its name already says it."""
    if stage is None:
        return ""
    label = Stage.Format(stage.format).label
    shown = str(label)
    with override("en"):
        english = str(label)
    if stage.name.strip().casefold() in {shown.casefold(), english.casefold()}:
        return ""
    return shown.lower()


def tournament_page(request, slug: str):
    tournament = _visible(request, slug)
    stages = list(tournament.stages.all())
    stage = selectors.pick_stage(request.GET.get("stage"), stages)
    staff = allowed(request.user, "tournament.see_drafts", tournament)
    rules = selectors.ruleset_of(tournament)
    context = {
        "tournament": tournament,
        "stages": stages,
        "stage": stage,
        "rules_summary": wording.summary(rules, gettext),
        "rules": wording.describe(rules, gettext),
        "stage_format": format_unless_named(stage),
        "entrant_count": tournament.entrants.filter(withdrawn=False).count(),
        "bracket": (
            selectors.bracket(stage, tournament, include_drafts=staff) if is_bracket(stage) else []
        ),
    }
    parts = answers.LiveParts(answers.Question.of(slug, request.GET), tournament, stage, staff)
    # Our own templates' output, kept as rendered.
    context.update(
        rounds=parts.rounds,
        round=parts.round,
        standings_html=mark_safe(parts.standings_html()),
        tables_html=mark_safe(parts.tables_html()),
        live_poller=answers.poller(parts.url),
    )
    response = render(request, "tournaments/tournament.html", context)
    # The page holds the session's CSRF token (its language form): never shared.
    patch_cache_control(response, private=True, no_cache=True)
    return response


def _live_answer(request, answer: answers.Answer) -> HttpResponse:
    """A live poll's answer: 204 when nothing changed, 304 for an unchanged conditional
    request, else the changes; with headers that let a proxy in front answer the crowd,
    and that say whether the cache alone answered it."""
    etag = f'"{answer.tag}"'
    if answer.html is None:
        response = HttpResponse(status=204)
    elif etag in request.headers.get("If-None-Match", ""):
        response = HttpResponseNotModified()
    else:
        response = HttpResponse(answer.html)
    response["ETag"] = etag
    if answer.shared:
        patch_cache_control(
            response, public=True, max_age=live.PUBLIC_SECONDS, s_maxage=live.PUBLIC_SECONDS
        )
    else:
        patch_cache_control(response, private=True, no_cache=True)
    # The language comes from the header or the language cookie; a proxy keys on both
    # and passes signed-in visitors through (docs/production.md, micro-caching).
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    return live.served(response, from_cache=answer.from_cache)


def live_poll(request, slug: str):
    """The tournament page's one poll. It carries the tags of the standings (``s``) and of
    the tables (``t``) the page holds: 204 while neither changed, else the new poller and,
    out of band, the standings if they changed and the tables that did (the whole tables
    part when the round or its set of tables changed). The answer is the live answer
    (``domain.live.live_answer``): from the cache for a public poll, one read when nothing
    changed; from the database when a kept state or part is missing."""
    answer = live_answer(answers.Question.of(slug, request.GET), Viewer.of(request))
    if answer is None:
        raise Http404("No such tournament.")
    return _live_answer(request, answer)


def entrant_page(request, slug: str, pk: int):
    """A player's (or team's) games in this tournament and their line in the standings."""
    tournament = _visible(request, slug)
    entrant = get_object_or_404(
        Entrant.objects.select_related("tournament"), pk=pk, tournament=tournament
    )
    lines, _ = selectors.standing_lines(tournament, entrant=entrant)
    # A bracket's line shows its finish too (the other stages' lines leave it blank).
    order = max(
        (selectors.stage_order(tournament, line.stage) for line in lines),
        key=len,
        default=list(tournament.tiebreak_order),
    )
    return render(
        request,
        "tournaments/entrant.html",
        {
            "tournament": tournament,
            "entrant": entrant,
            "lines": lines,
            "columns": answers.metric_columns(order),
            "tables": selectors.entrant_games(
                entrant, include_drafts=allowed(request.user, "tournament.see_drafts", tournament)
            ),
        },
    )


def export(request, slug: str, kind: str):
    """CSV downloads: the standings with every metric, or every hand's result per side."""
    tournament = _visible(request, slug)
    if kind not in exports.EXPORTS:
        raise Http404("No such export.")
    return exports.csv_response(tournament, kind)


SCREEN_ROWS = 10  # standings rows on one screen page
SCREEN_TABLES = 8  # tables on one screen page
SCREEN_SECONDS = 12  # how long each page stays up


def screen(request, slug: str):
    """The hall screen: standings and live tables in large type, turning pages by itself.

    Each answer is one page and asks for the next one after ``SCREEN_SECONDS``, so the
    screen cycles and shows fresh numbers on every turn without any controls. The pages
    it asks for are kept in the cache under the tags of the standings and tables they
    show, as the tournament page's live parts are, so several screens (or a screen left
    on all day) cost a cache read per turn while nothing changes. Its pages never show a
    round in draft, so a turn kept for one screen may go to every screen that may see the
    event: only while everyone may is a turn served before the database is asked.
    """
    number = whole_number(request.GET.get("page")) or 0
    # The public view whoever asks: a turn kept for one screen may go to every screen.
    question, viewer = answers.Question(slug), Viewer.of(request, drafts=False)
    answer = live_answer(question, viewer, kept=bool(request.htmx))
    if answer is not None and answer.from_cache:
        html = cache.get(_screen_key(slug, number, answer.mark, answer.state))
        if html is not None:
            return HttpResponse(html)
        answer = live_answer(question, viewer, kept=False)
    if answer is None:
        raise Http404("No such tournament.")
    parts, mark, state = answer.parts, answer.mark, answer.state
    tournament, stage, current = parts.tournament, parts.stage, parts.round
    view = selectors.standings(tournament, stage, mark=mark)
    tables = (
        [t for t in selectors.tables_of(current, tournament) if not t.match.bye] if current else []
    )
    pages = [
        ("standings", view.rows[i : i + SCREEN_ROWS], i)
        for i in range(0, len(view.rows), SCREEN_ROWS)
    ]
    pages += [
        ("tables", tables[i : i + SCREEN_TABLES], i) for i in range(0, len(tables), SCREEN_TABLES)
    ]
    if not pages:
        pages = [("empty", [], 0)]
    shown = number % len(pages)
    kind, items, offset = pages[shown]
    context = {
        "tournament": tournament,
        "stage": stage,
        "round": current,
        "kind": kind,
        "items": items,
        "offset": offset,
        "page": shown + 1,
        "pages": len(pages),
        "next_page": (shown + 1) % len(pages),
        "seconds": SCREEN_SECONDS,
        "columns": answers.metric_columns(view.order)[:3],
        "standings": view,
    }
    if not request.htmx:
        return render(request, "tournaments/screen.html", context)
    # The turning page holds nothing personal: kept for every screen that asks for it.
    html = render_to_string("tournaments/_screen_page.html", context)
    cache.set(_screen_key(slug, number, mark, state), html, live.HTML_SECONDS)
    return HttpResponse(html)


def _screen_key(slug: str, number: int, mark: StandingsMark, state: live.TablesState) -> str:
    return f"live:screen:{slug}:{number}:{mark.tag}:{state.tag}:{get_language()}"


# --- printing ------------------------------------------------------------------------------

BLANK_SHEET_ROWS = 18


def managed_tournament(request, slug: str) -> Tournament:
    """The tournament, for one of its organizers (views add ``login_required``)."""
    tournament = _visible(request, slug)
    if not allowed(request.user, "tournament.manage", tournament):
        raise PermissionDenied("Only this tournament's organizers may do that.")
    return tournament


def _round_tables(tournament: Tournament, number: int):
    stage = selectors.pick_stage(None, list(tournament.stages.all()))
    rounds = selectors.rounds_of(stage, include_drafts=True) if stage else []
    round_ = next((r for r in rounds if r.number == number), None)
    if round_ is None:
        raise Http404("No such round.")
    tables = [t for t in selectors.tables_of(round_, tournament) if t.match.game_id]
    return stage, round_, tables


@login_required
def table_cards(request, slug: str, number: int):
    """Printable cards, one per table: seats, the rules in a line, a QR code to score it."""
    tournament = managed_tournament(request, slug)
    stage, round_, tables = _round_tables(tournament, number)
    rules = selectors.ruleset_of(tournament)
    cards = []
    for table in tables:
        url = request.build_absolute_uri(reverse("score-game", args=[table.match.game_id]))
        qr = segno.make(url, error="m")
        cards.append(
            {
                "table": table,
                "url": url,
                # No width or height but a viewBox: the print style sizes the whole code.
                "qr": qr.svg_inline(dark="#000", light="#fff", omitsize=True),
                "rules_summary": wording.summary(selectors.table_ruleset(table, rules), gettext),
            }
        )
    return render(
        request,
        "tournaments/print_cards.html",
        {
            "tournament": tournament,
            "stage": stage,
            "round": round_,
            "cards": cards,
            "teams": rules.teams == "partners",
            # Who sits out has no card (no table): the page names them under the cards.
            "byes": [
                seat.entrant.name
                for seat in MatchSeat.objects.filter(round=round_, match__bye=True)
                .select_related("entrant")
                .order_by("entrant__seed")
            ],
        },
    )


def _user_name(user) -> str:
    return (user.get_full_name() or user.get_username()) if user is not None else ""


@login_required
def blank_sheets(request, slug: str, number: int):
    """Blank score sheets for tables without a phone: a column per side, a row per hand."""
    tournament = managed_tournament(request, slug)
    stage, round_, tables = _round_tables(tournament, number)
    rules = selectors.ruleset_of(tournament)
    sheets = []
    for table in tables:
        table_rules = selectors.table_ruleset(table, rules)
        sheets.append(
            {
                "title": selectors.table_title(stage, round_.number, table.match.table_number),
                "sides": [seat["entrant"].name for seat in table.seats],
                "referee": _user_name(table.match.referee),
                "target": table_rules.target,
                "rules_summary": wording.summary(table_rules, gettext),
            }
        )
    return render(
        request,
        "tournaments/print_sheets.html",
        {
            "tournament": tournament,
            "sheets": sheets,
            "rows": range(1, BLANK_SHEET_ROWS + 1),
        },
    )


@login_required
def stage_schedule(request, slug: str, pk: int):
    """Where the search of a stage's schedule stands (the manage page polls it)."""
    tournament = managed_tournament(request, slug)
    stage = get_object_or_404(
        Stage.objects.select_related("schedule"), tournament=tournament, pk=pk
    )
    response = render(
        request,
        "tournaments/organize/_schedule.html",
        {"tournament": tournament, "stage": stage},
    )
    patch_cache_control(response, private=True, no_cache=True)
    return response

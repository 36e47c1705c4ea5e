"""Public tournament pages: the list, a tournament with live standings and tables, a player.

Pages read snapshots (standings) and stored totals; they never compute standings. The
live regions poll with the tag of what they show and get 204 No Content while nothing
changed, answered from the cache (``tournaments.live``), so a hall full of phones costs
one cache read each every few seconds.
"""

import segno
from django.conf import settings
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
from domain.numbers import whole_number
from scoring import wording
from tournaments import exports, live, selectors
from tournaments.live import StandingsMark
from tournaments.models import Entrant, Stage, Tournament
from tournaments.standings import METRICS


def _visible(request, slug: str) -> Tournament:
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


def _metric_columns(order: list[str]) -> list[dict]:
    return [
        {"key": key, "label": gettext(METRICS[key].label), "help": gettext(METRICS[key].explain)}
        for key in order
        if key in METRICS
    ]


# A page shows this many standings rows unless asked for all: a phone on a slow
# connection should not download a thousand rows to see the top of the table.
STANDINGS_SHOWN = 100


def _standings_context(
    request, tournament: Tournament, stage: Stage | None, mark: StandingsMark | None = None
) -> dict:
    """The standings part: its tag, and its HTML rendered once per tag and language."""
    everyone = request.GET.get("all") == "1"
    mark = mark or selectors.standings_mark(tournament, stage)
    query = (f"stage={stage.order}&" if stage else "") + ("all=1&" if everyone else "")
    context = {
        "tournament": tournament,
        "standings_url": reverse("tournament-standings", args=[tournament.slug])
        + f"?{query}since={mark.tag}",
        "all_url": reverse("tournament-page", args=[tournament.slug])
        + (f"?stage={stage.order}&all=1" if stage else "?all=1"),
        "entrant_base": reverse("tournament-page", args=[tournament.slug]) + "entrants/",
    }

    def build() -> str:
        view = selectors.standings(
            tournament, stage, limit=None if everyone else STANDINGS_SHOWN, mark=mark
        )
        context.update(standings=view, columns=_metric_columns(view.order))
        return render_to_string("tournaments/_standings.html", context)

    key = f"live:standings-html:{tournament.slug}:{stage.pk if stage else 0}:{everyone}"
    html = live.fragment(f"{key}:{mark.tag}:{get_language()}", build)
    # Our own template's output, kept as rendered.
    return {"standings_tag": mark.tag, "standings_html": mark_safe(html)}


def _tables_context(request, tournament: Tournament, stage: Stage | None, staff: bool) -> dict:
    """The tables part of the round asked for, else of the latest one: its tag, and its
    HTML assembled from each table's card (only the changed ones rendered)."""
    rounds = selectors.rounds_of(stage, include_drafts=staff) if stage else []
    chosen = request.GET.get("round") or ""
    current = selectors.pick_round(rounds, chosen)
    tables = live.table_tags(current) if current else []
    # Staff see rounds in draft: their tag and HTML are never kept for the public.
    tag = ("s" if staff else "p") + live.round_tag(current, tables)
    pinned = chosen if current and chosen == str(current.number) else ""
    url = reverse("tournament-tables", args=[tournament.slug])
    context = {
        "entrant_base": reverse("tournament-page", args=[tournament.slug]) + "entrants/",
        "game_base": "/games/",
        "page_url": reverse("tournament-page", args=[tournament.slug]),
        "stage": stage,
        "rounds": rounds,
        "round": current,
        # Without a round chosen the poll follows the stage's latest round.
        "tables_url": f"{url}?stage={stage.order if stage else ''}&round={pinned}&since={tag}",
    }

    def build() -> str:
        cards = live.table_cards(current, tournament, tables, context) if current else []
        return render_to_string("tournaments/_tables.html", {**context, "cards": cards})

    key = f"live:tables-html:{tournament.slug}:{stage.pk if stage else 0}:{pinned}"
    html = live.fragment(f"{key}:{tag}:{get_language()}", build)
    # Our own template's output, kept as rendered.
    return {"rounds": rounds, "round": current, "tables_tag": tag, "tables_html": mark_safe(html)}


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
    stage = selectors.pick_stage(tournament, request.GET.get("stage"), stages)
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
            selectors.bracket(stage, tournament, include_drafts=staff)
            if selectors.draws_bracket(stage)
            else []
        ),
    }
    context.update(_standings_context(request, tournament, stage))
    context.update(_tables_context(request, tournament, stage, staff))
    response = render(request, "tournaments/tournament.html", context)
    # The page holds the session's CSRF token (its language form): never shared.
    patch_cache_control(response, private=True, no_cache=True)
    return response


def _stage_from_query(request, tournament: Tournament) -> Stage | None:
    return selectors.pick_stage(tournament, request.GET.get("stage"), list(tournament.stages.all()))


def _live_answer(request, tag: str, html: str | None, *, shared: bool) -> HttpResponse:
    """A live part's answer: 204 for an unchanged poll, 304 for an unchanged conditional
    request, else the HTML; with headers that let a proxy in front answer the crowd."""
    etag = f'"{tag}"'
    if html is None or request.GET.get("since") == tag:
        response = HttpResponse(status=204)
    elif etag in request.headers.get("If-None-Match", ""):
        response = HttpResponseNotModified()
    else:
        response = HttpResponse(html)
    response["ETag"] = etag
    if shared:
        patch_cache_control(
            response, public=True, max_age=live.PUBLIC_SECONDS, s_maxage=live.PUBLIC_SECONDS
        )
    else:
        patch_cache_control(response, private=True, no_cache=True)
    # The language comes from the header or the language cookie; a proxy keys on both
    # and passes signed-in visitors through (see the README).
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    return response


def _signed_in(request) -> bool:
    """Whether the request may belong to someone signed in, told without a query."""
    return settings.SESSION_COOKIE_NAME in request.COOKIES


def _param(request, name: str) -> str | None:
    """A poll's stage or round as it appears in a cache key: digits or nothing."""
    value = request.GET.get(name, "")
    return value if value == "" or (value.isdigit() and len(value) < 6) else None


def standings_live(request, slug: str):
    """The standings table alone, for polling: 204 while the standings are unchanged."""
    wanted = _param(request, "stage")
    key = live.standings_key(slug, wanted) if wanted is not None else None
    since = request.GET.get("since")
    if key and since:
        known = cache.get(key)
        if known is not None and known.tag == since:
            return _live_answer(request, since, None, shared=not _signed_in(request))
    tournament = _visible(request, slug)
    stage = _stage_from_query(request, tournament)
    mark = selectors.standings_mark(tournament, stage)
    if key and (wanted == "" or (stage and wanted == str(stage.order))):
        live.keep_standings(key, mark)
    if since == mark.tag:
        return _live_answer(request, since, None, shared=not request.user.is_authenticated)
    part = _standings_context(request, tournament, stage, mark)
    return _live_answer(
        request, mark.tag, part["standings_html"], shared=not request.user.is_authenticated
    )


def tables_live(request, slug: str):
    """The tables of one round alone, for polling: 204 while none of them changed. Without
    a round chosen it follows the latest one, so a page opened before a round was
    published moves to that round."""
    wanted, chosen = _param(request, "stage"), _param(request, "round")
    key = None
    if wanted is not None and chosen is not None:
        key = live.tables_key(slug, wanted, chosen, get_language())
    since = request.GET.get("since")
    if key and since and since[:1] == "p":
        known = cache.get(key)
        if known is not None:
            tag, html = known
            return _live_answer(request, tag, html, shared=not _signed_in(request))
    tournament = _visible(request, slug)
    stage = _stage_from_query(request, tournament)
    staff = allowed(request.user, "tournament.see_drafts", tournament)
    part = _tables_context(request, tournament, stage, staff)
    current = part["round"]
    exact = (wanted == "" or (stage and wanted == str(stage.order))) and (
        chosen == "" or (current and chosen == str(current.number))
    )
    if key and exact and not staff:
        cache.set(key, (part["tables_tag"], str(part["tables_html"])), live.TAG_SECONDS)
    return _live_answer(
        request,
        part["tables_tag"],
        part["tables_html"],
        shared=not request.user.is_authenticated,
    )


def entrant_page(request, slug: str, pk: int):
    """A player's (or team's) games in this tournament and their line in the standings."""
    tournament = _visible(request, slug)
    entrant = get_object_or_404(
        Entrant.objects.select_related("tournament"), pk=pk, tournament=tournament
    )
    lines, _ = selectors.standing_lines(tournament, entrant=entrant)
    return render(
        request,
        "tournaments/entrant.html",
        {
            "tournament": tournament,
            "entrant": entrant,
            "lines": lines,
            "columns": _metric_columns(list(tournament.tiebreak_order)),
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
    screen cycles and shows fresh numbers on every turn without any controls.
    """
    tournament = _visible(request, slug)
    stages = list(tournament.stages.all())
    stage = selectors.pick_stage(tournament, None, stages)
    view = selectors.standings(tournament, stage)
    rounds = selectors.rounds_of(stage, include_drafts=False) if stage else []
    current = selectors.pick_round(rounds, None)
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
    number = (whole_number(request.GET.get("page")) or 0) % len(pages)
    kind, items, offset = pages[number]
    context = {
        "tournament": tournament,
        "stage": stage,
        "round": current,
        "kind": kind,
        "items": items,
        "offset": offset,
        "page": number + 1,
        "pages": len(pages),
        "next_page": (number + 1) % len(pages),
        "seconds": SCREEN_SECONDS,
        "columns": _metric_columns(view.order)[:3],
        "standings": view,
    }
    template = "tournaments/_screen_page.html" if request.htmx else "tournaments/screen.html"
    return render(request, template, context)


# --- printing ------------------------------------------------------------------------------

BLANK_SHEET_ROWS = 18


def managed_tournament(request, slug: str) -> Tournament:
    """The tournament, for one of its organizers (views add ``login_required``)."""
    tournament = _visible(request, slug)
    if not allowed(request.user, "tournament.manage", tournament):
        raise PermissionDenied("Only this tournament's organizers may do that.")
    return tournament


def _round_tables(tournament: Tournament, number: int):
    stage = selectors.pick_stage(tournament, None, list(tournament.stages.all()))
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
                "qr": qr.svg_inline(scale=4, dark="#000", light="#fff", omitsize=False),
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

"""Public tournament pages: the list, a tournament with live standings and tables, a player.

Pages read snapshots (standings) and stored totals; they never compute standings. The
live regions poll with the tag of what they show and get 204 No Content while nothing
changed, so a hall full of phones costs one small query each every few seconds.
"""

import segno
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext

from accounts.permissions import allowed
from domain.numbers import whole_number
from scoring import wording
from tournaments import exports, selectors
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


def _standings_context(request, tournament: Tournament, stage: Stage | None) -> dict:
    everyone = request.GET.get("all") == "1"
    view = selectors.standings(tournament, stage, limit=None if everyone else STANDINGS_SHOWN)
    query = (f"stage={stage.order}&" if stage else "") + ("all=1&" if everyone else "")
    return {
        "standings": view,
        "columns": _metric_columns(view.order),
        "standings_url": reverse("tournament-standings", args=[tournament.slug])
        + f"?{query}since={view.tag}",
        "all_url": reverse("tournament-page", args=[tournament.slug])
        + (f"?stage={stage.order}&all=1" if stage else "?all=1"),
        "entrant_base": reverse("tournament-page", args=[tournament.slug]) + "entrants/",
    }


def _tables_context(request, tournament: Tournament, stage: Stage | None, staff: bool) -> dict:
    rounds = selectors.rounds_of(stage, include_drafts=staff) if stage else []
    current = selectors.pick_round(rounds, request.GET.get("round"))
    tag = selectors.tables_tag(current)
    return {
        "entrant_base": reverse("tournament-page", args=[tournament.slug]) + "entrants/",
        "game_base": "/games/",
        "rounds": rounds,
        "round": current,
        "tables": selectors.tables_of(current, tournament) if current else [],
        "tables_url": reverse("tournament-tables", args=[tournament.slug])
        + f"?stage={stage.order if stage else ''}&round={current.number if current else ''}"
        + f"&since={tag}",
        "tables_tag": tag,
    }


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
        "entrant_count": tournament.entrants.filter(withdrawn=False).count(),
        "bracket": (
            selectors.bracket(stage, tournament, include_drafts=staff)
            if stage and stage.format in selectors.ELIMINATION
            else []
        ),
    }
    context.update(_standings_context(request, tournament, stage))
    context.update(_tables_context(request, tournament, stage, staff))
    return render(request, "tournaments/tournament.html", context)


def _stage_from_query(request, tournament: Tournament) -> Stage | None:
    return selectors.pick_stage(tournament, request.GET.get("stage"), list(tournament.stages.all()))


def standings_live(request, slug: str):
    """The standings table alone, for polling: 204 while the snapshot is unchanged."""
    tournament = _visible(request, slug)
    stage = _stage_from_query(request, tournament)
    context = _standings_context(request, tournament, stage)
    if request.GET.get("since") == context["standings"].tag:
        return HttpResponse(status=204)
    context["tournament"] = tournament
    return render(request, "tournaments/_standings.html", context)


def tables_live(request, slug: str):
    """The tables of one round alone, for polling: 204 while no game of it changed."""
    tournament = _visible(request, slug)
    stage = _stage_from_query(request, tournament)
    staff = allowed(request.user, "tournament.see_drafts", tournament)
    rounds = selectors.rounds_of(stage, include_drafts=staff) if stage else []
    current = selectors.pick_round(rounds, request.GET.get("round"))
    if request.GET.get("since") == selectors.tables_tag(current):
        return HttpResponse(status=204)
    context = _tables_context(request, tournament, stage, staff)
    context["tournament"] = tournament
    context["stage"] = stage
    return render(request, "tournaments/_tables.html", context)


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
    tables = [t for t in selectors.tables_of(round_, tournament) if not t.match.bye]
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
            "rules_summary": wording.summary(rules, gettext),
        },
    )


@login_required
def blank_sheets(request, slug: str, number: int):
    """Blank score sheets for tables without a phone: a column per side, a row per hand."""
    tournament = managed_tournament(request, slug)
    stage, round_, tables = _round_tables(tournament, number)
    rules = selectors.ruleset_of(tournament)
    sheets = [
        {
            "title": f"{stage.name}, round {round_.number}, table {table.match.table_number}",
            "sides": [seat["entrant"].name for seat in table.seats],
        }
        for table in tables
    ]
    return render(
        request,
        "tournaments/print_sheets.html",
        {
            "tournament": tournament,
            "sheets": sheets,
            "rows": range(1, BLANK_SHEET_ROWS + 1),
            "target": rules.target,
            "rules_summary": wording.summary(rules, gettext),
        },
    )

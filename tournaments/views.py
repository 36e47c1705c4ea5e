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
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext, override

from accounts.permissions import allowed
from domain.numbers import whole_number
from scoring import wording
from tournaments import exports, live, selectors
from tournaments.live import StandingsMark
from tournaments.models import Entrant, MatchSeat, Stage, Tournament
from tournaments.standings import METRICS


def _visible(request, slug: str, *, noted: bool = False) -> Tournament:
    """The tournament, if this visitor may see it. ``noted``: the view answers from the
    cache too, so whether everyone may see it is kept for its fast path first (a private
    event's 404 also corrects a note kept while it was public)."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if noted:
        live.note_visibility(tournament)
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
POLL_SECONDS = 5  # how often a page asks whether its live parts changed


def _standings_html_key(slug: str, everyone: bool, tag: str) -> str:
    # The tag already names the stage (its digest holds the stage's id).
    return f"live:standings-html:{slug}:{int(everyone)}:{tag}:{get_language()}"


def _tables_html_key(slug: str, tag: str) -> str:
    # The tag names the round and its tables, and whether staff see drafts ("s"/"p").
    return f"live:tables-html:{slug}:{tag}:{get_language()}"


def _live_url(slug: str, stage: str, round_: str, everyone: bool, mark, state) -> str:
    query = f"stage={stage}&round={round_}" + ("&all=1" if everyone else "")
    return reverse("tournament-live", args=[slug]) + f"?{query}&s={mark.tag}&t={state.tag}"


def _poller(url: str) -> str:
    """The page's one live element: it asks every POLL_SECONDS whether anything it shows
    changed, and the answer replaces it (with the tags of what the page now holds) and
    swaps the changed parts in by their ids. With LIVE_STREAM on it also names the
    stream (tournaments/stream.py) that the page holds instead while it can."""
    stream = ""
    if settings.LIVE_STREAM:
        stream = format_html(' data-events="{}"', url.replace("/live/?", "/events/?", 1))
    return format_html(
        '<div id="live" hx-get="{}" hx-trigger="every {}s" hx-swap="outerHTML"{} hidden></div>',
        url,
        POLL_SECONDS,
        stream,
    )


def _page_tag(mark: StandingsMark, state: live.TablesState) -> str:
    return f"{mark.tag}.{state.tag}"


class _LiveParts:
    """The standings and tables parts of a tournament page as the database has them: their
    tags, and their HTML rendered once per tag and language (each table's card on its
    own, so that a hand at one table re-renders that card alone)."""

    def __init__(self, request, tournament: Tournament, stage: Stage | None, staff: bool):
        self.tournament, self.stage, self.staff = tournament, stage, staff
        self.everyone = request.GET.get("all") == "1"
        self.rounds = selectors.rounds_of(stage, include_drafts=staff) if stage else []
        chosen = request.GET.get("round") or ""
        self.round = selectors.pick_round(self.rounds, chosen)
        # Without a round chosen the page follows the stage's latest round.
        self.pinned = chosen if self.round and chosen == str(self.round.number) else ""
        self.mark = selectors.standings_mark(tournament, stage)
        self.state = live.tables_state(self.round, staff=staff)
        slug = tournament.slug
        self.stage_param = str(stage.order) if stage else ""
        self.url = _live_url(
            slug, self.stage_param, self.pinned, self.everyone, self.mark, self.state
        )
        page_url = reverse("tournament-page", args=[slug])
        self.context = {
            "tournament": tournament,
            "entrant_base": page_url + "entrants/",
            "game_base": "/games/",
            "page_url": page_url,
            "all_url": page_url + (f"?stage={stage.order}&all=1" if stage else "?all=1"),
            "stage": stage,
            "rounds": self.rounds,
            "round": self.round,
        }

    def standings_html(self) -> str:
        def build() -> str:
            view = selectors.standings(
                self.tournament,
                self.stage,
                limit=None if self.everyone else STANDINGS_SHOWN,
                mark=self.mark,
            )
            context = {**self.context, "standings": view, "columns": _metric_columns(view.order)}
            return render_to_string("tournaments/_standings.html", context)

        key = _standings_html_key(self.tournament.slug, self.everyone, self.mark.tag)
        return live.fragment(key, build)

    def tables_html(self) -> str:
        def build() -> str:
            cards = self.cards(self.state.tags) if self.round else []
            return render_to_string("tournaments/_tables.html", {**self.context, "cards": cards})

        return live.fragment(_tables_html_key(self.tournament.slug, self.state.tag), build)

    def cards(self, tables: list[tuple[int, str]]) -> list[str]:
        return live.table_cards(self.round, self.tournament, tables, self.context)


def _changes(poller: str, mark, state, since: tuple[str, str], standings, tables, was, cards):
    """The answer to a poll that holds the tags ``since``: the new poller, and out of band
    each part that changed (of the tables, only the changed cards when the poller's tables
    are known). ``standings``, ``tables``, ``was`` and ``cards`` get the HTML and the
    state a tag had; an answer one of them cannot give (None) makes the whole None."""
    parts = [poller]
    if mark.tag != since[0]:
        parts.append(standings())
    if state.tag != since[1]:
        changed = live.changed_tables(was(since[1]) if since[1] else None, state)
        if changed is None:
            parts.append(tables())
        else:
            found = cards([(pk, tag) for pk, _, tag in changed])
            parts.extend(found if found is not None else [None])
    if None in parts:
        return None
    return "".join([parts[0], *(live.out_of_band(part) for part in parts[1:])])


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
    parts = _LiveParts(request, tournament, stage, staff)
    # Our own templates' output, kept as rendered.
    context.update(
        rounds=parts.rounds,
        round=parts.round,
        standings_html=mark_safe(parts.standings_html()),
        tables_html=mark_safe(parts.tables_html()),
        live_poller=_poller(parts.url),
    )
    response = render(request, "tournaments/tournament.html", context)
    # The page holds the session's CSRF token (its language form): never shared.
    patch_cache_control(response, private=True, no_cache=True)
    return response


def _stage_from_query(request, tournament: Tournament) -> Stage | None:
    return selectors.pick_stage(tournament, request.GET.get("stage"), list(tournament.stages.all()))


def _live_answer(
    request, tag: str, html: str | None, *, shared: bool, from_cache: bool
) -> HttpResponse:
    """A live poll's answer: 204 when nothing changed (``html`` None), 304 for an
    unchanged conditional request, else the changes; with headers that let a proxy in
    front answer the crowd, and that say whether the cache alone answered it."""
    etag = f'"{tag}"'
    if html is None:
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
    # and passes signed-in visitors through (docs/production.md, micro-caching).
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    return live.served(response, from_cache=from_cache)


def _param(request, name: str) -> str | None:
    return param_of(request.GET, name)


def param_of(query, name: str) -> str | None:
    """A poll's stage or round as it appears in a cache key: digits or nothing."""
    value = query.get(name, "")
    return value if value == "" or (value.isdigit() and len(value) < 6) else None


def live_poll(request, slug: str):
    """The tournament page's one poll. It carries the tags of the standings (``s``) and of
    the tables (``t``) the page holds: 204 while neither changed, else the new poller and,
    out of band, the standings if they changed and the tables that did (the whole tables
    part when the round or its set of tables changed).

    A public poll is answered from the cache: one read when nothing changed, a few more
    for the changed parts (each rendered once per change, by whichever poll first needs
    it). The database is asked only when a kept state or fragment is missing.
    """
    stage_param, round_param = _param(request, "stage"), _param(request, "round")
    everyone = request.GET.get("all") == "1"
    since = (request.GET.get("s", ""), request.GET.get("t", ""))
    keyed = stage_param is not None and round_param is not None
    if keyed and not live.signed_in(request) and since[1][:1] == "p":
        standings_key = live.standings_key(slug, stage_param)
        tables_key = live.tables_key(slug, stage_param, round_param)
        kept = cache.get_many([live.everyone_key(slug), standings_key, tables_key])
        mark, state = kept.get(standings_key), kept.get(tables_key)
        # A stale state is read again by one poll; the others are answered from it meanwhile.
        if (
            live.seen_by_everyone(kept, slug)
            and mark is not None
            and state is not None
            and (state.fresh or not live.claim_refresh(tables_key))
        ):
            if (mark.tag, state.tag) == since:
                return _live_answer(
                    request, _page_tag(mark, state), None, shared=True, from_cache=True
                )
            # The pollers that last heard from the same state share this answer: with a
            # round read again every TABLES_HOLD seconds, many of them do.
            language = get_language()
            query = f"{slug}:{stage_param}:{round_param}:{int(everyone)}:{language}"
            answer_key = f"live:answer:{query}:{live.digest(*since)}:{_page_tag(mark, state)}"
            html = cache.get(answer_key)
            if html is None:
                url = _live_url(slug, stage_param, round_param, everyone, mark, state)
                html = _changes(
                    _poller(url),
                    mark,
                    state,
                    since,
                    standings=lambda: cache.get(_standings_html_key(slug, everyone, mark.tag)),
                    tables=lambda: cache.get(_tables_html_key(slug, state.tag)),
                    was=lambda tag: cache.get(live.was_key(tag)),
                    cards=lambda tables: _cached_cards(tables, language),
                )
                if html is not None:
                    cache.set(answer_key, html, live.TAG_SECONDS)
            if html is not None:
                return _live_answer(
                    request, _page_tag(mark, state), html, shared=True, from_cache=True
                )
    tournament = _visible(request, slug, noted=True)
    stage = _stage_from_query(request, tournament)
    staff = allowed(request.user, "tournament.see_drafts", tournament)
    parts = _LiveParts(request, tournament, stage, staff)
    if keyed and (stage_param == "" or stage_param == parts.stage_param):
        live.keep_standings(live.standings_key(slug, stage_param), parts.mark)
        if not staff and (round_param == "" or round_param == parts.pinned):
            # Rendered before they are kept, so that the polls answered from the kept
            # state find every part they may send (in this language) in the cache.
            parts.standings_html()
            parts.tables_html()
            key = live.tables_key(slug, stage_param, round_param)
            cache.set(key, parts.state, live.TAG_SECONDS)
            live.refreshed(key)
    tag = _page_tag(parts.mark, parts.state)
    html = None
    if (parts.mark.tag, parts.state.tag) != since:
        html = _changes(
            _poller(parts.url),
            parts.mark,
            parts.state,
            since,
            standings=parts.standings_html,
            tables=parts.tables_html,
            was=lambda tag: cache.get(live.was_key(tag)),
            cards=parts.cards,
        )
    return _live_answer(
        request, tag, html, shared=not request.user.is_authenticated, from_cache=False
    )


def _cached_cards(tables: list[tuple[int, str]], language: str) -> list[str] | None:
    """The cards of these tables from the cache, or None if one of them is not there."""
    keys = [live.card_key(tag, language) for _, tag in tables]
    found = cache.get_many(keys)
    return [found[key] for key in keys] if len(found) == len(keys) else None


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
            "columns": _metric_columns(order),
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
    keys = [live.standings_key(slug, ""), live.tables_key(slug, "", "")]
    if request.htmx:
        kept = cache.get_many([live.everyone_key(slug), *keys])
        if (
            live.seen_by_everyone(kept, slug)
            and keys[0] in kept
            and keys[1] in kept
            and kept[keys[1]].fresh
        ):
            html = cache.get(_screen_key(slug, number, kept[keys[0]], kept[keys[1]]))
            if html is not None:
                return HttpResponse(html)
    tournament = _visible(request, slug, noted=True)
    stages = list(tournament.stages.all())
    stage = selectors.pick_stage(tournament, None, stages)
    rounds = selectors.rounds_of(stage, include_drafts=False) if stage else []
    current = selectors.pick_round(rounds, None)
    mark = selectors.standings_mark(tournament, stage)
    state = live.tables_state(current, staff=False)
    live.keep_standings(keys[0], mark)
    cache.set(keys[1], state, live.TAG_SECONDS)
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
        "columns": _metric_columns(view.order)[:3],
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

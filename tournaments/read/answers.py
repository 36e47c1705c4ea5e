"""The live answer of a tournament: what changed, for one viewer, since the tags they hold.

Every reader of a tournament's live state asks ``domain.live.live_answer`` with a
``Question``, which tournaments answers with ``answer_tournament`` (registered in its
``ready``): the tournament page's poll (``views.live_poll``), the stream's feeds
(``tournaments.stream``), the hall screen (``views.screen``) and the standings API's kept
answer. A ``Question`` names the event, the stage and round followed (as in the poll's
query) and the tags held; a ``Viewer`` (``domain.live``) says who asks. The ``Answer``
holds the standings mark and the tables state now, and, when the question asks for them,
the changes as the page swaps them in: the new poller, and out of band the standings if
their tag changed and the tables that did.

The answer comes from the cache (``tournaments.read.live``) when it can: one read of
whether every visitor may see the event, the standings mark and the tables state; a few
more for the changed parts, each rendered once per change by whichever question first
needed it. Only a viewer who sees the public view for sure (no session, or a question
that never shows drafts) is answered there, and only while every visitor may see the
event. Otherwise the database is asked: the event's visibility is checked for this
viewer (and noted for the fast paths), the parts are read, kept for the next questions
and rendered.
"""

from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import get_language, gettext

from accounts.permissions import allowed
from domain.live import Viewer
from tournaments.models import Stage, Tournament
from tournaments.read import live, selectors
from tournaments.read.live import StandingsMark, TablesState
from tournaments.read.standings import METRICS

# A page shows this many standings rows unless asked for all: a phone on a slow
# connection should not download a thousand rows to see the top of the table.
STANDINGS_SHOWN = 100
POLL_SECONDS = 5  # how often a page asks whether its live parts changed


def param_of(query, name: str) -> str | None:
    """A poll's stage or round as it appears in a cache key: digits or nothing."""
    value = query.get(name, "")
    return value if value == "" or (value.isdigit() and len(value) < 6) else None


@dataclass(frozen=True)
class Question:
    """What a reader of the live state asks: the event, the stage and round it follows as
    the poll's query names them ("" for the default stage and the latest round), whether
    it shows every standings row, and the tags it holds (standings, tables), or None when
    it holds none and wants the state alone (no changes rendered).

    ``tables``: whether it follows the tables at all (the standings API does not).
    ``along``: the reader's own kept answers, read in the same round trip as the tags."""

    slug: str
    stage: str = ""
    round: str = ""
    all_rows: bool = False
    since: tuple[str, str] | None = None
    tables: bool = True
    along: tuple[str, ...] = ()

    @classmethod
    def of(cls, slug: str, query, **more) -> "Question":
        """The question of a poll's query (``stage``, ``round``, ``all``, ``s``, ``t``)."""
        return cls(
            slug,
            stage=query.get("stage", ""),
            round=query.get("round", ""),
            all_rows=query.get("all") == "1",
            since=(query.get("s", ""), query.get("t", "")),
            **more,
        )

    @property
    def keyed(self) -> bool:
        """Whether the stage and round are ones a cache key may hold (digits or nothing)."""
        return param_of({"stage": self.stage}, "stage") is not None and (
            param_of({"round": self.round}, "round") is not None
        )


@dataclass
class Answer:
    """The live state now for one question: the standings mark, the tables state (None
    when the question does not follow the tables), the changes since its tags (None when
    nothing changed, or when it asked for none), whether it may go to everyone, and
    whether the cache alone gave it. ``parts``: what the database was read into, when it
    was asked; ``along``: the reader's own kept answers found with the tags."""

    mark: StandingsMark
    state: TablesState | None
    html: str | None
    shared: bool
    from_cache: bool
    parts: "LiveParts | None" = None
    along: dict | None = None

    @property
    def tags(self) -> tuple[str, str]:
        return self.mark.tag, self.state.tag if self.state is not None else ""

    @property
    def tag(self) -> str:
        """The tags as one (the poll's ETag): standings, then tables."""
        return "{}.{}".format(*self.tags)


def answer_tournament(
    question: Question, viewer: Viewer, *, kept: bool = True, database: bool = True
) -> Answer | None:
    """What changed for ``viewer`` since ``question.since``: from the cache when it can
    (``kept``), else from the database (``database``). None when the event is not one
    this viewer may see, or, without ``database``, when the cache cannot answer."""
    if kept and question.keyed and viewer.public:
        answer = _kept_answer(question)
        if answer is not None:
            return answer
    if not database:
        return None
    return _asked_answer(question, viewer)


def _kept_answer(question: Question) -> Answer | None:
    """The answer as the cache has it, if every visitor may see the event and the tags are
    kept (a stale tables state read again by one question while the others are answered
    from it); None to ask the database."""
    slug, since = question.slug, question.since
    if since is not None and since[1][:1] != "p" and question.tables:
        return None  # a page that held the staff view (or nothing): the database tells
    standings_key = live.standings_key(slug, question.stage)
    keys = [live.everyone_key(slug), standings_key]
    tables_key = live.tables_key(slug, question.stage, question.round)
    if question.tables:
        keys.append(tables_key)
    found = cache.get_many([*keys, *question.along])
    mark = found.get(standings_key)
    state = found.get(tables_key) if question.tables else None
    if not live.seen_by_everyone(found, slug) or mark is None:
        return None
    if question.tables and (state is None or (not state.fresh and live.claim_refresh(tables_key))):
        return None
    along = {key: found[key] for key in question.along if key in found}
    answer = Answer(mark, state, None, shared=True, from_cache=True, along=along)
    if since is None or answer.tags == since or not question.tables:
        return answer
    # The questions that last heard from the same state share this answer: with a round
    # read again every TABLES_HOLD seconds, many of them do.
    language = get_language()
    asked = f"{slug}:{question.stage}:{question.round}:{int(question.all_rows)}:{language}"
    answer_key = f"live:answer:{asked}:{live.digest(*since)}:{answer.tag}"
    html = cache.get(answer_key)
    if html is None:
        url = live_url(slug, question.stage, question.round, question.all_rows, mark, state)
        html = _changes(
            poller(url),
            mark,
            state,
            since,
            standings=lambda: cache.get(standings_html_key(slug, question.all_rows, mark.tag)),
            tables=lambda: cache.get(tables_html_key(slug, state.tag)),
            was=lambda tag: cache.get(live.was_key(tag)),
            cards=lambda tables: _cached_cards(tables, language),
        )
        if html is None:
            return None
        cache.set(answer_key, html, live.TAG_SECONDS)
    answer.html = html
    return answer


def _asked_answer(question: Question, viewer: Viewer) -> Answer | None:
    """The answer from the database, once the event's visibility is checked (and noted for
    the fast paths); the parts read are kept for the next questions."""
    tournament = Tournament.objects.filter(slug=question.slug).first()
    if tournament is None:
        return None
    live.note_visibility(tournament)
    if not allowed(viewer.user, "tournament.view", tournament):
        return None
    stage = selectors.pick_stage(question.stage, list(tournament.stages.all()))
    staff = viewer.drafts and allowed(viewer.user, "tournament.see_drafts", tournament)
    parts = LiveParts(question, tournament, stage, staff)
    slug = question.slug
    if question.keyed and question.stage in ("", parts.stage_param):
        live.keep_standings(live.standings_key(slug, question.stage), parts.mark)
        if not staff and question.round in ("", parts.pinned):
            # Rendered before they are kept, so that the questions answered from the kept
            # state find every part they may send (in this language) in the cache.
            parts.standings_html()
            parts.tables_html()
            key = live.tables_key(slug, question.stage, question.round)
            cache.set(key, parts.state, live.TAG_SECONDS)
            live.refreshed(key)
    answer = Answer(
        parts.mark,
        parts.state,
        None,
        shared=not viewer.user.is_authenticated,
        from_cache=False,
        parts=parts,
    )
    if question.since is not None and answer.tags != question.since:
        answer.html = _changes(
            poller(parts.url),
            parts.mark,
            parts.state,
            question.since,
            standings=parts.standings_html,
            tables=parts.tables_html,
            was=lambda tag: cache.get(live.was_key(tag)),
            cards=parts.cards,
        )
    return answer


# --- the page's live parts -----------------------------------------------------------------


def metric_columns(order: list[str]) -> list[dict]:
    """The standings' columns of these metrics, labelled in the active language."""
    return [
        {"key": key, "label": gettext(METRICS[key].label), "help": gettext(METRICS[key].explain)}
        for key in order
        if key in METRICS
    ]


def standings_html_key(slug: str, all_rows: bool, tag: str) -> str:
    # The tag already names the stage (its digest holds the stage's id).
    return f"live:standings-html:{slug}:{int(all_rows)}:{tag}:{get_language()}"


def tables_html_key(slug: str, tag: str) -> str:
    # The tag names the round and its tables, and whether staff see drafts ("s"/"p").
    return f"live:tables-html:{slug}:{tag}:{get_language()}"


def live_url(slug: str, stage: str, round_: str, all_rows: bool, mark, state) -> str:
    """The poll's address for a page holding ``mark`` and ``state``."""
    query = f"stage={stage}&round={round_}" + ("&all=1" if all_rows else "")
    return reverse("tournament-live", args=[slug]) + f"?{query}&s={mark.tag}&t={state.tag}"


def poller(url: str) -> str:
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


class LiveParts:
    """The standings and tables parts of a tournament page as the database has them: their
    tags, and their HTML rendered once per tag and language (each table's card on its
    own, so that a hand at one table re-renders that card alone)."""

    def __init__(self, question: Question, tournament: Tournament, stage: Stage | None, staff):
        self.tournament, self.stage, self.staff = tournament, stage, staff
        self.all_rows = question.all_rows
        self.rounds = selectors.rounds_of(stage, include_drafts=staff) if stage else []
        chosen = question.round or ""
        self.round = selectors.pick_round(self.rounds, chosen)
        # Without a round chosen the page follows the stage's latest round.
        self.pinned = chosen if self.round and chosen == str(self.round.number) else ""
        self.mark = selectors.standings_mark(tournament, stage)
        self.state = live.tables_state(self.round, staff=staff)
        slug = tournament.slug
        self.stage_param = str(stage.order) if stage else ""
        self.url = live_url(
            slug, self.stage_param, self.pinned, self.all_rows, self.mark, self.state
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
                limit=None if self.all_rows else STANDINGS_SHOWN,
                mark=self.mark,
            )
            context = {**self.context, "standings": view, "columns": metric_columns(view.order)}
            return render_to_string("tournaments/_standings.html", context)

        key = standings_html_key(self.tournament.slug, self.all_rows, self.mark.tag)
        return live.fragment(key, build)

    def tables_html(self) -> str:
        def build() -> str:
            cards = self.cards(self.state.tags) if self.round else []
            return render_to_string("tournaments/_tables.html", {**self.context, "cards": cards})

        return live.fragment(tables_html_key(self.tournament.slug, self.state.tag), build)

    def cards(self, tables: list[tuple[int, str]]) -> list[str]:
        return table_cards(self.round, self.tournament, tables, self.context)


def table_cards(round_, tournament, tables: list[tuple[int, str]], context: dict) -> list[str]:
    """Each table's card, from the cache by its tag; only the changed ones are rendered."""
    language = get_language()
    keys = {pk: live.card_key(tag, language) for pk, tag in tables}
    found = cache.get_many(list(keys.values()))
    missing = [pk for pk, key in keys.items() if key not in found]
    if missing:
        fresh = {
            keys[view.match.pk]: render_to_string(
                "tournaments/_table.html", {**context, "table": view}
            )
            for view in selectors.tables_of(round_, tournament, only=missing)
            if view.match.pk in keys
        }
        cache.set_many(fresh, live.HTML_SECONDS)
        found.update(fresh)
    return [found[key] for key in keys.values() if key in found]


def _cached_cards(tables: list[tuple[int, str]], language: str) -> list[str] | None:
    """The cards of these tables from the cache, or None if one of them is not there."""
    keys = [live.card_key(tag, language) for _, tag in tables]
    found = cache.get_many(keys)
    return [found[key] for key in keys] if len(found) == len(keys) else None


def _changes(poller: str, mark, state, since: tuple[str, str], standings, tables, was, cards):
    """The answer to a question that holds the tags ``since``: the new poller, and out of
    band each part that changed (of the tables, only the changed cards when the tables
    held are known). ``standings``, ``tables``, ``was`` and ``cards`` get the HTML and
    the state a tag had; an answer one of them cannot give (None) makes the whole None."""
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

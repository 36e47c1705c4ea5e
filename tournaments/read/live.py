"""The live parts of the pages, kept in the cache so that a hall of phones costs little.

The tournament page polls once for both its parts, carrying the tags of what it shows,
and a tag changes only when what that viewer sees changes: a table's with its game and
match, the round's with its tables, the standings' with the snapshot's content. The
current tags sit in the cache under a key named by the poll's own query, so an unchanged
poll is answered after one cache read, with no query and no rendering.

The writers forget the standings' mark and a round's state once their transaction
commits. A hand is different: 64 tables each recording a hand every few seconds would
forget the round's state faster than the pollers could use it, so a hand only marks the
kept state stale within TABLES_HOLD seconds, and a state of a round in play is read
again every TABLES_HOLD seconds by one poll while the others are answered from it.

A changed part is rendered once per change and served to every viewer from the cache:
each table on its own (a hand at one table re-renders that table alone), and a poller is
sent only the tables that changed since the tag it holds.

The visibility check runs before any kept answer is read: whether every visitor may see
the event is kept in the cache too (``everyone_key``), read in the same one round trip as
the tags, and a fast path answers only when it says so; anyone else is answered from the
database, where visibility is checked. Each reader that goes to the database notes the
event's visibility again (a private one's 404 included), and changing the tournament's
settings forgets it with every kept state.

This module holds the tags, the keys and the kept states; the answer every reader gets
(the page's poll, the stream's feeds, the hall screen, the standings API's kept answer)
is assembled from them in ``tournaments.read.answers``.
"""

import hashlib
import time
from dataclasses import dataclass, replace
from datetime import datetime

from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache

from accounts.permissions import allowed
from scoring.models import Game
from scoring.receivers import live_key
from tournaments.models import Match, Round, Stage, Tournament

# Changes that no writer announces (an entrant renamed, a round finished, a stage that
# moves on) reach the pollers within this long.
TAG_SECONDS = 30
HTML_SECONDS = 120
# A recompute lands well within this; the page says "recounting" only once one is
# overdue, so the notice does not blink on and off with every finished game.
STALE_AFTER = 5
# What a reverse proxy or CDN in front may keep a public live part for.
PUBLIC_SECONDS = 2
# A hand at one table reaches the tables' pollers within this long (see table_changed).
TABLES_HOLD = 2


def digest(*parts) -> str:
    """A short tag for the parts: it changes when any of them does."""
    text = "|".join(str(part) for part in parts)
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def served(response, *, from_cache: bool):
    """Marks a live answer with how it was served: ``Server-Timing: cache;desc=hit`` when
    the cache alone answered it (no query, no rendering), ``cache;desc=miss`` when the
    database was asked. Browsers' developer tools show it; the live-load bench counts it."""
    response["Server-Timing"] = f"cache;desc={'hit' if from_cache else 'miss'}"
    return response


# --- keys ----------------------------------------------------------------------------------


def everyone_key(slug: str) -> str:
    """Where whether every visitor (signed out) may see the event is kept: the fast paths
    read it with the tags they compare and answer only when it holds."""
    return f"live:everyone:{slug}"


def note_visibility(tournament) -> bool:
    """Whether a signed-out visitor may see the tournament (no query), kept for the fast
    paths for as long as the tags they compare it with."""
    everyone = allowed(AnonymousUser(), "tournament.view", tournament)
    cache.set(everyone_key(tournament.slug), everyone, TAG_SECONDS)
    return everyone


def seen_by_everyone(kept: dict, slug: str) -> bool:
    """Whether the kept answers read with ``everyone_key`` may go to anyone."""
    return kept.get(everyone_key(slug)) is True


def tables_key(slug: str, stage: str, round_: str) -> str:
    """Where the public state of the tables a poll asks for (``stage`` and ``round`` as in
    its query, "" for the default and the latest) is kept: a poll behind it is answered
    without a query."""
    return f"live:tables:{slug}:{stage}:{round_}"


def standings_key(slug: str, stage: str) -> str:
    """Where the standings mark of a stage (its order, or "" for the default) is kept."""
    return f"live:standings:{slug}:{stage}"


def _tables_keys(slug: str, stage_order: int, round_number: int) -> list[str]:
    """The keys of every poll that may show this round: the round asked for by number,
    and the latest round, of the stage and by default."""
    return [
        tables_key(slug, stage, round_)
        for stage in (str(stage_order), "")
        for round_ in (str(round_number), "")
    ]


def forget_tables(slug: str, stage_order: int, round_number: int) -> None:
    """The round itself changed (published, tables added or moved): forget its tables'
    state now, so that pollers move to it on their next poll."""
    cache.delete_many(_tables_keys(slug, stage_order, round_number))


def table_changed(slug: str, stage_order: int, round_number: int) -> None:
    """A game at one of the round's tables changed: its pollers see it within
    TABLES_HOLD seconds. The kept state is marked stale by then rather than forgotten at
    every hand: 64 tables each recording a hand every few seconds would otherwise send
    most polls to the database. Costs one cache read per hand (and a write the first time)."""
    keys = _tables_keys(slug, stage_order, round_number)
    if TABLES_HOLD <= 0:
        cache.delete_many(keys)
        return
    by = time.time() + TABLES_HOLD
    kept = cache.get_many(keys)
    sooner = {
        key: replace(state, fresh_until=by) for key, state in kept.items() if state.fresh_until > by
    }
    if sooner:
        cache.set_many(sooner, TAG_SECONDS)


def public_standings_key(slug: str, stage: str, gzipped: bool) -> str:
    """Where the standings API's answer to a signed-out poller is kept, with the mark it
    was made for: a poller whose standings changed is sent it without a query."""
    return f"live:standings-public:{slug}:{stage}:{'gz' if gzipped else 'json'}"


def forget_standings(slug: str, stage_orders) -> None:
    stages = [str(order) for order in stage_orders] + [""]
    cache.delete_many(
        [standings_key(slug, stage) for stage in stages]
        + [public_standings_key(slug, stage, gzipped) for stage in stages for gzipped in (0, 1)]
    )


def forget_standings_of(tournament_id: int) -> None:
    """The standings of a tournament changed (or went stale): forget their marks."""
    stages = list(
        Stage.objects.filter(tournament_id=tournament_id).values_list("order", "tournament__slug")
    )
    if stages:
        forget_standings(stages[0][1], [order for order, _ in stages])


def forget_tournament(tournament_id: int) -> None:
    """Forget every live part of a tournament (its settings or visibility changed): its
    visibility as kept, its tables and standings, and its games' pages' revisions."""
    slug = Tournament.objects.filter(pk=tournament_id).values_list("slug", flat=True).first()
    if slug is not None:
        cache.delete(everyone_key(slug))
    games = Game.objects.filter(match__round__stage__tournament_id=tournament_id)
    cache.delete_many([live_key(pk) for pk in games.values_list("pk", flat=True)])
    rounds = list(
        Round.objects.filter(stage__tournament_id=tournament_id).values_list(
            "stage__tournament__slug", "stage__order", "number"
        )
    )
    for slug, stage_order, number in rounds:
        forget_tables(slug, stage_order, number)
    forget_standings_of(tournament_id)


def forget_round(round_) -> None:
    """A round was published or its tables changed: pollers of the stage move to it."""
    stage = round_.stage
    forget_tables(stage.tournament.slug, stage.order, round_.number)


# --- tables --------------------------------------------------------------------------------

# Everything of a match and its game that a table card shows, but the entrants' names
# (those change rarely and reach the cards within HTML_SECONDS).
TABLE_FIELDS = (
    "pk",
    "table_number",
    "slot",
    "bye",
    "needs_attention",
    "attention_reason",
    "game_id",
    "game__revision",
    "game__status",
)


@dataclass(frozen=True)
class TablesState:
    """What a poller of one round's tables compares: the round's tag, what shapes the part
    around the cards (the round and its set of tables), and each table's own tag."""

    tag: str
    head: str
    tables: tuple[tuple[int, int, str], ...]  # (match id, table number, tag) by number
    # Until when (epoch seconds) the state may be shown without asking the database: a
    # round being played is read again every TABLES_HOLD seconds (by one poll, while the
    # others are answered from this state), one at rest every TAG_SECONDS unless a
    # writer says otherwise.
    fresh_until: float = 0.0

    @property
    def fresh(self) -> bool:
        return time.time() < self.fresh_until

    @property
    def tags(self) -> list[tuple[int, str]]:
        return [(pk, tag) for pk, _, tag in self.tables]


def _table_rows(round_) -> list[tuple]:
    return list(
        Match.objects.filter(round=round_).order_by("table_number").values_list(*TABLE_FIELDS)
    )


def tables_state(round_, *, staff: bool) -> TablesState:
    """The round's tables as pollers compare them (one query), remembered under its tag for
    a while so that a poller still holding it is sent only the tables changed since."""
    rows = _table_rows(round_) if round_ else []
    tables = tuple((row[0], row[1], digest(*row)) for row in rows)
    head = (
        digest(
            round_.pk,
            round_.number,
            round_.status,
            round_.clock_deadline,  # the round clock, shown above the tables
            round_.clock_left,
            *(pk for pk, _, _ in tables),
        )
        if round_
        else "none"
    )
    # Staff see rounds in draft: their tags are never the public's.
    tag = ("s" if staff else "p") + digest(head, *(tag for _, _, tag in tables))
    playing = any(row[-1] == "in_progress" for row in rows)
    # (With no hold, the writers forget the state at every change instead.)
    fresh_for = TABLES_HOLD if playing and TABLES_HOLD > 0 else TAG_SECONDS
    state = TablesState(tag=tag, head=head, tables=tables, fresh_until=time.time() + fresh_for)
    cache.set(was_key(tag), state, HTML_SECONDS)
    return state


def claim_refresh(key: str) -> bool:
    """Whether this request reads a stale kept state again: the first to ask does, for a
    few seconds; the others are answered from the stale state meanwhile."""
    return cache.add(f"{key}:refresh", 1, 5)


def refreshed(key: str) -> None:
    cache.delete(f"{key}:refresh")


def was_key(tag: str) -> str:
    """Where the tables state of a tag is remembered, for the pollers that hold it."""
    return f"live:tables-was:{tag}"


def changed_tables(was: TablesState | None, now: TablesState) -> list[tuple[int, int, str]] | None:
    """The tables whose cards changed from ``was`` to ``now``; None when the part around
    them changed too (or ``was`` is not known), so that the whole part is sent."""
    if was is None or was.head != now.head:
        return None
    before = dict(was.tags)
    return [table for table in now.tables if before.get(table[0]) != table[2]]


def card_key(tag: str, language: str) -> str:
    return f"live:table:{tag}:{language}"


def fragment(key: str, build) -> str:
    """A rendered live part, built once per key (its tag and all that shapes its HTML)."""
    html = cache.get(key)
    if html is None:
        html = build()
        cache.set(key, html, HTML_SECONDS)
    return html


def out_of_band(html: str) -> str:
    """A part to swap in by its id wherever it is on the page (htmx ``hx-swap-oob``): the
    attribute goes on the part's first element."""
    space = html.index(" ", html.index("<"))
    return f'{html[:space]} hx-swap-oob="true"{html[space:]}'


# --- standings -----------------------------------------------------------------------------


@dataclass(frozen=True)
class StandingsMark:
    """What a standings poller compares: the snapshot's content and whether it is behind."""

    digest: str
    stale: bool  # a recompute is pending
    overdue: bool  # pending for longer than STALE_AFTER: the page says so
    computed_at: datetime | None  # the last recompute
    changed_at: datetime | None  # the last recompute that changed these standings

    @property
    def tag(self) -> str:
        """The page's tag: the content, and the notice when a recompute is overdue."""
        return self.digest + ("-r" if self.overdue else "")

    @property
    def etag(self) -> str:
        """The API's tag: the content and the ``stale`` field it answers with."""
        return f'"{self.digest}{"-stale" if self.stale else ""}"'

    @property
    def keep_for(self) -> int:
        """How long the mark holds without a writer's word: a pending recompute turns
        overdue by the clock alone."""
        return STALE_AFTER if self.stale and not self.overdue else TAG_SECONDS


def keep_standings(key: str, mark: StandingsMark) -> None:
    cache.set(key, mark, mark.keep_for)


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip: named (or ``*``) without ``q=0``."""
    for coding in accept_encoding.lower().split(","):
        name, _, params = coding.partition(";")
        if name.strip() not in ("gzip", "*"):
            continue
        quality = params.strip().removeprefix("q=").strip() if "q=" in params else "1"
        try:
            return float(quality) > 0
        except ValueError:
            return False
    return False

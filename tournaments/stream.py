"""The tournament page's live parts pushed with Server-Sent Events, under an ASGI server.

A page that follows a round in play would find something new on nearly every 5 s poll
(64 tables each recording a hand every 1-2 s), so its polls are mostly 200s. Here the page
holds one stream instead, and the server sends it the same answer the poll would give
(the new poller and the changed parts out of band), at most once every TICK seconds.

The work does not grow with the viewers: the streams of one process that follow the same
query (stage, round, all rows, language; signed-out visitors) share one ``Feed``, which
asks for the live answer (``domain.live.live_answer``, as the page's poll
does: one cache read while nothing changed, the changed parts from the cache otherwise)
once a TICK and hands its answer to all of them.
A stream that joins with other tags than the feed's is caught up first, with an answer
shared by every stream that joins with the same tags within a tick.

A stream is sent gzip-compressed to a browser that accepts it (all do), and compressed
once for all of them: each event is deflated on its own by a fresh compressor and ends on
a flush, so that the same bytes continue any stream's deflate data; each stream adds only
the gzip header, its running checksum and the trailer. At the pace of a round in play an
event of 64 changed table cards shrinks about thirteen times (40 KB to 3 KB). The streams
of a feed take its news spread over up to SPREAD seconds, each at its own offset, so the
writes of a thousand streams do not all land at one instant.

Feeds are keyed by what their viewers may see, never by who they are: every visitor of a
public event shares the public view (signed in or not; a session cookie that names no
user is a signed-out visitor's), and the event's staff share the staff view (drafts
included), asked every POLL_SECONDS. Before a stream joins a feed, and before every
question a feed asks, the visibility check runs (the event is visible to this viewer;
the stage and round asked for are ones of this event the viewer may see), ahead of any
cache read. A stream holds no database connection: the session is resolved, and the
check made, in one thread of the process (``_door``), the feeds' questions in another
(``_asking``), each closing its connection after a question as a request would.

A stream ends after STREAM_SECONDS so that servers recycle connections; the page opens a
new one with the tags it then holds. Served by a WSGI server, the view answers 204, which
tells the page to stop trying, and the page keeps polling. Past LIVE_STREAMS_PER_ADDRESS
streams from one client address the answer is 429, past LIVE_FEEDS_PER_PROCESS feeds in
the process 503, both with Retry-After: the page polls meanwhile.

Under an ASGI server, the stream edge (``tournaments.stream_edge``, the application
``config.asgi`` serves) answers every visitor's stream straight from its feed through
``open_stream`` and ``event_stream``, without Django's request handling and middleware
(whose per-request thread would hold a database connection for the stream's life); every
other request goes through Django. ``live_events`` is the same stream as a Django view.
"""

import asyncio
import contextlib
import contextvars
import logging
import queue
import random
import threading
import time
import zlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from importlib import import_module

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.models import AnonymousUser
from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections, connections
from django.http import Http404, HttpRequest, HttpResponse, QueryDict, StreamingHttpResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers

from accounts.addresses import client_address
from accounts.permissions import allowed
from accounts.views import SESSION_KEY as LANGUAGE_KEY
from config import metrics
from domain.live import Viewer, live_answer
from tournaments.models import Round, Tournament
from tournaments.read import answers, live, selectors

logger = logging.getLogger(__name__)


def _setting(name: str, default: float) -> float:
    return getattr(settings, name, default)


def tick_seconds() -> float:
    """How often a feed asks for changes: the coalescing interval of the pushes."""
    return _setting("LIVE_STREAM_TICK", 2.0)


def heartbeat_seconds() -> float:
    """A comment line this often keeps proxies and phones from closing an idle stream."""
    return _setting("LIVE_STREAM_HEARTBEAT", 15.0)


def spread_seconds() -> float:
    """A feed's news reaches its streams spread over this long (at most half a tick), each
    stream at its own fixed offset, so that a thousand writes do not land at one instant
    and hold up the referees' requests behind them."""
    return max(0.0, min(_setting("LIVE_STREAM_SPREAD", 1.0), tick_seconds() / 2))


def stream_seconds() -> float:
    """A stream ends after this long; the page opens a new one."""
    return _setting("LIVE_STREAM_SECONDS", 300.0)


def streams_per_address() -> int:
    """The streams one client address may hold open in this process (a venue's phones
    share its router's address); past it the page polls."""
    return int(_setting("LIVE_STREAMS_PER_ADDRESS", 50))


def feeds_per_process() -> int:
    """The feeds this process keeps at once: each asks for changes once a tick."""
    return int(_setting("LIVE_FEEDS_PER_PROCESS", 200))


# Seconds a refused stream is told to wait (Retry-After) before the page tries again.
RETRY_AFTER = {429: 60, 503: 30}


class Message:
    """One event as the stream sends it, encoded once; deflated once, on first use, for
    every stream that takes gzip."""

    __slots__ = ("_packed", "raw")

    def __init__(self, raw: bytes):
        self.raw = raw
        self._packed: bytes | None = None

    @property
    def packed(self) -> bytes:
        """Raw deflate data of this event alone, ending byte-aligned on a sync flush and not
        final: it continues any deflate stream that ended the same way."""
        if self._packed is None:
            squeezer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
            self._packed = squeezer.compress(self.raw) + squeezer.flush(zlib.Z_SYNC_FLUSH)
        return self._packed


class Gzip:
    """One stream's gzip member around the shared deflate data of its events."""

    # Magic, deflate, no flags, no time, no extra flags, operating system unknown.
    HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    LAST_BLOCK = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS).flush()  # empty, final

    def __init__(self):
        self.checksum = 0
        self.size = 0

    def take(self, message: Message) -> bytes:
        self.checksum = zlib.crc32(message.raw, self.checksum)
        self.size += len(message.raw)
        return message.packed

    def trailer(self) -> bytes:
        return (
            self.LAST_BLOCK
            + self.checksum.to_bytes(4, "little")
            + (self.size & 0xFFFFFFFF).to_bytes(4, "little")
        )


RETRY = Message(b"retry: 3000\n\n")  # the reconnection delay if the connection drops
STILL_HERE = Message(b": still here\n\n")
END = Message(b"event: end\ndata: \n\n")


def _question(call):
    """``call`` run as a request would run: its thread's database connection closed (or
    kept, within CONN_MAX_AGE) before and after, never held between questions."""

    def asked(*arguments):
        close_old_connections()
        try:
            return call(*arguments)
        finally:
            close_old_connections()

    return asked


def _sees(user, tournament: Tournament | None, staff: bool) -> bool:
    """Whether ``user`` may see the event, and with ``staff`` its drafts too."""
    return (
        tournament is not None
        and allowed(user, "tournament.view", tournament)
        and (not staff or allowed(user, "tournament.see_drafts", tournament))
    )


@_question
def _ask(slug: str, query: dict, since: tuple[str, str], language: str, user, staff: bool):
    """The live answer to a page holding ``since``: (tags now, HTML or None when
    unchanged), or None if the tournament is not (or no longer) visible in this view.

    The live answer checks the event's visibility before it reads a kept answer; the
    staff view also ends once the user the feed asks as no longer sees drafts, and its
    streams are admitted again, each as its own viewer."""
    if staff and not _sees(user, Tournament.objects.filter(slug=slug).first(), staff):
        return None
    question = answers.Question.of(slug, {**query, "s": since[0], "t": since[1]})
    # The staff view is a signed-in one: never answered from the public parts' cache.
    with translation.override(language):
        answer = live_answer(question, Viewer(user, signed_in=staff))
    return None if answer is None else (answer.tags, answer.html)


@dataclass(frozen=True)
class Admission:
    """What a stream's viewer may follow: the staff view or the public one, as whom the
    feed asks, and the language the user saved (None: the browser's)."""

    staff: bool
    user: object
    language: str | None


def _viewer(session_key: str):
    """The user a session cookie names (AnonymousUser when it names none, as for a made-up
    cookie) and the language that user saved."""
    if not session_key:
        return AnonymousUser(), None
    request = HttpRequest()
    request.session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    user = auth.get_user(request)
    language = request.session.get(LANGUAGE_KEY)
    return user, (language if language in dict(settings.LANGUAGES) else None)


def _canonical(value: str) -> bool:
    return value == "" or value == str(int(value))


@dataclass
class _Event:
    """What the admissions of one batch read of an event, once: the tournament, its
    stages and the status of each of their rounds, and its viewers' roles as asked."""

    tournament: Tournament | None
    stages: list = field(default_factory=list)
    rounds: dict = field(default_factory=dict)  # (stage id, number): status
    staff: dict = field(default_factory=dict)  # user id: whether they see drafts

    @classmethod
    def read(cls, slug: str) -> "_Event":
        tournament = Tournament.objects.filter(slug=slug).first()
        if tournament is None:
            return cls(None)
        rounds = Round.objects.filter(stage__tournament=tournament)
        return cls(
            tournament,
            list(tournament.stages.all()),
            {
                (stage, number): status
                for stage, number, status in rounds.values_list("stage_id", "number", "status")
            },
        )

    def sees_drafts(self, user) -> bool:
        if user.pk not in self.staff:
            self.staff[user.pk] = allowed(user, "tournament.see_drafts", self.tournament)
        return self.staff[user.pk]

    def names_a_round(self, stage: str, round_: str, staff: bool) -> bool:
        """Whether ``stage`` and ``round_`` (as in the poll's query: "" for the default and
        the latest) name a stage of this event and a round of it this viewer may see."""
        if not (_canonical(stage) and _canonical(round_)):
            return False  # "01" would follow round 1 in a feed of its own
        if stage == "" and round_ == "":
            return True
        chosen = selectors.pick_stage(stage or None, self.stages)
        if chosen is None or (stage and str(chosen.order) != stage):
            return False
        if round_ == "":
            return True
        status = self.rounds.get((chosen.pk, int(round_)))
        return status is not None and (staff or status != Round.Status.DRAFT)


@_question
def _admit(questions: list[tuple[str, str, str, str]]) -> list[Admission | int]:
    """For each (event, stage, round, session key) asked: who the stream's viewer is and
    what they may follow, or 404 when the event, its stage or its round is not one they
    may see. Each event and each session is read once for the whole batch."""
    viewers = {key: _viewer(key) for key in {question[3] for question in questions}}
    events = {slug: _Event.read(slug) for slug in {question[0] for question in questions}}
    answers = []
    for slug, stage, round_, session_key in questions:
        (user, language), event = viewers[session_key], events[slug]
        if not _sees(user, event.tournament, staff=False):
            answers.append(404)
            continue
        staff = user.is_authenticated and event.sees_drafts(user)
        if not event.names_a_round(stage, round_, staff):
            answers.append(404)
            continue
        answers.append(Admission(staff, user if staff else AnonymousUser(), language))
    return answers


class _Door:
    """The thread that admits streams: it takes every admission waiting at once and
    decides them together (``_admit``), so that a crowd, or a flood of made-up cookies
    and rounds, costs a batch of questions rather than a round trip each."""

    def __init__(self):
        self.waiting: queue.SimpleQueue = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()

    def admit(self, *question: str) -> asyncio.Future:
        loop = asyncio.get_running_loop()
        decided = loop.create_future()
        self.waiting.put((question, loop, decided))
        with self.lock:
            if self.thread is None:
                self.thread = threading.Thread(target=self._work, name="live-door", daemon=True)
                self.thread.start()
        return decided

    def _work(self) -> None:
        while True:
            batch = [self.waiting.get()]
            while True:
                try:
                    batch.append(self.waiting.get_nowait())
                except queue.Empty:
                    break
            try:
                answers = _admit([question for question, _, _ in batch])
            except Exception as error:  # every stream of the batch hears of it
                answers = [error] * len(batch)
            for (_, loop, decided), answer in zip(batch, answers, strict=True):
                with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits
                    loop.call_soon_threadsafe(_settle, decided, answer)


def _settle(decided: asyncio.Future, answer) -> None:
    if decided.done():
        return  # the stream left while waiting
    if isinstance(answer, Exception):
        decided.set_exception(answer)
    else:
        decided.set_result(answer)


# The feeds' questions go to one thread and the streams' admissions to another: two
# database connections for all the streams of a process, where a thread per stream
# (asgiref's per-request thread) would hold a connection each for as long as it lasts.
# Apart, a crowd being admitted does not delay the news of the feeds already running.
_asking = ThreadPoolExecutor(max_workers=1, thread_name_prefix="live-stream")
_door = _Door()


async def _ask_async(*arguments):
    return await asyncio.get_running_loop().run_in_executor(_asking, partial(_ask, *arguments))


async def _admission(slug: str, stage: str, round_: str, session_key: str) -> Admission | int:
    return await _door.admit(slug, stage, round_, session_key)


@dataclass(eq=False)
class Feed:
    """The live answers of one query in this process, shared by the streams that follow it."""

    key: tuple
    slug: str
    query: dict
    language: str
    user: object
    staff: bool
    tick: float
    tags: tuple[str, str] | None = None
    previous: tuple[str, str] | None = None
    message: Message | None = None  # the event from ``previous`` to ``tags``, if any
    gone: bool = False  # the tournament is no longer visible
    listeners: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task | None = None
    # Catch-up answers by the tags a page held, each kept for a tick (when it was asked,
    # and the answer to come): see ``catch_up``.
    answers: dict = field(default_factory=dict)

    async def ask(self, since: tuple[str, str]):
        return await _ask_async(self.slug, self.query, since, self.language, self.user, self.staff)

    async def catch_up(self, since: tuple[str, str]):
        """What a stream whose page holds ``since`` is sent first: (tags now, the event or
        None when nothing changed), or None if the tournament is gone.

        Shared, like the feed's news: the streams that join (or fall behind) with the
        same tags within a tick get one answer, asked and compressed once. A crowd opening
        the page at a round's start holds the same tags, and would otherwise put a
        question each in the one thread that asks, ahead of the feed's own."""
        now = time.monotonic()
        for old in [key for key, (asked, _) in self.answers.items() if now - asked > self.tick]:
            del self.answers[old]
        kept = self.answers.get(since)
        if kept is None:
            kept = (now, asyncio.ensure_future(self._answer(since)))
            self.answers[since] = kept
        try:
            # A stream that leaves while waiting does not cancel the others' answer.
            return await asyncio.shield(kept[1])
        except Exception:
            if self.answers.get(since) is kept:
                del self.answers[since]  # the next stream asks again
            raise

    async def _answer(self, since: tuple[str, str]):
        got = await self.ask(since)
        if got is None:
            return None
        return got[0], (_event(got[1]) if got[1] is not None else None)

    def leave(self) -> None:
        self.listeners -= 1
        if not self.listeners and self.task is None and _feeds.get(self.key) is self:
            del _feeds[self.key]

    def announce(self) -> None:
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()

    async def run(self) -> None:
        try:
            while self.listeners and not self.gone:
                await asyncio.sleep(self.tick)
                if not self.listeners or self.tags is None:
                    continue
                try:
                    got = await self.ask(self.tags)
                except Exception:
                    # A question that failed (the database busy or gone a moment) is
                    # asked again next tick, as the page's poll would be: the feed and
                    # its streams live on, and hear of the change once it is answered.
                    logger.warning("live feed %s: question failed", self.slug, exc_info=True)
                    continue
                if got is None:
                    self.gone = True
                elif got[0] != self.tags:
                    # Encoded (and compressed) once for every stream that follows.
                    self.message = _event(got[1]) if got[1] is not None else None
                    self.previous, self.tags = self.tags, got[0]
                else:
                    continue
                self.announce()
        finally:
            if _feeds.get(self.key) is self:
                del _feeds[self.key]


_feeds: dict[tuple, Feed] = {}


def _feed(slug: str, query: dict, language: str, admission: Admission) -> Feed | None:
    """The feed of this query in this view, new if need be; None when the process keeps
    as many feeds as it may."""
    view = "staff" if admission.staff else "public"
    key = (id(asyncio.get_running_loop()), slug, tuple(sorted(query.items())), language, view)
    feed = _feeds.get(key)
    if feed is None or feed.gone:
        if len(_feeds) >= feeds_per_process():
            return None
        feed = Feed(
            key=key,
            slug=slug,
            query=query,
            language=language,
            user=admission.user,
            staff=admission.staff,
            # The staff view is rendered from the database: asked at the poll's pace.
            tick=answers.POLL_SECONDS if admission.staff else tick_seconds(),
        )
        _feeds[key] = feed
    return feed


# Open streams by client address, for LIVE_STREAMS_PER_ADDRESS.
_streams_at: Counter = Counter()


def _release(address: str) -> None:
    metrics.stream_closed()
    _streams_at[address] -= 1
    if _streams_at[address] <= 0:
        del _streams_at[address]


def _event(html: str) -> Message:
    data = "".join(f"data: {line}\n" for line in html.splitlines() or [""])
    return Message(f"event: live\n{data}\n".encode())


async def event_stream(opened: "Opened", gzip: bool):
    """The stream of one page: its catch-up, then each change the feed hears of, with a
    heartbeat between, until STREAM_SECONDS; then an ``end`` event. With ``gzip``, one gzip
    member of the events' shared deflate data."""
    feed, tags, first = opened.feed, opened.tags, opened.first
    deadline = time.monotonic() + stream_seconds()
    beat = heartbeat_seconds()
    offset = random.random() * spread_seconds()  # spreads the load; nothing secret
    wrap = Gzip() if gzip else None

    def out(message: Message) -> bytes:
        return wrap.take(message) if wrap is not None else message.raw

    try:
        yield (Gzip.HEADER if wrap is not None else b"") + out(RETRY)
        if first is not None:
            yield out(first)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or feed.gone:
                break
            if feed.tags is not None and feed.tags != tags:
                if feed.previous == tags:
                    message, tags = feed.message, feed.tags
                else:  # this stream missed a change: caught up like one joining
                    got = await feed.catch_up(tags)
                    if got is None:
                        break
                    tags, message = got
                if message is not None:
                    yield out(message)
                continue
            changed = feed.changed
            try:
                await asyncio.wait_for(changed.wait(), min(beat, left))
            except TimeoutError:
                yield out(STILL_HERE)
                continue
            if offset:
                await asyncio.sleep(offset)
        yield out(END) + (wrap.trailer() if wrap is not None else b"")
    finally:
        feed.leave()
        _release(opened.address)


@dataclass
class Opened:
    """A stream about to start: its feed, the tags its page holds, its first event and the
    client address it counts against."""

    feed: Feed
    tags: tuple[str, str]
    first: Message | None
    address: str


async def open_stream(slug: str, get: QueryDict, language: str, address: str, session_key: str):
    """Join the feed that answers this query in the view this viewer may have: an
    ``Opened``, or the status to answer instead (400 for odd parameters, 404 when the
    event, stage or round is not one the viewer may see, 429 past the streams of one
    address, 503 past the feeds of the process)."""
    stage, round_ = answers.param_of(get, "stage"), answers.param_of(get, "round")
    if stage is None or round_ is None:
        return 400
    if _streams_at[address] >= streams_per_address():
        return 429
    _streams_at[address] += 1  # held from here, so that streams opening at once count
    metrics.stream_opened()
    try:
        opened = await _join(slug, stage, round_, get, language, address, session_key)
    except BaseException:
        _release(address)
        raise
    if not isinstance(opened, Opened):
        _release(address)
    return opened


async def _join(slug, stage, round_, get, language, address, session_key):
    """``open_stream`` once the stream holds its place: admitted, then joined to its feed."""
    admission = await _admission(slug, stage, round_, session_key)
    if not isinstance(admission, Admission):
        return admission
    query = {"stage": stage, "round": round_}
    if get.get("all") == "1":
        query["all"] = "1"
    since = (get.get("s", ""), get.get("t", ""))
    feed = _feed(slug, query, admission.language or language, admission)
    if feed is None:
        return 503
    feed.listeners += 1
    if not feed.staff and feed.tags is not None and since in (feed.tags, feed.previous):
        # A public feed at work has just answered this: a crowd joining costs no question.
        tags, first = feed.tags, (feed.message if since != feed.tags else None)
    else:
        try:
            got = await feed.catch_up(since)
        except BaseException:
            feed.leave()
            raise
        if got is None:
            feed.leave()
            return 404
        tags, first = got
        if feed.tags is None:
            feed.tags = tags
    if feed.task is None:
        # Outside this request's context, which ends with the request.
        feed.task = asyncio.create_task(feed.run(), context=contextvars.Context())
    return Opened(feed, tags, first, address)


def _may_see(user, slug: str) -> bool:
    tournament = Tournament.objects.filter(slug=slug).first()
    return tournament is not None and allowed(user, "tournament.view", tournament)


def refusal_headers(status: int) -> dict[str, str]:
    return {"Retry-After": str(RETRY_AFTER[status])} if status in RETRY_AFTER else {}


# An event stream's headers, whichever way it is served.
HEADERS = {
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",  # nginx: pass each event on at once (docs/production.md)
}


async def live_events(request, slug: str):
    """The tournament page's live parts as a stream of Server-Sent Events (``live``: the
    HTML the page's poll would get; ``end``: open a new stream). Takes the poll's query.

    Under an ASGI server the stream edge (``tournaments.stream_edge``) serves the browsers'
    streams instead, without Django's per-request work; this view answers the others (and
    every test client)."""
    if not isinstance(request, ASGIRequest):
        # A WSGI server would hold a worker for the whole stream: the page polls instead
        # (once it may see the event at all).
        if not await sync_to_async(_may_see)(request.user, slug):
            raise Http404("No such tournament.")
        return HttpResponse(status=204)
    # The middleware may have read the session in this request's thread: its database
    # connection is closed now, not held for the stream's life.
    await sync_to_async(connections.close_all)()
    opened = await open_stream(
        slug,
        request.GET,
        translation.get_language(),
        client_address(request),
        request.COOKIES.get(settings.SESSION_COOKIE_NAME, ""),
    )
    if opened == 404:
        raise Http404("No such tournament.")
    if not isinstance(opened, Opened):
        return HttpResponse(status=opened, headers=refusal_headers(opened))
    gzip = live.accepts_gzip(request.headers.get("Accept-Encoding", ""))
    response = StreamingHttpResponse(event_stream(opened, gzip))
    for name, value in HEADERS.items():
        response[name] = value
    if gzip:
        response["Content-Encoding"] = "gzip"
    patch_vary_headers(response, ("Accept-Encoding",))
    return response

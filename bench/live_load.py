"""A live event under load: 64 referees recording hands while N phones follow the event.

    .venv/bin/python bench/live_load.py             # phases of 0, 300 and 1,000 viewers (~10 min)
    .venv/bin/python bench/live_load.py --quick     # shorter games and waits (~3-4 min)
    .venv/bin/python bench/live_load.py --viewers 0,300 --no-outage

Starts a production-like stack of its own on this machine: a fresh PostgreSQL database
on 127.0.0.1:5432 (trust auth, user postgres), its own redis-server on a free port,
gunicorn (4 sync workers, or whatever a gunicorn.conf.py in the project says), one Celery
worker and beat, all with DEBUG=0. With --nginx, Debian's nginx with deploy/nginx.conf
in front and, as the Procfile's live line, the live polls' own gunicorn pool (2 workers
at nice 10; --live-workers 0 and --nginx-conf FILE run an earlier layout to compare),
with make serve's CONN_MAX_AGE of 60 s (each worker keeps its database connection).
It builds a 256-player DCS Swiss event through the
API, then plays one round per phase: 64 referee clients record every hand through the
API (an Idempotency-Key on each, 1-2 s between hands) while N viewers poll every 5 s as
the pages do: 80 % the tournament page's one live poll (with the tags of the standings and
tables it last received, from the poller each answer carries), 20 % the standings API
with If-None-Match and Accept-Encoding: gzip, as phones send them. A last round is
played with Redis killed for 10 s in the middle.

It prints, per phase, the referees' latency against the no-viewer phase of the same run,
the viewers' latency, the share of polls answered unchanged (204/304) while games were
played (and the share that found nothing new, compared part by part with what the
viewer held: the most any tags could answer unchanged), the share the cache alone
answered (the server's ``Server-Timing``: no query, no rendering), the standings lag (a game's
last hand acknowledged -> the standings API shows it finished), the referees' p95 in
each 20 s of play (and with --inside their hands timed inside gunicorn, from its access
log), the cost of an unchanged poll against a minimal
authenticated endpoint on the idle server, the longest request while Redis was down, and
an integrity check (every acknowledged hand stored exactly once, ``verify_games``
clean), each with the issue's target and PASS/FAIL. Every process it starts runs in its
own process group and is stopped at the end, also on Ctrl-C or an error; the database
is dropped.

A referee's request gives up after 30 s and is sent again with the same key (as the
phone does); a viewer's poll gives up after 20 s. A request that gave up counts in the
latencies at its timeout and in the errors column, so a saturated server shows as a p95
pinned at 30 s or 20 s. A phase lasts at most its time (60 s, --quick; 150 s): then the
viewers leave and the referees finish the round without pauses, unmeasured.

The load generator shares the machine's two cores with the server: it is plain asyncio
over raw HTTP/1.1 (gunicorn's sync workers close every connection anyway), referees and
viewers in separate processes, and it prints its own CPU time, the CPU the web workers
used per second of each phase ("web cpu", in cores) and how busy the whole machine was
("machine", other people's work included). Figures on a shared
machine are noisy; compare ratios within one run, not across runs.
"""

import argparse
import asyncio
import contextlib
import functools
import html
import json
import multiprocessing
import os
import queue
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import zlib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "deploy"))  # nginx.py and serve.py: the production layout

# The project's virtualenv, else the one this script runs in (a checkout without its own).
BIN = ROOT / ".venv" / "bin"
if not (BIN / "python").exists():
    BIN = Path(sys.executable).parent
PYTHON = str(BIN / "python")
HOST = "127.0.0.1"
PLAYERS = 256
REFEREES = 64
POLL_SECONDS = 5.0
OUTAGE_SECONDS = 10.0

# The targets (issue 14), as (limit, how the value compares).
TARGETS = {
    "referee_ratio_300": 1.5,
    "referee_ratio_1000": 2.0,
    # Behind nginx, 1,000 page viewers and 60 API pollers (the hall of docs/live_load.md).
    "referee_ratio_hall": 1.5,
    # As filed: 90 % of polls unchanged. At this bench's pace fewer polls than that find
    # nothing new (see poll_counts), so the bench holds the share to that ceiling and
    # holds the polls' cost to the 90 %: answered by the cache alone.
    "unchanged_share_300": 0.90,
    "cache_share_300": 0.90,
    "unchanged_cost_ratio": 1.5,
    "lag_median": 2.0,
    "lag_max": 5.0,
    "outage_longest": 1.0,
    "pairing_seconds": 1.0,
}


# ---------------------------------------------------------------------------------------
# Pure helpers (tests/test_live_load.py runs them)


def percentile(samples: list[float], q: float) -> float | None:
    """The q-th percentile (0-100) by linear interpolation; None for no samples."""
    if not samples:
        return None
    ordered = sorted(samples)
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


SLICE_SECONDS = 20


def summarize(samples: list[float]) -> dict:
    """Count, median, 95th percentile and maximum of a list of durations."""
    return {
        "n": len(samples),
        "p50": percentile(samples, 50),
        "p95": percentile(samples, 95),
        "max": max(samples) if samples else None,
    }


def unchanged_share(polls: list[tuple], *, until: float) -> tuple[float | None, int]:
    """Share of polls started before ``until`` that were answered 204 or 304, and their count.

    A poll is (started, seconds, status, part); failed polls (status 0 or 5xx) count as
    changed, since the viewer got nothing it could keep.
    """
    during = [poll for poll in polls if poll[0] <= until]
    if not during:
        return None, 0
    unchanged = sum(1 for poll in during if poll[2] in (204, 304))
    return unchanged / len(during), len(during)


def poll_counts(during: list[tuple]) -> dict[str, int]:
    """What the polls during play were answered and brought. A poll is (started, seconds,
    status, part, news, hit): ``news`` whether its answer showed the viewer anything it did
    not hold (None for a failed poll), ``hit`` whether the server says the cache alone
    answered it (its ``Server-Timing``: no query, no rendering).

    ``quiet`` counts the polls that found nothing new, the most any tags could answer
    unchanged without showing less or later; ``missed`` those of them not answered
    unchanged (a changed answer that showed nothing new, or a failure)."""
    unchanged = sum(1 for poll in during if poll[2] in (204, 304))
    quiet = sum(1 for poll in during if poll[4] is not True)
    return {
        "counted": len(during),
        "unchanged": unchanged,
        "quiet": quiet,
        "missed": quiet - unchanged,
        "changed_answers": sum(1 for poll in during if poll[2] == 200),
        "changed_empty": sum(1 for poll in during if poll[2] == 200 and poll[4] is False),
        "from_cache": sum(1 for poll in during if poll[5]),
        # Answered without the database: by capicu's cache or (with --nginx) by nginx's
        # micro-cache, which replays the headers of the answer it keeps.
        "no_database": sum(1 for poll in during if poll[5] or (len(poll) > 6 and poll[6])),
    }


_ATTRIBUTE = re.compile(r'([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*"([^"]*)"')


@functools.lru_cache(maxsize=256)
def live_url(page: str, region: str) -> str | None:
    """The URL the element with id ``region`` polls (its ``hx-get``), unescaped, or None.

    Only the elements that name the id are parsed: a changed poll's answer carries up to
    64 table cards, and the load generator shares the server's two cores. Kept per
    answer: a change reaches every viewer as the same answer, parsed once."""
    marker = f'id="{region}"'
    elements, at = [], page.find(marker)
    while at >= 0:
        start, end = page.rfind("<", 0, at), page.find(">", at)
        if start >= 0 and end >= 0:
            elements.append(page[start : end + 1])
        at = page.find(marker, at + 1)
    for element in elements:
        attributes = dict(_ATTRIBUTE.findall(element))
        if attributes.get("id") == region and "hx-get" in attributes:
            return html.unescape(attributes["hx-get"])
    return None


def standings_lags(
    finished: dict[int, float], entrants: dict[int, list[int]], seen: dict[int, float]
) -> tuple[list[float], list[int]]:
    """Seconds from each finished game's last hand to the standings showing all its entrants.

    ``finished`` maps a game to the moment its last hand was acknowledged, ``entrants`` a
    game to its entrants, ``seen`` an entrant to the first moment the standings counted
    this round's game for it. Returns the lags, and the games never shown.
    """
    lags, missing = [], []
    for game, done in sorted(finished.items()):
        moments = [seen.get(entrant) for entrant in entrants[game]]
        if any(moment is None for moment in moments):
            missing.append(game)
        else:
            lags.append(max(0.0, max(moments) - done))
    return lags, missing


def stream_lags(
    finished: dict[int, float],
    entrants: dict[int, list[int]],
    seen: dict[int, float],
    pushed: list[float],
    slack: float = 0.5,
) -> list[float]:
    """Seconds from each finished game's last hand to the first push of the standings that
    could show it: the first at or after the standings API showed the game (less
    ``slack``, for the API watcher's own polling). An upper bound of the lag a viewer
    holding the stream sees; ``pushed`` are the moments standings were pushed to one
    stream."""
    ordered = sorted(pushed)
    lags = []
    for game, done in sorted(finished.items()):
        moments = [seen.get(entrant) for entrant in entrants[game]]
        if any(moment is None for moment in moments):
            continue
        shown = max(moments) - slack
        first = next((moment for moment in ordered if moment >= shown), None)
        if first is not None:
            lags.append(max(0.0, first - done))
    return lags


def verdict(value: float | None, limit: float, *, at_least: bool = False) -> str:
    """PASS or FAIL of a figure against its target; '-' when nothing was measured."""
    if value is None:
        return "-"
    return "PASS" if (value >= limit if at_least else value <= limit) else "FAIL"


def ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.0f} ms"


def secs(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:.2f} s"


def pct(share: float | None) -> str:
    return "-" if share is None else f"{share:.0%}"


def times(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def ratio(value: float | None, base: float | None) -> float | None:
    if value is None or not base:
        return None
    return value / base


# nginx's X-Cache-Status values of an answer it gave from its micro-cache.
PROXY_HITS = ("HIT", "UPDATING", "STALE", "REVALIDATED")


def proxy_share(figure: dict) -> float | None:
    """The share of a phase's polls during play that nginx's micro-cache answered (they
    never reached gunicorn); None without nginx or polls."""
    counted = figure["counts"]["counted"]
    return figure.get("by_proxy", 0) / counted if counted else None


def cached_share(figure: dict) -> float | None:
    """The share of a phase's polls during play that a cache alone answered: capicu's, or
    with --nginx nginx's micro-cache in front of it."""
    counts = figure["counts"]
    return counts["no_database"] / counts["counted"] if counts["counted"] else None


# ---------------------------------------------------------------------------------------
# A small HTTP/1.1 client: one connection per request, as gunicorn's sync workers close it


@dataclass
class Answer:
    status: int  # 0: no answer (refused, reset, timed out)
    headers: dict = field(default_factory=dict)
    body: bytes = b""
    seconds: float = 0.0

    def json(self):
        return json.loads(self.body or b"null")


async def _exchange(port: int, request: bytes) -> tuple[int, dict, bytes]:
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        writer.write(request)
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        body = await reader.read()
    finally:
        writer.close()
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return status, headers, body


async def call(
    port: int,
    method: str,
    path: str,
    *,
    token: str | None = None,
    body=None,
    headers: dict | None = None,
    timeout: float = 30.0,
) -> Answer:
    """One request to the bench's server on 127.0.0.1; never raises for network trouble."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{port}", "Connection: close"]
    payload = b""
    if token:
        lines.append(f"Authorization: Token {token}")
    if body is not None:
        payload = json.dumps(body).encode()
        lines += ["Content-Type: application/json", "Accept: application/json"]
    lines.append(f"Content-Length: {len(payload)}")
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode() + payload
    started = time.monotonic()
    try:
        status, got, content = await asyncio.wait_for(_exchange(port, request), timeout)
    except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError, IndexError):
        return Answer(0, seconds=time.monotonic() - started)
    return Answer(status, got, content, time.monotonic() - started)


def call_sync(port: int, method: str, path: str, **kwargs) -> Answer:
    return asyncio.run(call(port, method, path, **kwargs))


# ---------------------------------------------------------------------------------------
# The referees' process: each referee plays its table's game to the end


async def _referee(port, table, deadline, log, acks, finished, seed):
    from scoring.rulesets import RuleSet
    from scoring.simulate import play_hand

    rng = random.Random(seed)
    game_id, token = table["game"], table["token"]
    detail = await call(port, "GET", f"/api/v1/games/{game_id}/", token=token)
    if detail.status != 200:
        log.append((time.monotonic(), detail.seconds, detail.status, "detail", False))
        return
    game = detail.json()
    rules = RuleSet.from_dict(game["ruleset"])
    seats = [seat["name"] for seat in sorted(game["seats"], key=lambda s: s["position"])]
    number, leader = game["next_hand"], game["next_leader"]
    await asyncio.sleep(rng.uniform(0, 2))
    failures = 0
    # Bounded in hands, failures and time whatever the server does.
    while (
        number is not None and number <= 400 and failures < 20 and time.monotonic() < deadline + 180
    ):
        hand = play_hand(rules, seats, rng, leader=leader)
        body = {
            "number": number,
            "ended": hand.ended,
            "domino_by": hand.domino_by,
            "pips": hand.pips,
            "leader": hand.leader,
            "in_play": [{"seat": seat, "points": points} for seat, points in hand.in_play],
        }
        key = str(uuid.uuid4())
        # A lost answer is retried with the same key, as the referee's phone does.
        for _attempt in range(8):
            started = time.monotonic()
            answer = await call(
                port,
                "POST",
                f"/api/v1/games/{game_id}/hands/",
                token=token,
                body=body,
                headers={"Idempotency-Key": key},
            )
            log.append((started, answer.seconds, answer.status, "hand", started > deadline))
            if answer.status and answer.status < 500:
                break
            failures += 1
            await asyncio.sleep(0.5)
        if answer.status == 201:
            state = answer.json()["game"]
            acks.append((game_id, number, key))
            number, leader = state["next_hand"], state["next_leader"]
            if state["status"] == "finished":
                finished[game_id] = time.monotonic()
                return
        else:
            failures += 1
            # Resynchronise with what the server holds (someone else's hand, a conflict).
            again = await call(port, "GET", f"/api/v1/games/{game_id}/", token=token)
            if again.status == 200:
                state = again.json()
                number, leader = state["next_hand"], state["next_leader"]
                if state["status"] == "finished":
                    return
        pause = rng.uniform(1.0, 2.0) if time.monotonic() < deadline else 0.05
        await asyncio.sleep(pause)


def referees_main(port, tables, seconds, out, seed):
    """Process entry: play every table, then report the request log and the finishes."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's unwinding handler
    cpu = time.process_time()
    started = time.monotonic()
    deadline = started + seconds
    log, acks, finished = [], [], {}

    async def play():
        await asyncio.gather(
            *(
                _referee(port, table, deadline, log, acks, finished, seed * 1000 + index)
                for index, table in enumerate(tables)
            )
        )

    asyncio.run(play())
    out.put(
        {
            "who": "referees",
            "log": log,
            "acks": acks,
            "finished": finished,
            "started": started,
            "ended": time.monotonic(),
            "cpu": time.process_time() - cpu,
        }
    )


# ---------------------------------------------------------------------------------------
# The viewers' process: page viewers make the page's one live poll, API viewers the standings


async def _poll_part(port, url, part, stop, until, polls, offset, held=None):
    """Poll one live part every 5 s, keeping the tag (URL and ETag) it last received.

    Each poll is logged with whether its answer showed the viewer anything new: a changed
    page poll's parts are compared with the ones the page holds (``held``, from the page as
    first shown), a changed API poll's body with the last one."""
    etag = None
    held = dict(held or {})
    body = None
    await asyncio.sleep(offset)
    tick = time.monotonic()
    while not stop.is_set() and time.monotonic() < until:
        headers = {"If-None-Match": etag} if etag else {}
        if part != "api":
            headers["HX-Request"] = "true"
        else:
            headers["Accept-Encoding"] = "gzip"  # as every phone's HTTP client sends
        started = time.monotonic()
        answer = await call(port, "GET", url, headers=headers, timeout=20.0)
        news = None
        hit = answer.headers.get("server-timing", "") == "cache;desc=hit"
        # With --nginx: whether nginx's micro-cache answered it (the poll never reached
        # gunicorn); without nginx the header is absent.
        proxied = answer.headers.get("x-cache-status", "") in PROXY_HITS
        if answer.status == 200:
            etag = answer.headers.get("etag", etag)
            if part != "api":
                text = answer.body.decode("utf-8", "replace")
                url = live_url(text, "live") or url
                news = brings_news(text, held)
            else:
                news, body = answer.body != body, answer.body
        elif answer.status in (204, 304):
            news = False
        polls.append((started, answer.seconds, answer.status, part, news, hit, proxied))
        tick += POLL_SECONDS
        # Like htmx's timer, a slow answer does not bunch the next polls together.
        while tick < time.monotonic():
            tick += POLL_SECONDS
        await asyncio.sleep(tick - time.monotonic())


def _element(text: str, start: int) -> str:
    """The element that opens at ``text[start]`` through its matching closing tag."""
    name = re.match(r"<([a-zA-Z0-9]+)", text[start : start + 16]).group(1)
    opening, closing = f"<{name}", f"</{name}>"
    depth, at = 0, start
    while True:
        opens, closes = text.find(opening, at), text.find(closing, at)
        if closes < 0:
            return text[start:]
        if 0 <= opens < closes:
            at = opens + len(opening)
            if text[at : at + 1] in (" ", ">", "\n", "\t"):  # <li, not <link
                depth += 1
            continue
        depth -= 1
        at = closes + len(closing)
        if depth == 0:
            return text[start:at]


def _by_id(element: str) -> str:
    return re.search(r'id="([^"]*)"', element[: element.find(">")]).group(1)


def shown_parts(element: str) -> dict[str, str]:
    """What a viewer sees of one live part, as it compares it: the standings whole; the
    tables as the part around the cards and each card on its own."""
    name = _by_id(element)
    if name != "tables":
        return {name: element}
    parts, rest, at = {}, [], 0
    while (start := element.find('<li class="table-card"', at)) >= 0:
        card = _element(element, start)
        parts[_by_id(card)] = card
        rest.append(element[at:start])
        at = start + len(card)
    parts["tables"] = "".join(rest) + element[at:]
    return parts


def page_parts(page: str) -> dict[str, str]:
    """The live parts of the tournament page as first shown."""
    parts = {}
    for name in ("standings", "tables"):
        at = page.find(f'id="{name}"')
        if at >= 0:
            parts.update(shown_parts(_element(page, page.rfind("<", 0, at))))
    return parts


OUT_OF_BAND = ' hx-swap-oob="true"'


@functools.lru_cache(maxsize=256)
def swapped_parts(answer: str) -> tuple[tuple[str, str], ...]:
    """The parts a changed poll's answer swaps in, by name, as a viewer compares them.
    Kept per answer: a change reaches every viewer as the same answer, parsed once, so
    that the simulated crowd takes less of the cores it shares with the server."""
    parts, at = [], 0
    while (mark := answer.find(OUT_OF_BAND, at)) >= 0:
        start = answer.rfind("<", 0, mark)
        element = _element(answer, start)
        at = start + len(element)
        parts.extend(shown_parts(element.replace(OUT_OF_BAND, "", 1)).items())
    return tuple(parts)


def brings_news(answer: str, held: dict[str, str]) -> bool:
    """Whether a changed poll's answer shows the viewer anything it did not hold (each part
    it swaps in compared with the one on the page); ``held`` is brought up to date."""
    news = False
    for name, part in swapped_parts(answer):
        if held.get(name) != part:
            news = True
            held[name] = part
    return news


def events_url(live: str) -> str:
    """The page's stream for the query and tags its live poll carries."""
    return live.replace("/live/?", "/events/?", 1)


# The new poller (``<div id="live" hx-get=...>``) opens every live event.
POLLER_HEAD = 1024


class Dechunk:
    """An HTTP/1.1 chunked body read as plain bytes (``read`` and ``readuntil``, as the
    ``SSEReader`` asks them). Safe to time out like the reader under it: a chunk's size
    and what is left of it are kept here before anything else is awaited."""

    def __init__(self, reader):
        self.reader = reader
        self.buffer = b""
        self.left = 0  # bytes of the current chunk still to come
        self.crlf = 0  # bytes of its closing CRLF still to come
        self.done = False

    async def _more(self) -> bytes:
        while True:
            if self.left or self.crlf:
                data = await self.reader.read(self.left or self.crlf)
                if not data:
                    raise asyncio.IncompleteReadError(self.buffer, None)
                if self.left:
                    self.left -= len(data)
                    return data
                self.crlf -= len(data)
                continue
            line = await self.reader.readuntil(b"\r\n")
            size = int(line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                self.done = True
                return b""
            self.left, self.crlf = size, 2

    async def read(self, limit: int) -> bytes:
        if not self.buffer and not self.done:
            self.buffer = await self._more()
        out, self.buffer = self.buffer[:limit], self.buffer[limit:]
        return out

    async def readuntil(self, separator: bytes) -> bytes:
        while separator not in self.buffer:
            if self.done:
                raise asyncio.IncompleteReadError(self.buffer, None)
            more = await self._more()
            self.buffer += more
        end = self.buffer.index(separator) + len(separator)
        out, self.buffer = self.buffer[:end], self.buffer[end:]
        return out


class SSEReader:
    """The stream's events (``\\n\\n``-ended blocks) as they arrive, inflating a gzip stream
    as a browser does; ``seen["bytes"]`` counts the body's bytes as sent (compressed, the
    chunks' framing left out). Safe to time out:
    what has arrived stays here (or in the reader) for the next call."""

    def __init__(self, reader, compressed: bool, seen):
        self.reader, self.seen = reader, seen
        self.inflate = zlib.decompressobj(16 + zlib.MAX_WBITS) if compressed else None
        self.blocks: list[bytes] = []
        self.pending = b""

    async def next(self) -> bytes:
        if self.inflate is None:
            block = await self.reader.readuntil(b"\n\n")
            self.seen["bytes"] += len(block)
            return block
        while not self.blocks:
            data = await self.reader.read(1 << 16)
            if not data:
                raise asyncio.IncompleteReadError(self.pending, None)
            self.seen["bytes"] += len(data)
            self.pending += self.inflate.decompress(data)
            *done, self.pending = self.pending.split(b"\n\n")
            self.blocks += [block + b"\n\n" for block in done]
        return self.blocks.pop(0)


async def _follow_stream(port, url, stop, until, seen, offset, ident=0):
    """Hold the page's stream as its EventSource does: read every event, open the next
    stream with the tags of the last one when the server ends it, retry after 3 s when
    the connection fails. ``seen`` gathers the events, connections and errors. Like a
    browser, it takes the stream gzip-compressed where the server offers it."""
    await asyncio.sleep(offset)
    url = events_url(url)
    while not stop.is_set() and time.monotonic() < until:
        opened, writer = False, None
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(HOST, port, limit=1 << 24), 10
            )
            # HTTP/1.1, as a browser asks: the stream comes in chunks.
            writer.write(
                f"GET {url} HTTP/1.1\r\nHost: {HOST}:{port}\r\nConnection: close\r\n"
                "Accept: text/event-stream\r\nAccept-Encoding: gzip\r\n\r\n".encode()
            )
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
            if int(head.split(b" ", 2)[1]) != 200:
                raise ValueError("not a stream")
            compressed = b"content-encoding: gzip" in head.lower()
            if b"transfer-encoding: chunked" in head.lower():
                reader = Dechunk(reader)
            opened = True
            seen["open"] += 1
            seen["connects"] += 1
            quiet_since = time.monotonic()
            blocks = SSEReader(reader, compressed, seen)
            while not stop.is_set() and time.monotonic() < until:
                try:
                    block = await asyncio.wait_for(blocks.next(), 1.0)
                except TimeoutError:
                    if time.monotonic() - quiet_since > 40:  # heartbeats come every 15 s
                        raise
                    continue
                quiet_since = time.monotonic()
                if block.startswith(b"event: live"):
                    seen["raw"] += len(block)
                    seen["events"].append((time.monotonic(), b'id="standings"' in block, ident))
                    # The new poller leads the answer: only its head is read as text (the
                    # load generator shares the server's cores; a phone has its own).
                    head = block[:POLLER_HEAD].decode("utf-8", "replace")
                    poller = live_url(head.replace("\ndata: ", "\n"), "live")
                    url = events_url(poller) if poller else url
                elif block.startswith(b"event: end"):
                    break
        except (
            OSError,
            TimeoutError,
            asyncio.IncompleteReadError,
            ValueError,
            IndexError,
            zlib.error,
        ):
            # (asyncio.LimitOverrunError is an Exception: an event past 16 MB stops the bench.)
            seen["errors"] += 1
            await asyncio.sleep(3)
        finally:
            if opened:
                seen["open"] -= 1
            if writer is not None:
                writer.close()


def viewers_main(
    port, urls, count, stop, until, out, seed, crowd_nice=0, push_port=None, api_pollers=None
):
    """Process entry: ``count`` viewers poll until told to stop or ``until``; report every poll.

    Every fifth viewer polls the standings API, the others the page; with ``api_pollers``
    all ``count`` viewers follow the page and that many more poll the API.

    Viewers leave at the end of the phase's time even if games remain: the referees then
    finish them without pauses, unmeasured, so one saturated phase cannot stall the run.
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if crowd_nice:
        os.nice(crowd_nice)
    cpu = time.process_time()
    rng = random.Random(seed)
    polls = []
    stream = {
        "open": 0,
        "connects": 0,
        "errors": 0,
        "bytes": 0,
        "raw": 0,
        "events": [],
        "open_at": [],
    }

    async def count_open():
        while not stop.is_set() and time.monotonic() < until:
            stream["open_at"].append((time.monotonic(), stream["open"]))
            await asyncio.sleep(1)

    async def watch():
        tasks = [count_open()] if push_port else []
        split = api_pollers is None
        total = count if split else count + api_pollers
        for viewer in range(total):
            offset = rng.uniform(0, POLL_SECONDS)
            if (viewer % 5 == 4) if split else viewer >= count:
                tasks.append(_poll_part(port, urls["api"], "api", stop, until, polls, offset))
            elif push_port:
                tasks.append(
                    _follow_stream(push_port, urls["live"], stop, until, stream, offset, viewer)
                )
            else:
                tasks.append(
                    _poll_part(port, urls["live"], "page", stop, until, polls, offset, urls["held"])
                )
        await asyncio.gather(*tasks)

    asyncio.run(watch())
    out.put(
        {
            "who": "viewers",
            "polls": polls,
            "stream": stream if push_port else None,
            "cpu": time.process_time() - cpu,
        }
    )


# ---------------------------------------------------------------------------------------
# The stack: database, Redis, gunicorn, Celery worker and beat


def group_cpu(pgid: int) -> float:
    """CPU seconds used so far by the processes of a group (gunicorn's master and
    workers), with the workers it has already reaped; 0 where /proc cannot tell."""
    ticks, total = os.sysconf("SC_CLK_TCK"), 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # fields from the state on: state ppid pgrp ...
            total += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return total / ticks


def machine_busy() -> tuple[float, float]:
    """(busy, all) CPU ticks of the whole machine so far, from /proc/stat."""
    try:
        values = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    except OSError:
        return 0.0, 0.0
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return float(sum(values) - idle), float(sum(values))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on port {port} within {seconds:.0f} s.")


def psql(sql: str) -> None:
    subprocess.run(
        ["psql", "-h", HOST, "-U", "postgres", "-v", "ON_ERROR_STOP=1", "-q", "-c", sql],
        check=True,
        capture_output=True,
    )


class Stack:
    """Every process and the database the bench starts, and how to stop them all."""

    def __init__(self, args):
        self.args = args
        self.database = f"capicu_live_bench_{os.getpid()}"
        self.redis_port = free_port()
        self.web_port = free_port()
        # With --nginx every client asks nginx (deploy/nginx.conf) on web_port, and
        # gunicorn listens behind it on app_port.
        self.app_port = free_port() if args.nginx else self.web_port
        # Behind nginx, the live polls that reach capicu go to a pool of their own (the
        # Procfile's live line), unless --live-workers 0 keeps one pool for everything.
        self.live_port = free_port() if args.nginx and args.live_workers else None
        self.push_port = free_port() if args.push_counts or args.outage_push else None
        self.scratch = Path(tempfile.mkdtemp(prefix="capicu-live-bench-"))
        self.access_log = self.scratch / "access.log"
        self.processes: dict[str, subprocess.Popen] = {}
        self.database_made = False
        self.env = dict(os.environ)
        self.env.update(
            {
                "DEBUG": "0",
                "SECRET_KEY": uuid.uuid4().hex + uuid.uuid4().hex,
                "ALLOWED_HOSTS": "127.0.0.1,localhost",
                "SECURE_SSL_REDIRECT": "0",
                "DATABASE_URL": f"postgres://postgres@{HOST}:5432/{self.database}",
                "REDIS_URL": f"redis://{HOST}:{self.redis_port}/0",
                # Every simulated phone shares 127.0.0.1; a per-address throttle would
                # treat a thousand people as one. Real crowds come from many addresses.
                "ANON_THROTTLE_RATE": "1000000/min",
                # The bench's thousand streams all come from 127.0.0.1.
                "LIVE_STREAMS_PER_ADDRESS": "1000000",
                # One organizer invites the 64 referees at once.
                "INVITATIONS_PER_SENDER_PER_HOUR": "1000",
                "PYTHONUNBUFFERED": "1",
            }
        )
        if args.nginx:
            self.env.update({"BEHIND_PROXY": "1", "NUM_PROXIES": "1"})
            # The production layout runs with make serve's settings (deploy/serve.py):
            # each worker keeps its database connection (CONN_MAX_AGE) instead of opening
            # one per request. --env overrides it (CONN_MAX_AGE=0: the earlier runs').
            from serve import DEFAULTS

            self.env["CONN_MAX_AGE"] = DEFAULTS["CONN_MAX_AGE"]
        if self.push_port:
            # The page names its stream; the bench's proxy-less setup sends the viewers
            # straight to the ASGI server that serves it.
            self.env["LIVE_STREAM"] = "1"
        for assignment in args.env or []:
            name, _, value = assignment.partition("=")
            self.env[name] = value

    def start(self, name: str, command: list[str]) -> subprocess.Popen:
        logfile = open(self.scratch / f"{name}.log", "ab")  # noqa: SIM115 - lives with the process
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=self.env,
            stdout=logfile,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, stopped as one
        )
        self.processes[name] = process
        return process

    def stop(self, name: str, sig=signal.SIGTERM, wait: float = 10.0) -> None:
        process = self.processes.pop(name, None)
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, sig)
            process.wait(wait)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(5)
        except ProcessLookupError:
            pass

    def manage(self, *arguments: str, check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [PYTHON, "manage.py", *arguments],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
        )
        if check and done.returncode:
            sys.stderr.write(done.stdout[-2000:] + done.stderr[-4000:])
            done.check_returncode()
        return done

    def start_redis(self) -> None:
        self.start(
            "redis",
            [
                "redis-server",
                "--port",
                str(self.redis_port),
                "--bind",
                HOST,
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
            ],
        )
        wait_for_port(self.redis_port, 10, "redis-server")

    def up(self) -> None:
        psql(f'CREATE DATABASE "{self.database}"')
        self.database_made = True
        self.start_redis()
        self.manage("migrate", "--noinput")
        self.manage("collectstatic", "--noinput")
        gunicorn = [str(BIN / "gunicorn"), "config.wsgi", "--bind", f"{HOST}:{self.app_port}"]
        if self.args.gunicorn_args:
            gunicorn += self.args.gunicorn_args.split()
        elif not (ROOT / "gunicorn.conf.py").exists():
            gunicorn += ["--workers", "4"]
        self.gunicorn_command = " ".join(gunicorn[1:])
        if self.args.nginx:
            self.gunicorn_command += " (behind nginx: deploy/nginx.conf)"
        if self.args.inside:
            # Each request's time inside its worker, from the access log: beside the
            # client's figure it tells the server's share of a referee's wait.
            gunicorn += ["--access-logfile", str(self.access_log)]
            gunicorn += ["--access-logformat", "%(m)s %(U)s %(s)s %(D)s"]
        self.start("gunicorn", gunicorn)
        if self.live_port:
            live = [str(BIN / "gunicorn"), "config.wsgi", "--bind", f"{HOST}:{self.live_port}"]
            live += ["--workers", str(self.args.live_workers)]
            if self.args.live_nice:
                live = ["nice", "-n", str(self.args.live_nice), *live]
            self.gunicorn_command += (
                f"; live polls' pool: {' '.join(live[live.index('config.wsgi') :])}"
                f" at nice {self.args.live_nice}"
            )
            self.start("live", live)
        celery = [str(BIN / "celery"), "-A", "config"]
        self.start(
            "worker",
            [
                *celery,
                "worker",
                "-l",
                "warning",
                "--concurrency",
                str(self.args.celery_concurrency),
            ],
        )
        self.start(
            "beat",
            [*celery, "beat", "-l", "warning", "--schedule", str(self.scratch / "beat-schedule")],
        )
        self.push_command = ""
        if self.push_port:
            # The streams: one uvicorn process beside gunicorn, as docs/production.md recommends.
            push = [str(BIN / "uvicorn"), self.args.push_app]
            push += ["--host", HOST, "--port", str(self.push_port)]
            push += (self.args.push_args or "--no-access-log --log-level warning").split()
            self.push_command = " ".join(push[1:])
            if self.args.push_nice:
                # Below the web workers: a stream may wait a moment for a core.
                push = ["nice", "-n", str(self.args.push_nice), *push]
                self.push_command += f" (nice {self.args.push_nice})"
            self.start("push", push)
            wait_for_port(self.push_port, 60, "uvicorn")
        wait_for_port(self.app_port, 60, "gunicorn")
        if self.live_port:
            wait_for_port(self.live_port, 60, "the live pool's gunicorn")
        if self.args.nginx:
            self.start_nginx()

    def start_nginx(self) -> None:
        """Debian's nginx with deploy/nginx.conf in front of gunicorn (and uvicorn)."""
        from nginx import render

        prefix = self.scratch / "nginx"
        prefix.mkdir()
        static = self.env.get("STATIC_ROOT") or str(ROOT / "staticfiles")
        (prefix / "capicu.conf").write_text(
            render(
                web=f"{HOST}:{self.app_port}",
                live=f"{HOST}:{self.live_port or self.app_port}",
                events=f"{HOST}:{self.push_port or self.app_port}",
                listen=f"{HOST}:{self.web_port}",
                server_name=HOST,
                static_root=static,
                cache_dir=str(prefix / "cache"),
                **({"template": self.args.nginx_conf} if self.args.nginx_conf else {}),
            )
        )
        user = "user root;" if os.geteuid() == 0 else ""
        (prefix / "nginx.conf").write_text(NGINX_MAIN.format(prefix=prefix, user=user))
        self.start(
            "nginx",
            [
                "/usr/sbin/nginx",
                "-p",
                str(prefix),
                "-c",
                str(prefix / "nginx.conf"),
                "-e",
                str(prefix / "error.log"),
            ],
        )
        wait_for_port(self.web_port, 30, "nginx")

    def access_offset(self) -> int:
        try:
            return self.access_log.stat().st_size
        except OSError:
            return 0

    def hand_seconds(self, since: int) -> list[float]:
        """Time inside gunicorn of every hand recorded since the access log's ``since``
        byte: from the request read to the answer written (the wait for a free worker
        is not in it)."""
        with contextlib.suppress(OSError), self.access_log.open("rb") as log:
            log.seek(since)
            return [
                int(fields[3]) / 1e6
                for fields in (line.split() for line in log)
                if len(fields) == 4 and fields[0] == b"POST" and fields[1].endswith(b"/hands/")
            ]
        return []

    def web_pids(self) -> list[int]:
        """The process groups that answer viewers: gunicorn's and the streams' server."""
        return [
            self.processes[name].pid
            for name in ("gunicorn", "live", "push")
            if name in self.processes
        ]

    def group_pids(self) -> dict[str, int]:
        """Each server's process group, for its CPU per phase."""
        names = ("gunicorn", "live", "push", "nginx", "worker", "redis")
        return {name: self.processes[name].pid for name in names if name in self.processes}

    def down(self) -> None:
        for name in ("nginx", "beat", "worker", "push", "live", "gunicorn", "redis"):
            self.stop(name)
        if self.database_made and not self.args.keep_db:
            try:
                psql(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
            except subprocess.CalledProcessError as error:
                print(f"could not drop {self.database}: {error.stderr!r}", file=sys.stderr)


NGINX_MAIN = """
daemon off;
worker_processes 1;
{user}
pid {prefix}/nginx.pid;
events {{ worker_connections 8192; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    include {prefix}/capicu.conf;
}}
"""

ACCOUNTS = """
import json
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
users = get_user_model().objects
made = {}
for name in ["bench-organizer"] + [f"bench-referee-{i:02}" for i in range(1, %d + 1)]:
    user = users.create_user(username=name)
    made[name] = Token.objects.create(user=user).key
print("BENCH-JSON " + json.dumps(made))
"""

STORED_HANDS = """
import json
from scoring.models import Hand
rows = Hand.objects.filter(version=1).values_list("game_id", "number")
current = Hand.objects.filter(is_current=True).values_list("game_id", "number")
print("BENCH-JSON " + json.dumps({"first": list(rows), "current": list(current)}))
"""


def shell_json(stack: Stack, script: str):
    output = stack.manage("shell", "-c", script).stdout
    line = next(line for line in output.splitlines() if line.startswith("BENCH-JSON "))
    return json.loads(line.removeprefix("BENCH-JSON "))


# ---------------------------------------------------------------------------------------
# The event, built through the API


def expect(answer: Answer, *statuses: int, what: str) -> Answer:
    if answer.status not in statuses:
        raise RuntimeError(f"{what}: HTTP {answer.status} {answer.body[:400]!r}")
    return answer


@dataclass
class Event:
    slug: str
    organizer: str
    referees: dict[str, str]  # username -> token
    setup: dict = field(default_factory=dict)


def build_event(port: int, tokens: dict[str, str], *, rounds: int, target: int | None) -> Event:
    organizer = tokens["bench-organizer"]
    referees = {name: key for name, key in tokens.items() if name != "bench-organizer"}
    slug = f"live-bench-{os.getpid()}"
    body = {"name": "Live load bench", "slug": slug, "ruleset": "dcs"}
    if target:
        body["overrides"] = {"target": target}
    expect(
        call_sync(port, "POST", "/api/v1/tournaments/", token=organizer, body=body),
        201,
        what="create the tournament",
    )
    path = f"/api/v1/tournaments/{slug}"
    expect(
        call_sync(port, "PATCH", f"{path}/", token=organizer, body={"status": "registration"}),
        200,
        what="open registration",
    )
    names = "\n".join(f"Player {number:03}" for number in range(1, PLAYERS + 1))
    expect(
        call_sync(port, "POST", f"{path}/entrants/", token=organizer, body={"text": names}),
        201,
        what="register 256 players",
    )
    expect(
        call_sync(
            port,
            "POST",
            f"{path}/stages/",
            token=organizer,
            body={"name": "Swiss", "format": "swiss", "settings": {"rounds": rounds}},
        ),
        201,
        what="add the stage",
    )
    started = time.monotonic()
    for username, key in referees.items():
        invitation = expect(
            call_sync(
                port,
                "POST",
                f"{path}/staff/",
                token=organizer,
                body={"username": username, "role": "referee"},
            ),
            201,
            what=f"invite {username}",
        ).json()
        expect(
            call_sync(
                port, "POST", f"/api/v1/invitations/{invitation['id']}/accept/", token=key, body={}
            ),
            200,
            201,
            what=f"{username} accepts",
        )
    event = Event(slug, organizer, referees)
    event.setup["staff_seconds"] = time.monotonic() - started
    expect(
        call_sync(port, "PATCH", f"{path}/", token=organizer, body={"status": "running"}),
        200,
        what="start the tournament",
    )
    return event


def open_round(port: int, event: Event) -> dict:
    """Pair, publish and staff the next round; returns its tables and how long each step took."""
    path = f"/api/v1/tournaments/{event.slug}"
    paired = expect(
        call_sync(port, "POST", f"{path}/rounds/", token=event.organizer, body={}, timeout=120),
        201,
        what="pair the round",
    )
    number = paired.json()["number"]
    published = expect(
        call_sync(port, "POST", f"{path}/rounds/{number}/publish/", token=event.organizer, body={}),
        200,
        201,
        what="publish the round",
    )
    detail = expect(
        call_sync(port, "GET", f"{path}/rounds/{number}/", token=event.organizer),
        200,
        what="read the round",
    ).json()
    matches = sorted(
        (match for match in detail["matches"] if not match["bye"]),
        key=lambda match: match["table_number"],
    )
    usernames = sorted(event.referees)
    started = time.monotonic()
    # One request assigns the whole round's referees (all or nothing).
    expect(
        call_sync(
            port,
            "POST",
            f"{path}/rounds/{number}/referees/",
            token=event.organizer,
            body={
                "assignments": [
                    {"table": match["table_number"], "referee": usernames[index % len(usernames)]}
                    for index, match in enumerate(matches)
                ]
            },
        ),
        200,
        201,
        what="assign the round's referees",
    )
    tables = [
        {
            "game": match["game"],
            "token": event.referees[usernames[index % len(usernames)]],
            "entrants": [entrant["id"] for entrant in match["entrants"]],
        }
        for index, match in enumerate(matches)
    ]
    return {
        "number": number,
        "tables": tables,
        "pairing_seconds": paired.seconds,
        "publish_seconds": published.seconds,
        "assign_seconds": time.monotonic() - started,
        "assign_requests": 1,
    }


def live_urls(port: int, event: Event) -> dict[str, str]:
    page = expect(call_sync(port, "GET", f"/t/{event.slug}/"), 200, what="the tournament page")
    text = page.body.decode("utf-8", "replace")
    urls = {region: live_url(text, region) for region in ("live",)}
    missing = [region for region, url in urls.items() if not url]
    if missing:
        raise RuntimeError(f"The tournament page has no live {', '.join(missing)} part.")
    urls["api"] = f"/api/v1/tournaments/{event.slug}/standings/"
    urls["held"] = page_parts(text)
    return urls


# ---------------------------------------------------------------------------------------
# One phase: a round played under N viewers, watched from the standings API


async def watch_standings(port, event, round_number, done, seen, *, outage, stack, window):
    """Record when each entrant's game of this round first counts in the standings API.

    Also takes Redis down for ``OUTAGE_SECONDS`` when ``outage`` is a delay in seconds.
    Returns once ``done()`` says the phase is over.
    """
    url = f"/api/v1/tournaments/{event.slug}/standings/"
    etag = None
    started = time.monotonic()

    async def break_redis():
        await asyncio.sleep(outage)
        window["down"] = time.monotonic()
        stack.stop("redis", signal.SIGKILL)
        await asyncio.sleep(OUTAGE_SECONDS)
        await asyncio.to_thread(stack.start_redis)
        window["up"] = time.monotonic()

    breaker = asyncio.create_task(break_redis()) if outage is not None else None
    while not done(time.monotonic() - started):
        answer = await call(
            port, "GET", url, headers={"If-None-Match": etag} if etag else {}, timeout=10
        )
        if answer.status == 200:
            etag = answer.headers.get("etag")
            now = time.monotonic()
            for row in answer.json().get("rows", []):
                if row["games_played"] >= round_number:
                    seen.setdefault(row["entrant"]["id"], now)
        await asyncio.sleep(0.25)
    if breaker:
        await breaker


def play_phase(
    stack: Stack, event: Event, viewers: int, *, outage: bool, args, push: bool = False
) -> dict:
    port = stack.web_port
    opened = open_round(port, event)
    urls = live_urls(port, event)
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    stop = context.Event()
    seed = args.seed + opened["number"]
    referees = context.Process(
        target=referees_main, args=(port, opened["tables"], args.phase_seconds, out, seed)
    )
    crowd = (
        context.Process(
            target=viewers_main,
            args=(
                port,
                urls,
                viewers,
                stop,
                time.monotonic() + args.phase_seconds,
                out,
                seed,
                args.crowd_nice,
                stack.push_port if push else None,
                args.api_pollers,
            ),
        )
        if viewers
        else None
    )
    entrants = {table["game"]: table["entrants"] for table in opened["tables"]}
    every = {entrant for table in opened["tables"] for entrant in table["entrants"]}
    seen: dict[int, float] = {}
    window: dict[str, float] = {}
    results: dict[str, dict] = {}
    state = {"played": None}

    def collect(wait: float) -> None:
        # Read as results come: a child cannot exit before its queue is read.
        try:
            got = out.get(timeout=wait) if wait else out.get_nowait()
        except queue.Empty:
            return
        results[got["who"]] = got

    def done(elapsed: float) -> bool:
        if state["played"] is None:
            collect(0)
            if "referees" not in results and referees.is_alive():
                return elapsed > args.phase_seconds * 3 + 120
            state["played"] = elapsed
            stop.set()
        settle = args.converge_seconds * (3 if outage else 1)
        return (every <= seen.keys() and "up" in window) or (
            elapsed - state["played"] > settle and (not outage or "up" in window)
        )

    if outage:
        window["planned"] = True
    else:
        window["up"] = 0.0  # nothing to wait for
    web = stack.web_pids()
    groups = stack.group_pids()
    groups_before = {name: group_cpu(pid) for name, pid in groups.items()}
    cpu_before, busy_before = (sum(map(group_cpu, web)), time.monotonic()), machine_busy()
    logged_from = stack.access_offset()
    for process in (referees, crowd):
        if process:
            process.start()
    try:
        asyncio.run(
            watch_standings(
                port,
                event,
                opened["number"],
                done,
                seen,
                outage=args.outage_after if outage else None,
                stack=stack,
                window=window,
            )
        )
        stop.set()
        expected = 1 + (1 if crowd else 0)
        for _ in range(expected):
            if len(results) < expected:
                collect(60)
    finally:
        stop.set()
        for process in (referees, crowd):
            if process:
                process.join(10)
                if process.is_alive():
                    process.kill()
    cpu_after, busy_after = (sum(map(group_cpu, web)), time.monotonic()), machine_busy()
    span = max(cpu_after[1] - cpu_before[1], 1e-9)
    groups_cpu = {
        name: (group_cpu(pid) - groups_before[name]) / span for name, pid in groups.items()
    }
    time.sleep(0.5)  # gunicorn's log lines reach the file
    inside = stack.hand_seconds(logged_from)
    played = results.get("referees", {})
    lags, unseen = standings_lags(played.get("finished", {}), entrants, seen)
    stream = results.get("viewers", {}).get("stream")
    # Per stream: each receives a change at its own offset within the feed's spread.
    pushed_by_stream: dict[int, list[float]] = {}
    for moment, standings, ident in stream["events"] if stream else ():
        if standings:
            pushed_by_stream.setdefault(ident, []).append(moment)
    pushed_lags = [
        lag
        for moments in pushed_by_stream.values()
        for lag in stream_lags(played.get("finished", {}), entrants, seen, moments)
    ]
    return {
        "until": played.get("started", 0.0) + args.phase_seconds,
        "viewers": viewers,
        "push": push,
        "stream": stream,
        "outage": outage,
        "round": opened,
        "referees": played,
        "polls": results.get("viewers", {}).get("polls", []),
        "viewer_cpu": results.get("viewers", {}).get("cpu"),
        "lags": lags,
        "pushed_lags": pushed_lags,
        "inside": inside,
        "unseen": unseen,
        "window": window,
        # The web workers' CPU per second of the phase, and how busy the whole machine
        # was (other people's work included): what to read the latencies against.
        "web_cpu": (cpu_after[0] - cpu_before[0]) / max(cpu_after[1] - cpu_before[1], 1e-9),
        # Each server's own (cores), to see where the CPU went.
        "groups_cpu": groups_cpu,
        "machine_busy": (busy_after[0] - busy_before[0])
        / max(busy_after[1] - busy_before[1], 1e-9),
    }


def probe_costs(port: int, event: Event, rounds: int = 30) -> dict:
    """Median time of unchanged polls and of a minimal authenticated request, idle server."""
    urls = live_urls(port, event)
    api = call_sync(port, "GET", urls["api"])
    etag = api.headers.get("etag")
    token = event.organizer
    probes = {
        "page's live poll 204": lambda: call(
            port, "GET", urls["live"], headers={"HX-Request": "true"}
        ),
        "standings API 304": lambda: call(
            port, "GET", urls["api"], headers={"If-None-Match": etag} if etag else {}
        ),
        "minimal: GET /api/v1/invitations/ (token)": lambda: call(
            port, "GET", "/api/v1/invitations/", token=token
        ),
    }

    async def measure():
        samples = {name: [] for name in probes}
        statuses = {name: set() for name in probes}
        for _ in range(rounds):
            for name, probe in probes.items():
                answer = await probe()
                samples[name].append(answer.seconds)
                statuses[name].add(answer.status)
        return samples, statuses

    samples, statuses = asyncio.run(measure())
    return {
        name: {"median": statistics.median(values), "statuses": sorted(statuses[name])}
        for name, values in samples.items()
    }


# ---------------------------------------------------------------------------------------
# Integrity and the report


def integrity(stack: Stack, phases: list[dict]) -> dict:
    acked = [tuple(ack[:2]) for phase in phases for ack in phase["referees"].get("acks", [])]
    stored = shell_json(stack, STORED_HANDS)
    games = {table["game"] for phase in phases for table in phase["round"]["tables"]}
    first = [tuple(row) for row in stored["first"] if row[0] in games]
    current = {tuple(row) for row in stored["current"] if row[0] in games}
    verify = stack.manage("verify_games", check=False)
    return {
        "acknowledged": len(acked),
        "acked_twice": len(acked) - len(set(acked)),
        "stored": len(first),
        "stored_twice": len(first) - len(set(first)),
        "missing": len(set(acked) - current),
        "unacknowledged": len(set(first) - set(acked)),
        "verify_exit": verify.returncode,
        "verify_tail": (verify.stdout + verify.stderr).strip().splitlines()[-3:],
    }


def stream_figures(phase: dict, started: float | None, until: float) -> dict | None:
    """What the viewers holding the page's stream got: events, bytes, connections (how
    many were open, fewest and most, in the middle half of play), errors, and the lag of
    the standings as pushed."""
    stream = phase.get("stream")
    if not stream:
        return None
    events = [moment for moment, _, _ in stream["events"]]
    during = [moment for moment in events if started and started <= moment <= until]
    span = until - started if started else None
    quarter = (span or 0) / 4
    middle = [
        count
        for moment, count in stream["open_at"]
        if started and started + quarter <= moment <= until - quarter
    ]
    return {
        "events": len(events),
        "event_rate": len(during) / span if span else None,
        "megabytes": stream["bytes"] / 1e6,
        "raw_megabytes": stream.get("raw", 0) / 1e6,
        "connects": stream["connects"],
        "open_min": min(middle, default=None),
        "open_max": max(middle, default=None),
        "errors": stream["errors"],
        "lag": summarize(phase.get("pushed_lags", [])),
    }


def phase_figures(phase: dict) -> dict:
    played = phase["referees"]
    log = played.get("log", [])
    window = phase["window"]
    in_outage = (
        (lambda entry: window["down"] - 0.0 <= entry[0] + entry[1] and entry[0] <= window["up"])
        if "down" in window and "up" in window
        else (lambda entry: False)
    )
    timed = [entry[1] for entry in log if entry[3] == "hand" and not entry[4]]
    normal = [
        entry[1] for entry in log if entry[3] == "hand" and not entry[4] and not in_outage(entry)
    ]
    last_finish = max(played.get("finished", {}).values(), default=played.get("ended", 0.0))
    polls = phase["polls"]
    played_until = min(last_finish, phase["until"])
    share, counted = unchanged_share(polls, until=played_until)
    during = [poll for poll in polls if poll[0] <= played_until]
    span = (played_until - played["started"]) if played.get("started") else None
    outage_requests = [entry for entry in log if in_outage(entry)] + [
        poll for poll in polls if in_outage(poll)
    ]
    start = played.get("started", 0.0)
    slices: dict[int, list[float]] = {}
    for entry in log:
        if entry[3] == "hand" and not entry[4]:
            slices.setdefault(int((entry[0] - start) // SLICE_SECONDS), []).append(entry[1])
    return {
        "referee": summarize(normal if phase["outage"] else timed),
        # The referees' p95 slice by slice of the phase: a burst shows where it happened.
        "slices": [percentile(slices[index], 95) for index in sorted(slices)],
        "inside": summarize(phase.get("inside", [])),
        "referee_errors": sum(1 for entry in log if entry[2] == 0 or entry[2] >= 500),
        "referee_refused": sum(1 for entry in log if 400 <= entry[2] < 500),
        "overtime_hands": sum(1 for entry in log if entry[4]),
        "viewer": summarize([poll[1] for poll in polls]),
        "viewer_errors": sum(1 for poll in polls if poll[2] == 0 or poll[2] >= 500),
        "unchanged": share,
        # What the polls during play brought the viewer and cost (see poll_counts).
        "counts": poll_counts(during),
        "by_proxy": sum(1 for poll in during if len(poll) > 6 and poll[6]),
        "poll_rate": counted / span if span else None,
        "play_seconds": span,
        "hands": len(played.get("acks", [])),
        "games_finished": len(played.get("finished", {})),
        "games": len(phase["round"]["tables"]),
        "lag": summarize(phase["lags"]),
        "unseen": len(phase["unseen"]),
        "outage_longest": max((entry[1] for entry in outage_requests), default=None)
        if "down" in window
        else None,
        "outage_requests": len(outage_requests),
        "outage_failed": sum(1 for entry in outage_requests if entry[2] == 0 or entry[2] >= 500),
        "stream": stream_figures(phase, played.get("started"), played_until),
        "client_cpu": (played.get("cpu") or 0.0) + (phase["viewer_cpu"] or 0.0),
        "web_cpu": phase.get("web_cpu"),
        "groups_cpu": phase.get("groups_cpu", {}),
        "machine_busy": phase.get("machine_busy"),
    }


def phase_name(phase: dict) -> str:
    return (
        f"{phase['viewers']} "
        + ("push" if phase.get("push") else "viewers")
        + (", redis out" if phase["outage"] else "")
    )


def no_viewers(phases: list[dict], figures: list[dict], which: str) -> float | None:
    """The p95 of ``which`` ("referee" or "inside") in the phase with no viewers: what
    every other phase is compared with."""
    return next(
        (
            figure[which]["p95"]
            for phase, figure in zip(phases, figures, strict=True)
            if not phase["viewers"] and not phase["outage"]
        ),
        None,
    )


def report(stack: Stack, phases: list[dict], costs: dict, checks: dict, wall: float) -> bool:
    figures = [phase_figures(phase) for phase in phases]
    base = no_viewers(phases, figures, "referee")
    print()
    print(
        f"capicu live load: {PLAYERS}-player DCS Swiss, {REFEREES} referees, {os.cpu_count()} cores"
    )
    print(
        f"stack: gunicorn {stack.gunicorn_command};"
        f" celery worker -c {stack.args.celery_concurrency} + beat;"
        f" redis-server :{stack.redis_port}; PostgreSQL {stack.database}"
        + (f"; streams: uvicorn {stack.push_command}" if stack.push_command else "")
        + (f"; viewers' generator at nice {stack.args.crowd_nice}" if stack.args.crowd_nice else "")
        + f"; CONN_MAX_AGE={stack.env.get('CONN_MAX_AGE', '0')}"
    )
    print()
    header = (
        f"{'phase':<16}{'hands':>6}{'games':>8}{'play':>8}{'ref p50':>9}{'ref p95':>9}"
        f"{'vs N=0':>8}{'view p50':>10}{'view p95':>10}{'polls/s':>9}{'unchanged':>11}"
        f"{'by cache':>10}{'by nginx':>10}{'to web/s':>10}"
        f"{'lag p50':>9}{'lag max':>9}{'errors':>8}{'client cpu':>12}{'web cpu':>9}"
        f"{'machine':>9}"
    )
    print(header)
    print("-" * len(header))
    for phase, figure in zip(phases, figures, strict=True):
        name = phase_name(phase)
        ref_ratio = ratio(figure["referee"]["p95"], base)
        rate = f"{figure['poll_rate']:.0f}" if figure["poll_rate"] else "-"
        # The polls per second that reached gunicorn (nginx's cache answered the rest).
        share = proxy_share(figure)
        web_rate = (
            f"{figure['poll_rate'] * (1 - share):.0f}"
            if figure["poll_rate"] and share is not None
            else "-"
        )
        print(
            f"{name:<16}{figure['hands']:>6}{figure['games_finished']:>4}/{figure['games']:<3}"
            f"{secs(figure['play_seconds']):>8}{ms(figure['referee']['p50']):>9}"
            f"{ms(figure['referee']['p95']):>9}"
            f"{times(ref_ratio):>8}"
            f"{ms(figure['viewer']['p50']):>10}{ms(figure['viewer']['p95']):>10}"
            f"{rate:>9}{pct(figure['unchanged']):>11}{pct(cached_share(figure)):>10}"
            f"{pct(proxy_share(figure)) if stack.args.nginx else '-':>10}{web_rate:>10}"
            f"{secs(figure['lag']['p50']):>9}{secs(figure['lag']['max']):>9}"
            f"{figure['referee_errors'] + figure['viewer_errors']:>8}"
            f"{figure['client_cpu']:>10.1f} s"
            f"{figure['web_cpu'] or 0:>8.2f}c{figure['machine_busy'] or 0:>9.0%}"
        )
    print()
    print("cores used per second of the phase, by server (the clients' are 'client cpu')")
    for phase, figure in zip(phases, figures, strict=True):
        print(
            f"{phase_name(phase):<22}"
            + "  ".join(f"{name} {cores:.2f}" for name, cores in figure["groups_cpu"].items())
        )
    inside_base = no_viewers(phases, figures, "inside")
    print()
    print(f"the referees' p95 in each {SLICE_SECONDS} s of play (client's figure)")
    for phase, figure in zip(phases, figures, strict=True):
        print(f"{phase_name(phase):<22}" + " ".join(f"{ms(p95):>6}" for p95 in figure["slices"]))
    if not stack.args.inside:
        figures_inside = []
    else:
        figures_inside = list(zip(phases, figures, strict=True))
        print()
        print(
            "the hands inside gunicorn (its access log: from the request read to the answer"
            " written; the wait for a free worker and the network are not in it)"
        )
    for phase, figure in figures_inside:
        inside = figure["inside"]
        print(
            f"{phase_name(phase):<22}{inside['n']:>7} hands"
            f"  p50 {ms(inside['p50']):>7}  p95 {ms(inside['p95']):>7}"
            f"  {times(ratio(inside['p95'], inside_base)):>7} of no viewers'"
        )
    streamed = [
        (phase, figure) for phase, figure in zip(phases, figures, strict=True) if figure["stream"]
    ]
    if streamed:
        print()
        print(
            "push phases: the page viewers (80 %) hold the page's stream (Server-Sent Events)"
            " instead of polling; the API viewers (20 %) poll as before. MB: on the wire"
            " (gzip); events MB: the events' own size"
        )
        head = (
            f"{'phase':<16}{'events':>8}{'events/s':>10}{'MB':>8}{'events MB':>11}{'connects':>10}"
            f"{'open (mid-play)':>17}{'errors':>8}{'pushed lag p50':>16}{'max':>8}"
        )
        print(head)
        print("-" * len(head))
        for phase, figure in streamed:
            stream = figure["stream"]
            rate = f"{stream['event_rate']:.0f}" if stream["event_rate"] else "-"
            held = f"{stream['open_min']}-{stream['open_max']}" if stream["open_max"] else "-"
            print(
                f"{phase_name(phase):<16}{stream['events']:>8}{rate:>10}"
                f"{stream['megabytes']:>8.1f}{stream['raw_megabytes']:>11.1f}"
                f"{stream['connects']:>10}{held:>17}"
                f"{stream['errors']:>8}{secs(stream['lag']['p50']):>16}"
                f"{secs(stream['lag']['max']):>8}"
            )
    print()
    print(
        "setup (per round): "
        + "; ".join(
            f"round {p['round']['number']}: paired in {secs(p['round']['pairing_seconds'])}, "
            f"{p['round']['assign_requests']} requests to assign referees in "
            f"{secs(p['round']['assign_seconds'])}"
            for p in phases
        )
    )
    for phase, figure in zip(phases, figures, strict=True):
        if figure["overtime_hands"]:
            print(
                f"round {phase['round']['number']}: {figure['overtime_hands']} hands after the"
                " phase's time, played without pauses or viewers and left out of the figures"
            )
    print()
    if costs:
        base_cost = costs["minimal: GET /api/v1/invitations/ (token)"]["median"]
        print("idle server, median of 30 each:")
        for name, cost in costs.items():
            print(
                f"  {name:<44}{ms(cost['median']):>8}  {cost['median'] / base_cost:.2f}x"
                f"  HTTP {','.join(map(str, cost['statuses']))}"
            )
        print()

    rows = []

    def target(what: str, shown: str, goal: str, state: str) -> None:
        rows.append((what, shown, goal, state))

    def phase_with(viewers: int, push: bool) -> dict | None:
        return next(
            (
                f
                for p, f in zip(phases, figures, strict=True)
                if p["viewers"] == viewers and not p["outage"] and p.get("push", False) == push
            ),
            None,
        )

    for push in (False, True):
        how = ", push" if push else ""
        for viewers, key in ((300, "referee_ratio_300"), (1000, "referee_ratio_1000")):
            figure = phase_with(viewers, push)
            if figure:
                value = ratio(figure["referee"]["p95"], base)
                target(
                    f"referee p95 at {viewers} viewers{how} / at 0",
                    "-" if value is None else f"{value:.2f}x",
                    f"<= {TARGETS[key]}x",
                    verdict(value, TARGETS[key]),
                )
                # The hall behind nginx (1,000 page viewers and 60 API pollers): 1.5x.
                if viewers == 1000 and stack.args.nginx and stack.args.api_pollers:
                    goal = TARGETS["referee_ratio_hall"]
                    target(
                        f"  with {stack.args.api_pollers} API pollers, behind nginx",
                        "-" if value is None else f"{value:.2f}x",
                        f"<= {goal}x",
                        verdict(value, goal),
                    )
        counts = {p["viewers"] for p in phases if p["viewers"] and not p["outage"]}
        for viewers in sorted(counts):
            figure = phase_with(viewers, push)
            if not figure:
                continue
            how = ", push (API polls only)" if push else ""
            tally = figure["counts"]
            counted = tally["counted"]
            if not counted:
                continue
            share, ceiling = tally["unchanged"] / counted, tally["quiet"] / counted
            target(
                f"polls unchanged during play, {viewers} viewers{how}",
                f"{share:.1%} of {counted}",
                f"= found nothing new, {ceiling:.1%}",
                "PASS" if tally["missed"] == 0 else "FAIL",
            )
            target(
                "  changed answers that showed nothing new",
                f"{tally['changed_empty']} of {tally['changed_answers']}",
                "0",
                "PASS" if tally["changed_empty"] == 0 else "FAIL",
            )
            # The goal as first set holds wherever this pace leaves it within reach.
            goal = TARGETS["unchanged_share_300"]
            target(
                f"  {goal:.0%} unchanged, as first set",
                f"{share:.1%}",
                f">= {goal:.0%}",
                verdict(share, goal, at_least=True)
                if ceiling >= goal
                else f"OUT OF REACH (ceiling {ceiling:.1%})",
            )
            goal = TARGETS["cache_share_300"]
            value = cached_share(figure)
            caches = "nginx's or capicu's cache" if stack.args.nginx else "the cache alone"
            target(
                f"polls answered by {caches}, {viewers} viewers{how}",
                f"{value:.1%} of {counted}",
                f">= {goal:.0%}" + ("" if viewers == 300 else " (300 in the issue)"),
                verdict(value, goal, at_least=True),
            )
    if costs:
        minimal = costs["minimal: GET /api/v1/invitations/ (token)"]["median"]
        worst = max(
            (cost["median"] for name, cost in costs.items() if not name.startswith("minimal")),
            default=None,
        )
        value = ratio(worst, minimal)
        target(
            "costliest unchanged poll / minimal endpoint",
            "-" if value is None else f"{value:.2f}x",
            f"<= {TARGETS['unchanged_cost_ratio']}x",
            verdict(value, TARGETS["unchanged_cost_ratio"]),
        )
    lags = [lag for p in phases if not p["outage"] for lag in p["lags"]]
    unseen = sum(len(p["unseen"]) for p in phases if not p["outage"])
    summary = summarize(lags)
    target(
        "standings lag, median",
        secs(summary["p50"]),
        "<= 2 s",
        verdict(summary["p50"], TARGETS["lag_median"]),
    )
    target(
        "standings lag, max" + (f" ({unseen} games never shown)" if unseen else ""),
        secs(summary["max"]),
        "<= 5 s",
        "FAIL" if unseen else verdict(summary["max"], TARGETS["lag_max"]),
    )
    pushed = summarize([lag for p in phases for lag in p.get("pushed_lags", [])])
    if pushed["n"]:
        target(
            "standings lag as pushed to the page, median",
            secs(pushed["p50"]),
            "<= 2 s",
            verdict(pushed["p50"], TARGETS["lag_median"]),
        )
        target(
            "standings lag as pushed to the page, max",
            secs(pushed["max"]),
            "<= 5 s",
            verdict(pushed["max"], TARGETS["lag_max"]),
        )
    for phase, figure in zip(phases, figures, strict=True):
        if phase["outage"]:
            target(
                f"longest request, Redis down {OUTAGE_SECONDS:.0f} s "
                f"({figure['outage_requests']} requests, {figure['outage_failed']} failed)",
                secs(figure["outage_longest"]),
                "<= 1 s",
                verdict(figure["outage_longest"], TARGETS["outage_longest"]),
            )
            target(
                "standings converge after Redis returns",
                f"{figure['games'] - figure['unseen']}/{figure['games']} games shown",
                "all",
                "PASS" if not figure["unseen"] and figure["games_finished"] else "FAIL",
            )
    pairing = max((p["round"]["pairing_seconds"] for p in phases), default=None)
    target(
        "pairing a 256-player Swiss round (slowest)",
        secs(pairing),
        "< 1 s",
        verdict(pairing, TARGETS["pairing_seconds"]),
    )
    requests = max((p["round"]["assign_requests"] for p in phases), default=0)
    target(
        "requests to assign a round's referees",
        str(requests),
        "1",
        "PASS" if requests == 1 else "FAIL",
    )
    doubled = checks["stored_twice"] + checks["acked_twice"]
    target(
        "hands acknowledged = stored once, none missing",
        f"{checks['acknowledged']} acked, {checks['stored']} stored, {checks['missing']} missing,"
        f" {doubled} doubled"
        + (f", {checks['unacknowledged']} stored unacked" if checks["unacknowledged"] else ""),
        "0 missing, 0 doubled",
        "PASS" if not checks["missing"] and not doubled else "FAIL",
    )
    target(
        "manage.py verify_games",
        f"exit {checks['verify_exit']}",
        "exit 0",
        "PASS" if checks["verify_exit"] == 0 else "FAIL",
    )
    width = max(len(row[0]) for row in rows) + 2
    print(f"{'target (issue 14)':<{width}}{'measured':<56}{'goal':<28}result")
    for what, shown, goal, state in rows:
        print(f"{what:<{width}}{shown:<56}{goal:<28}{state}")
    print()
    print(f"wall time {wall:.0f} s; logs of the stack were in {stack.scratch}")
    return all(row[3] != "FAIL" for row in rows)


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--viewers",
        default="0,300,1000",
        help="viewer counts, one phase (round) each; include 0 for the baseline",
    )
    parser.add_argument(
        "--push",
        default="",
        help="viewer counts for phases where the page viewers hold the page's stream"
        " (Server-Sent Events, from a uvicorn process beside gunicorn) instead of polling",
    )
    parser.add_argument(
        "--push-args",
        default="",
        help="uvicorn's options for the streams (default '--no-access-log --log-level warning')",
    )
    parser.add_argument(
        "--push-app",
        default="config.asgi:application",
        help="the ASGI application uvicorn serves (default config.asgi:application, where"
        " a signed-out visitor's stream skips Django's middleware; config.asgi:"
        "django_application sends every stream through Django, to compare)",
    )
    parser.add_argument(
        "--inside",
        action="store_true",
        help="also time the hands inside gunicorn, from an access log it writes (which"
        " costs the workers a little: leave it off for the figures to compare)",
    )
    parser.add_argument(
        "--push-nice",
        type=int,
        default=0,
        help="niceness of the streams' uvicorn process (default 0: the same priority as"
        " gunicorn; 10 measured no better for the referees, docs/live_load.md)",
    )
    parser.add_argument(
        "--crowd-nice",
        type=int,
        default=0,
        help="niceness of the viewers' load generator (default 0). Phones are not on the"
        " server; at 19 the simulated crowd takes only the CPU the server leaves, and its"
        " measured lags include its own waits for a core",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="games to 100 points and shorter waits (about 3-4 minutes)",
    )
    parser.add_argument("--no-outage", action="store_true", help="skip the Redis outage round")
    parser.add_argument(
        "--outage-viewers", type=int, default=0, help="viewers during the Redis outage round"
    )
    parser.add_argument(
        "--outage-push",
        action="store_true",
        help="the outage round's page viewers hold the stream instead of polling",
    )
    parser.add_argument(
        "--outage-after",
        type=float,
        default=None,
        help="seconds into the outage round before Redis is killed",
    )
    parser.add_argument(
        "--target",
        type=int,
        default=None,
        help="points that win a game (DCS plays to 250; --quick 100)",
    )
    parser.add_argument(
        "--phase-seconds",
        type=float,
        default=None,
        help="after this, referees stop pausing between hands",
    )
    parser.add_argument(
        "--converge-seconds",
        type=float,
        default=None,
        help="how long to wait for the standings after the last game",
    )
    parser.add_argument(
        "--gunicorn-args",
        default="",
        help="replaces the default '--workers 4' (e.g. '-w 4 -k gthread')",
    )
    parser.add_argument(
        "--nginx",
        action="store_true",
        help="put Debian's nginx with deploy/nginx.conf in front (its micro-cache answers"
        " the anonymous live polls); every client asks nginx, and the stack runs with make"
        " serve's CONN_MAX_AGE (60 s; --env CONN_MAX_AGE=0 for the earlier runs' setting)",
    )
    parser.add_argument(
        "--live-workers",
        type=int,
        default=2,
        help="with --nginx: workers of the live polls' own gunicorn pool, as the Procfile's"
        " live line starts it (default 2; 0: every request to the one pool, as before)",
    )
    parser.add_argument(
        "--live-nice",
        type=int,
        default=10,
        help="niceness of the live polls' pool (default 10, as the Procfile)",
    )
    parser.add_argument(
        "--nginx-conf",
        type=Path,
        default=None,
        help="with --nginx: another version of deploy/nginx.conf to fill and run (e.g. an"
        " earlier one, to compare in the same session)",
    )
    parser.add_argument(
        "--api-pollers",
        type=int,
        default=None,
        help="poll the standings API with this many clients beside each phase's viewers,"
        " who then all follow the page (default: every fifth viewer polls the API)",
    )
    parser.add_argument("--celery-concurrency", type=int, default=1)
    parser.add_argument(
        "--env",
        action="append",
        metavar="NAME=VALUE",
        help="extra environment for the stack, e.g. CONN_MAX_AGE=60",
    )
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--keep-db", action="store_true", help="leave the database behind")
    args = parser.parse_args(argv)
    args.viewer_counts = [int(part) for part in args.viewers.split(",") if part.strip()]
    if 0 not in args.viewer_counts:
        args.viewer_counts.insert(0, 0)
    args.push_counts = [int(part) for part in args.push.split(",") if part.strip()]
    if any(count < 0 or count > 5000 for count in args.viewer_counts + args.push_counts):
        parser.error("viewer counts go from 0 to 5,000")
    args.target = args.target or (100 if args.quick else None)
    args.phase_seconds = args.phase_seconds or (60.0 if args.quick else 150.0)
    args.converge_seconds = args.converge_seconds or (10.0 if args.quick else 20.0)
    args.outage_after = (
        args.outage_after if args.outage_after is not None else (4.0 if args.quick else 12.0)
    )
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    began = time.monotonic()
    stack = Stack(args)

    def progress(text: str) -> None:
        print(f"[{time.monotonic() - began:5.0f} s] {text}", flush=True)

    def on_term(signum, frame):  # SIGTERM: unwind through finally like Ctrl-C
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    try:
        progress(f"starting the stack (database {stack.database}, logs in {stack.scratch})")
        stack.up()
        progress("stack up; building the event")
        tokens = shell_json(stack, ACCOUNTS % REFEREES)
        rounds = len(args.viewer_counts) + len(args.push_counts) + (0 if args.no_outage else 1)
        event = build_event(stack.web_port, tokens, rounds=rounds, target=args.target)
        progress(
            f"event /t/{event.slug}/ built; staff invited and accepted in "
            f"{event.setup['staff_seconds']:.1f} s"
        )
        phases = []
        plan = [(count, False, False) for count in args.viewer_counts]
        plan += [(count, False, True) for count in args.push_counts]
        if not args.no_outage:
            plan.append((args.outage_viewers, True, args.outage_push))
        costs = {}
        for viewers, outage, push in plan:
            outage_note = ", Redis killed for a while" if outage else ""
            how = " holding the stream" if push else ""
            progress(f"round {len(phases) + 1}: {viewers} viewers{how}{outage_note}")
            phase = play_phase(stack, event, viewers, outage=outage, args=args, push=push)
            phases.append(phase)
            figure = phase_figures(phase)
            progress(
                f"{figure['hands']} hands, {figure['games_finished']}/{figure['games']} games"
                f" finished, referee p95 {ms(figure['referee']['p95'])},"
                f" unchanged {pct(figure['unchanged'])}"
            )
            if not costs and not outage:
                costs = probe_costs(stack.web_port, event)
        progress("checking every hand against the database, then verify_games")
        checks = integrity(stack, phases)
        passed = report(stack, phases, costs, checks, time.monotonic() - began)
        return 0 if passed else 1
    except KeyboardInterrupt:
        print("interrupted: stopping everything the bench started", file=sys.stderr)
        return 130
    finally:
        stack.down()


if __name__ == "__main__":
    sys.exit(main())

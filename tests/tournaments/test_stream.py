"""The tournament page's live parts as Server-Sent Events: the stream sends what the poll
would answer, keeps the connection alive with comments and ends so the page reconnects."""

import asyncio
import gzip
import re
import secrets
import zlib
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import OperationalError
from django.test import AsyncClient, Client, override_settings

from tests.beside_readers import beside_readers
from tests.tournaments import test_live
from tests.tournaments.test_live import HTMX, bare, live_url_in, one_hand, poll_url, tables
from tournaments import stream
from tournaments.services import update_tournament

# The live tests' event and their hands reaching the pollers at once.
organizer, event, at_once = test_live.organizer, test_live.event, test_live.at_once

# The stream's own thread asks the database: the test's data must be committed.
pytestmark = pytest.mark.django_db(transaction=True)

SHORT = {"LIVE_STREAM_TICK": 0.05, "LIVE_STREAM_HEARTBEAT": 0.2, "LIVE_STREAM_SECONDS": 1.5}


@pytest.fixture(autouse=True)
def no_feeds_left():
    yield
    assert not stream._feeds


def apart(call, *arguments):
    """Run ``call`` in a thread of its own: the browser tests may have left an event loop
    running in this one (Playwright's), where neither asyncio.run nor Django's sync
    client calling an async view may run."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(call, *arguments).result()


def events_url(poll: str) -> str:
    return poll.replace("/live/?", "/events/?", 1)


def parse(chunks: list[str]) -> list[tuple[str, str]]:
    """The stream as (kind, data): kind "live", "end", ":" for a comment, "retry"."""
    found = []
    for block in "".join(chunks).split("\n\n"):
        if not block:
            continue
        if block.startswith(":"):
            found.append((":", block))
        elif block.startswith("retry:"):
            found.append(("retry", block))
        else:
            kind = re.search(r"^event: (\w+)", block, re.M).group(1)
            data = "\n".join(line[6:] for line in block.split("\n") if line.startswith("data: "))
            found.append((kind, data))
    return found


def receive(url: str, during=None, headers=None):
    """Open the stream, run ``during`` (in a thread) while it flows, read it to its end:
    the response and its chunks as they came (bytes)."""

    async def main():
        response = await AsyncClient().get(url, headers=headers)
        chunks = []
        if not response.streaming:
            return response, chunks

        async def read():
            async for chunk in response.streaming_content:
                chunks.append(chunk)

        reader = asyncio.create_task(read())
        if during:
            await asyncio.sleep(0.2)
            await asyncio.to_thread(beside_readers, during)
        await asyncio.wait_for(reader, 10)
        return response, chunks

    return apart(asyncio.run, main())


def listen(url: str, during=None) -> tuple[int, list[tuple[str, str]]]:
    response, chunks = receive(url, during)
    return response.status_code, parse([chunk.decode() for chunk in chunks])


@override_settings(**SHORT)
def test_a_stream_sends_a_hand_at_another_table_with_heartbeats_and_ends(client, event, organizer):
    tournament, _, round_ = event
    poll = poll_url(client, tournament)
    status, got = listen(
        events_url(poll), during=lambda: one_hand(tables(round_)[2].game, organizer)
    )
    assert status == 200
    kinds = [kind for kind, _ in got]
    assert kinds[0] == "retry" and kinds[-1] == "end"
    assert ":" in kinds  # heartbeats while nothing changes
    pushed = [data for kind, data in got if kind == "live"]
    assert len(pushed) == 1
    # The same answer the page's poll gets: the new poller and table 3 out of band.
    assert '<li hx-swap-oob="true" class="table-card" id="table-3">' in pushed[0]
    assert pushed[0].count('class="table-card"') == 1
    assert client.get(live_url_in(pushed[0]), **HTMX).status_code == 204


@override_settings(**SHORT)
def test_a_browser_that_takes_gzip_gets_each_event_compressed_and_readable_at_once(
    client, event, organizer
):
    tournament, _, round_ = event
    response, chunks = receive(
        events_url(poll_url(client, tournament)),
        during=lambda: one_hand(tables(round_)[2].game, organizer),
        headers={"Accept-Encoding": "gzip, deflate, br"},
    )
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response["Vary"]
    body = b"".join(chunks)
    # A whole gzip member: gzip checks the trailer's checksum and length.
    got = parse([gzip.decompress(body).decode()])
    kinds = [kind for kind, _ in got]
    assert kinds[0] == "retry" and kinds[-1] == "end" and ":" in kinds
    pushed = [data for kind, data in got if kind == "live"]
    assert len(pushed) == 1 and pushed[0].count('class="table-card"') == 1
    assert '<li hx-swap-oob="true" class="table-card" id="table-3">' in pushed[0]
    # Each chunk completes its events as it arrives: a browser shows them at once.
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    for chunk in chunks[:-1]:
        assert inflate.decompress(chunk).endswith(b"\n\n")
    assert len(body) < len(gzip.decompress(body))


@override_settings(**SHORT)
def test_streams_of_one_feed_share_each_event_compressed_once(
    client, event, organizer, monkeypatch
):
    tournament, _, round_ = event
    url = events_url(poll_url(client, tournament))
    game = tables(round_)[2].game
    made = []
    real = zlib.compressobj

    def counted(*arguments):
        made.append(arguments)
        return real(*arguments)

    for fixed in (stream.RETRY, stream.STILL_HERE, stream.END):
        assert fixed.packed  # deflated once a process, before the streams open
    monkeypatch.setattr(stream.zlib, "compressobj", counted)

    async def main():
        accept = {"Accept-Encoding": "gzip"}
        responses = [await AsyncClient().get(url, headers=accept) for _ in range(3)]
        bodies = [[] for _ in responses]

        async def read(response, into):
            async for chunk in response.streaming_content:
                into.append(chunk)

        readers = [
            asyncio.create_task(read(response, into))
            for response, into in zip(responses, bodies, strict=True)
        ]
        await asyncio.sleep(0.2)
        await asyncio.to_thread(one_hand, game, organizer)
        await asyncio.wait_for(asyncio.gather(*readers), 10)
        return bodies

    bodies = apart(asyncio.run, main())
    texts = [gzip.decompress(b"".join(body)).decode() for body in bodies]
    assert all(text.count('class="table-card"') == 1 for text in texts)
    # The shared event was deflated once, not once a stream.
    pushed = {chunk for body in bodies for chunk in body if len(chunk) > 200}
    assert len(pushed) == 1
    assert len(made) == 1, made


@override_settings(**SHORT)
def test_a_feed_whose_question_fails_asks_again_and_its_stream_still_hears(
    client, event, organizer, monkeypatch
):
    # A reader refused a moment (SQLite's "table is locked" beside a writer, a dropped
    # connection) must not end the feed: its streams would hear nothing until their end.
    tournament, _, round_ = event
    real, calls = stream._ask, []

    def failing_twice(*arguments):
        calls.append(arguments[2])
        if len(calls) in (2, 3):  # the feed's first two ticks, after the stream's catch-up
            raise OperationalError("database table is locked")
        return real(*arguments)

    monkeypatch.setattr(stream, "_ask", failing_twice)
    status, got = listen(
        events_url(poll_url(client, tournament)),
        during=lambda: one_hand(tables(round_)[2].game, organizer),
    )
    assert status == 200 and len(calls) > 3
    assert [kind for kind, _ in got][-1] == "end"
    pushed = [data for kind, data in got if kind == "live"]
    assert len(pushed) == 1 and 'id="table-3"' in pushed[0]


@override_settings(**SHORT)
def test_a_stream_opened_with_old_tags_catches_up_at_once(client, event):
    tournament, _, _ = event
    status, got = listen(events_url(bare(poll_url(client, tournament))))
    assert status == 200
    first = [data for kind, data in got if kind == "live"]
    assert len(first) == 1 and 'id="standings"' in first[0] and 'id="tables"' in first[0]


@override_settings(**SHORT)
def test_streams_of_the_same_query_share_one_feed(client, event):
    tournament, _, _ = event
    url = events_url(poll_url(client, tournament))

    async def main():
        one = await AsyncClient().get(url)
        two = await AsyncClient().get(url)
        assert len(stream._feeds) == 1
        feed = next(iter(stream._feeds.values()))
        assert feed.listeners == 2
        for response in (one, two):
            async for _ in response.streaming_content:
                pass

    apart(asyncio.run, main())


@override_settings(LIVE_STREAM_TICK=5.0, LIVE_STREAM_HEARTBEAT=0.2, LIVE_STREAM_SECONDS=0.5)
def test_a_crowd_joining_with_the_same_old_tags_is_caught_up_with_one_question(
    client, event, monkeypatch
):
    tournament, _, _ = event
    url = events_url(bare(poll_url(client, tournament)))  # tags older than the feed's
    asked = []
    real = stream._ask

    def counted(*arguments):
        asked.append(arguments[2])
        return real(*arguments)

    monkeypatch.setattr(stream, "_ask", counted)

    async def main():
        responses = [await AsyncClient().get(url) for _ in range(5)]
        bodies = []
        for response in responses:
            bodies.append([chunk async for chunk in response.streaming_content])
        return bodies

    bodies = apart(asyncio.run, main())
    assert asked == [("", "")]  # one question for the five streams
    firsts = [parse([chunk.decode() for chunk in body])[1] for body in bodies]
    assert firsts[0][0] == "live" and 'id="tables"' in firsts[0][1]
    assert all(first == firsts[0] for first in firsts)


def test_a_private_tournament_has_no_stream(client, event, organizer):
    tournament, _, _ = event
    url = events_url(poll_url(client, tournament))
    update_tournament(tournament, by=organizer, public=False)
    assert listen(url)[0] == 404


def test_odd_stream_parameters_are_refused_not_crashed(client, event):
    tournament, _, _ = event
    assert listen(f"/t/{tournament.slug}/events/?stage=x&round=1")[0] == 400
    assert listen("/t/no-such-thing/events/?stage=&round=")[0] == 404


def test_under_a_wsgi_server_the_stream_is_declined_and_the_poll_still_works(client, event):
    tournament, _, _ = event
    poll = poll_url(client, tournament)
    assert apart(client.get, events_url(poll)).status_code == 204
    assert client.get(poll, **HTMX).status_code == 204
    assert client.get(bare(poll), **HTMX).status_code == 200
    # An event the visitor may not see (or none at all) is not found here either.
    assert apart(client.get, "/t/no-such-thing/events/").status_code == 404
    update_tournament(tournament, by=tournament.created_by, public=False)
    assert apart(client.get, events_url(poll)).status_code == 404


def test_the_page_names_its_stream_only_where_one_is_served(client, event):
    tournament, _, _ = event
    with override_settings(LIVE_STREAM=False):
        assert "data-events" not in client.get(f"/t/{tournament.slug}/").content.decode()
    with override_settings(LIVE_STREAM=True):
        page = client.get(f"/t/{tournament.slug}/").content.decode()
    url = re.search(r'data-events="([^"]+)"', page).group(1).replace("&amp;", "&")
    assert url == events_url(live_url_in(page))


def test_a_feeds_news_is_spread_over_at_most_half_a_tick(settings):
    settings.LIVE_STREAM_TICK = 2.0
    settings.LIVE_STREAM_SPREAD = 1.0
    assert stream.spread_seconds() == 1.0
    settings.LIVE_STREAM_SPREAD = 5.0  # never as long as a tick: a stream would miss news
    assert stream.spread_seconds() == 1.0
    settings.LIVE_STREAM_SPREAD = 0
    assert stream.spread_seconds() == 0


@override_settings(**SHORT)
def test_through_django_feeds_are_shared_by_what_the_viewers_may_see(client, event, organizer):
    tournament, _, _ = event
    url = events_url(poll_url(client, tournament))
    staff = Client()
    staff.force_login(organizer)
    sessions = [secrets.token_hex(16), secrets.token_hex(16), staff.cookies["sessionid"].value]

    async def main():
        responses = []
        for session in sessions:
            viewer = AsyncClient()
            viewer.cookies["sessionid"] = session
            responses.append(await viewer.get(url))
        feeds = sorted((feed.staff, feed.listeners) for feed in stream._feeds.values())
        for response in responses:
            async for _ in response.streaming_content:
                pass
        return [response.status_code for response in responses], feeds

    statuses, feeds = apart(asyncio.run, main())
    assert statuses == [200, 200, 200]
    # The made-up cookies share the public feed; the organizer follows the staff view.
    assert feeds == [(False, 2), (True, 1)]

"""A signed-out visitor's stream served straight from the ASGI application, without
Django's middleware: the same events as through Django, and every request that is not a
plain one handed to Django."""

import asyncio
import gzip
import secrets
import socket
import threading
import time

import pytest
import uvicorn
from django.conf import settings as django_settings
from django.core.asgi import get_asgi_application
from django.db import connection
from django.test import Client, override_settings

from tests.beside_readers import beside_readers
from tests.factories import UserFactory
from tests.tournaments import test_live
from tests.tournaments.test_live import HTMX, bare, one_hand, poll_url, tables
from tests.tournaments.test_stream import SHORT, apart, events_url, parse
from tournaments import stream, stream_edge
from tournaments.models import Round, Staff, Tournament
from tournaments.read import answers
from tournaments.services import update_tournament

organizer, event, at_once = test_live.organizer, test_live.event, test_live.at_once

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def no_feeds_left():
    yield
    assert not stream._feeds
    assert not stream._streams_at  # every stream gave its address's place back


class Django:
    """Stands for Django's application: counts the requests handed to it."""

    def __init__(self):
        self.paths = []

    async def __call__(self, scope, receive, send):
        self.paths.append(scope["path"])
        await send({"type": "http.response.start", "status": 418, "headers": []})
        await send({"type": "http.response.body", "body": b"django"})


def scope_of(url: str, method: str = "GET", headers: dict | None = None) -> dict:
    path, _, query = url.partition("?")
    sent = {"host": "testserver", **(headers or {})}
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(name.encode(), value.encode()) for name, value in sent.items()],
        "client": ("127.0.0.1", 40000),
        "server": ("testserver", 80),
    }


def serve(url: str, *, headers=None, method="GET", during=None, leave_after=None):
    """Call the ASGI application as a server would: (status, headers, body chunks, how
    many requests went to Django). ``leave_after``: the client goes after that many chunks."""
    django = Django()
    application = stream_edge.bare(django)

    async def main():
        sent = []
        gone = asyncio.Event()
        asked = False

        async def receive():
            nonlocal asked
            if not asked:
                asked = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        answered = asyncio.Event()

        async def send(message):
            sent.append(message)
            answered.set()
            chunks = [m for m in sent if m["type"] == "http.response.body" and m["body"]]
            if leave_after is not None and len(chunks) >= leave_after:
                gone.set()

        serving = asyncio.create_task(application(scope_of(url, method, headers), receive, send))
        if during:
            # Once the stream has answered (it has read who asks and what they may see),
            # and a little after: a busy machine may take longer than any fixed wait.
            await asyncio.wait_for(answered.wait(), 10)
            await asyncio.sleep(0.2)
            await asyncio.to_thread(beside_readers, during)
        await asyncio.wait_for(serving, 10)
        return sent

    sent = apart(asyncio.run, main())
    start = sent[0]
    answer = {name.decode(): value.decode() for name, value in start["headers"]}
    chunks = [m["body"] for m in sent[1:] if m["body"]]
    return start["status"], answer, chunks, django.paths


@override_settings(**SHORT)
def test_a_signed_out_stream_skips_django_and_sends_what_the_poll_would(client, event, organizer):
    tournament, _, round_ = event
    url = events_url(poll_url(client, tournament))
    status, answer, chunks, to_django = serve(
        url, during=lambda: one_hand(tables(round_)[2].game, organizer)
    )
    assert (status, to_django) == (200, [])
    assert answer["content-type"] == "text/event-stream"
    assert answer["cache-control"] == "no-cache"
    assert answer["x-content-type-options"] == "nosniff"
    got = parse([chunk.decode() for chunk in chunks])
    kinds = [kind for kind, _ in got]
    assert kinds[0] == "retry" and kinds[-1] == "end" and ":" in kinds
    pushed = [data for kind, data in got if kind == "live"]
    assert len(pushed) == 1 and pushed[0].count('class="table-card"') == 1
    assert '<li hx-swap-oob="true" class="table-card" id="table-3">' in pushed[0]


@override_settings(**SHORT)
def test_a_signed_out_stream_is_gzipped_and_in_the_browsers_language(client, event):
    tournament, _, _ = event
    url = events_url(bare(poll_url(client, tournament)))  # caught up with every part
    firsts = {}
    for language in ("en", "es"):
        status, answer, chunks, to_django = serve(
            url, headers={"accept-encoding": "gzip", "accept-language": f"{language};q=0.9"}
        )
        assert (status, to_django) == (200, [])
        assert answer["content-encoding"] == "gzip" and answer["vary"] == "Accept-Encoding"
        got = parse([gzip.decompress(b"".join(chunks)).decode()])
        firsts[language] = next(data for kind, data in got if kind == "live")
    # The same parts, one in each language (the page's own words for its tables).
    assert all('id="tables"' in first for first in firsts.values())
    assert firsts["en"] != firsts["es"]
    assert client.get(f"/t/{tournament.slug}/", HTTP_ACCEPT_LANGUAGE="es").status_code == 200


@override_settings(LIVE_STREAM_TICK=0.05, LIVE_STREAM_HEARTBEAT=0.05, LIVE_STREAM_SECONDS=30)
def test_a_visitor_who_leaves_frees_the_stream_at_once(client, event):
    tournament, _, _ = event
    url = events_url(poll_url(client, tournament))
    status, _, chunks, _ = serve(url, leave_after=3)  # long before the stream's 30 s
    assert status == 200
    assert parse([chunk.decode() for chunk in chunks])[-1][0] == ":"  # cut, not ended
    # ``no_feeds_left`` checks that the feed lost its listener.


def test_odd_parameters_and_hidden_tournaments_are_answered_plainly(client, event, organizer):
    tournament, _, _ = event
    assert serve(f"/t/{tournament.slug}/events/?stage=x&round=1")[0] == 400
    assert serve("/t/no-such-thing/events/?stage=&round=")[0] == 404
    url = events_url(poll_url(client, tournament))
    update_tournament(tournament, by=organizer, public=False)
    status, _, _, to_django = serve(url)
    assert (status, to_django) == (404, [])


@pytest.mark.parametrize(
    "change",
    [
        {"method": "POST"},
        {"headers": {"host": "evil.example"}},  # Django refuses the host
        {"url": "/t/copa/"},
        {"url": "/no/such/page/"},
    ],
)
def test_every_request_that_is_not_a_plain_visitors_stream_goes_to_django(change):
    url = change.get("url", "/t/copa/events/?stage=&round=")
    status, _, chunks, to_django = serve(
        url, method=change.get("method", "GET"), headers=change.get("headers")
    )
    assert (status, chunks, to_django) == (418, [b"django"], [url.split("?")[0]])


def test_an_https_redirect_due_is_left_to_django(settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    url = "/t/copa/events/?stage=&round=1"
    assert serve(url)[3] == ["/t/copa/events/"]
    assert serve(url, headers={"x-forwarded-proto": "https"})[3] == []  # 404: no such event


# --- who a stream is for, and what it may cost --------------------------------------------


class Visit:
    """One client of the ASGI application, served in the running loop until it leaves."""

    def __init__(self, application, url: str, headers=None, address="127.0.0.1"):
        self.sent, self.gone, self.answered = [], asyncio.Event(), asyncio.Event()
        self.asked = False
        scope = scope_of(url, "GET", headers)
        scope["client"] = (address, 40000)
        self.task = asyncio.create_task(application(scope, self.receive, self.send))

    async def receive(self):
        if not self.asked:
            self.asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message):
        self.sent.append(message)
        if message["type"] == "http.response.body":
            self.answered.set()

    @property
    def status(self) -> int:
        return self.sent[0]["status"]

    @property
    def headers(self) -> dict[str, str]:
        return {name.decode(): value.decode() for name, value in self.sent[0]["headers"]}

    async def leave(self):
        self.gone.set()
        await asyncio.wait_for(self.task, 10)


def visit(*wanted, check=None):
    """Open the streams ``wanted`` ((url, headers, address) each) at once, each served by
    the ASGI application; once each has its answer, run ``check`` while they are all
    open, then leave. The visits (and how many requests went to Django)."""
    django = Django()
    application = stream_edge.bare(django)

    async def main():
        visits = [Visit(application, *one) for one in wanted]
        await asyncio.wait_for(asyncio.gather(*(one.answered.wait() for one in visits)), 10)
        if check:
            check(visits)
        await asyncio.gather(*(one.leave() for one in visits))
        return visits

    return apart(asyncio.run, main()), django.paths


def session_of(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies[django_settings.SESSION_COOKIE_NAME].value


def cookie(session: str) -> dict:
    return {"cookie": f"{django_settings.SESSION_COOKIE_NAME}={session}"}


def views_of_feeds() -> list[str]:
    return sorted("staff" if feed.staff else "public" for feed in stream._feeds.values())


@override_settings(**SHORT)
def test_a_made_up_session_cookie_is_a_signed_out_visitor_on_the_shared_feed(client, event):
    tournament, _, _ = event
    url = events_url(poll_url(client, tournament))
    made_up = [(url, cookie(secrets.token_hex(16)), "127.0.0.1") for _ in range(6)]

    def check(visits):
        assert [one.status for one in visits] == [200] * 6
        assert views_of_feeds() == ["public"]  # one feed for them all
        assert next(iter(stream._feeds.values())).listeners == 6

    _, to_django = visit(*made_up, check=check)
    assert to_django == []


@override_settings(**SHORT)
def test_signed_in_viewers_share_a_feed_by_what_they_may_see(client, event, organizer):
    tournament, _, _ = event
    url = events_url(poll_url(client, tournament))
    referee = UserFactory(username="referee")
    Staff.objects.create(tournament=tournament, user=referee, role=Staff.Role.REFEREE)
    fan = UserFactory(username="fan")
    viewers = [
        (url, None, "127.0.0.1"),
        (url, cookie(session_of(fan)), "127.0.0.1"),  # signed in, not staff: the public view
        (url, cookie(session_of(organizer)), "127.0.0.1"),
        (url, cookie(session_of(referee)), "127.0.0.1"),
    ]

    def check(visits):
        assert [one.status for one in visits] == [200] * 4
        assert views_of_feeds() == ["public", "staff"]
        listeners = {feed.staff: feed.listeners for feed in stream._feeds.values()}
        assert listeners == {False: 2, True: 2}

    _, to_django = visit(*viewers, check=check)
    assert to_django == []  # signed-in streams skip Django's middleware too


@override_settings(**SHORT)
def test_a_draft_round_is_streamed_to_the_events_staff_only(client, event, organizer):
    tournament, _, round_ = event
    url = events_url(poll_url(client, tournament)).replace("round=&", f"round={round_.number}&")
    assert f"round={round_.number}&" in url
    Round.objects.filter(pk=round_.pk).update(status=Round.Status.DRAFT)
    visits, _ = visit((url, None, "127.0.0.1"), (url, cookie(session_of(organizer)), "1.2.3.4"))
    assert [one.status for one in visits] == [404, 200]


@pytest.mark.parametrize("query", ["stage=&round=99", "stage=&round=01", "stage=7&round="])
def test_a_round_or_stage_not_of_the_event_makes_no_feed(client, event, query):
    tournament, _, _ = event
    url = f"/t/{tournament.slug}/events/?{query}"
    made = []
    visits, _ = visit((url, None, "127.0.0.1"), check=lambda _: made.append(len(stream._feeds)))
    assert visits[0].status == 404 and made == [0]


@override_settings(**SHORT)
def test_visibility_is_checked_before_anything_kept_in_the_cache(client, event):
    tournament, _, _ = event
    url = events_url(poll_url(client, tournament))
    assert client.get(url.replace("/events/?", "/live/?"), **HTMX).status_code == 204
    # Hidden behind the cache's back: what the cache keeps still says public.
    Tournament.objects.filter(pk=tournament.pk).update(public=False)
    visits, _ = visit((url, None, "127.0.0.1"), (url, cookie(secrets.token_hex(16)), "1.2.3.4"))
    assert [one.status for one in visits] == [404, 404]


@override_settings(**SHORT, LIVE_STREAMS_PER_ADDRESS=2)
def test_past_its_streams_an_address_is_told_to_poll_with_429(client, event, settings):
    tournament, _, _ = event
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 0}
    url = events_url(poll_url(client, tournament))
    venue = "203.0.113.9"
    forged = {"x-forwarded-for": "198.51.100.1"}  # no proxy in front: proves nothing

    visits, _ = visit(
        (url, None, venue),
        (url, cookie(secrets.token_hex(16)), venue),
        (url, forged, venue),
        (url, None, "198.51.100.2"),
    )
    assert [one.status for one in visits] == [200, 200, 429, 200]
    refused = visits[2]
    assert refused.headers["retry-after"] == "60"
    assert refused.sent[1]["body"] == b""


@override_settings(**SHORT, LIVE_FEEDS_PER_PROCESS=1)
def test_past_its_feeds_a_process_answers_503_and_streams_still_join_the_feeds_it_has(
    client, event
):
    tournament, _, _ = event
    url = events_url(poll_url(client, tournament))
    other_query = url.replace("round=&", "round=&all=1&")
    visits, _ = visit(
        (url, None, "127.0.0.1"), (other_query, None, "127.0.0.2"), (url, None, "127.0.0.3")
    )
    assert [one.status for one in visits] == [200, 503, 200]
    assert visits[1].headers["retry-after"] == "30"


def test_a_refused_stream_through_django_says_when_to_try_again(client, event, settings):
    from tests.tournaments.test_stream import receive

    tournament, _, _ = event
    settings.LIVE_STREAMS_PER_ADDRESS = 0
    response, chunks = receive(events_url(poll_url(client, tournament)))
    assert (response.status_code, response["Retry-After"], chunks) == (429, "60", [])


# --- database connections under a real server (PostgreSQL) -----------------------------


@pytest.fixture
def uvicorn_server(settings):
    """capicu's ASGI application under uvicorn in this process, on a free port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            stream_edge.bare(get_asgi_application()),  # as config.asgi serves it
            host="127.0.0.1",
            port=port,
            log_level="warning",
            lifespan="off",
            timeout_graceful_shutdown=1,
        )
    )
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield port
    server.should_exit = True
    thread.join(10)


def open_stream(port: int, path: str, session: str | None) -> socket.socket:
    """A raw HTTP stream, read until its first event (the reconnection delay) came."""
    held = socket.create_connection(("127.0.0.1", port), timeout=10)
    sent = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    if session is not None:
        sent += f"Cookie: {django_settings.SESSION_COOKIE_NAME}={session}\r\n"
    held.sendall((sent + "\r\n").encode())
    got = b""
    while b"retry:" not in got:
        chunk = held.recv(65536)
        assert chunk, got
        got += chunk
    assert got.startswith(b"HTTP/1.1 200"), got
    return held


def other_connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


@pytest.mark.postgres
@override_settings(LIVE_STREAM_TICK=0.2, LIVE_STREAM_HEARTBEAT=1, LIVE_STREAM_SECONDS=60)
def test_streams_with_made_up_cookies_hold_no_database_connection_each(
    client, event, organizer, uvicorn_server
):
    tournament, _, _ = event
    path = events_url(poll_url(client, tournament))
    before = other_connections()
    made_up = [open_stream(uvicorn_server, path, secrets.token_hex(16)) for _ in range(30)]
    signed_in = [open_stream(uvicorn_server, path, session_of(organizer)) for _ in range(3)]
    signed_out = [open_stream(uvicorn_server, path, None) for _ in range(3)]
    time.sleep(1)  # several ticks of the feeds
    held = other_connections()
    for one in made_up + signed_in + signed_out:
        one.close()
    # 36 streams open: at most the door's and the feeds' own connection, where a stream
    # served through Django's request thread held one each.
    assert held - before <= 2, (before, held)
    deadline = time.monotonic() + 10
    while stream._feeds and time.monotonic() < deadline:
        time.sleep(0.05)


@override_settings(LIVE_STREAMS_PER_ADDRESS=100)
def test_a_flood_of_made_up_cookies_and_rounds_is_admitted_in_batches(client, event, monkeypatch):
    tournament, _, _ = event
    base = f"/t/{tournament.slug}/events/?stage=&round="
    reads = []
    real = stream._Event.read

    def counted(slug):
        reads.append(slug)
        return real(slug)

    monkeypatch.setattr(stream._Event, "read", staticmethod(counted))
    flood = [(f"{base}{100 + n}", cookie(secrets.token_hex(16)), "127.0.0.1") for n in range(40)]
    visits, _ = visit(*flood)
    assert {one.status for one in visits} == {404}
    # The event was read once a batch, not once a stream.
    assert len(reads) < 10, len(reads)


@override_settings(LIVE_STREAM_TICK=0.05, LIVE_STREAM_HEARTBEAT=0.2, LIVE_STREAM_SECONDS=30)
def test_the_staff_view_ends_when_its_viewer_is_no_longer_staff(
    client, event, organizer, monkeypatch
):
    tournament, _, _ = event
    monkeypatch.setattr(answers, "POLL_SECONDS", 0.1)
    url = events_url(poll_url(client, tournament))
    session = session_of(organizer)
    status, _, chunks, _ = serve(
        url,
        headers=cookie(session),
        during=lambda: Staff.objects.filter(tournament=tournament, user=organizer).delete(),
    )
    # Long before its 30 s: the stream ends, and the page opens the next one as it now is.
    assert status == 200
    assert parse([chunk.decode() for chunk in chunks])[-1][0] == "end"

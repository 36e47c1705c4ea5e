"""A signed-out visitor's stream served straight from the ASGI application, without
Django's middleware: the same events as through Django, and every request that is not a
plain one handed to Django."""

import asyncio
import gzip

import pytest
from django.test import override_settings

from tests.tournaments import test_live
from tests.tournaments.test_live import bare, one_hand, poll_url, tables
from tests.tournaments.test_stream import SHORT, apart, events_url, parse
from tournaments import stream
from tournaments.services import update_tournament

organizer, event, at_once = test_live.organizer, test_live.event, test_live.at_once

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def no_feeds_left():
    yield
    assert not stream._feeds


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
    application = stream.bare(django)

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

        async def send(message):
            sent.append(message)
            chunks = [m for m in sent if m["type"] == "http.response.body" and m["body"]]
            if leave_after is not None and len(chunks) >= leave_after:
                gone.set()

        serving = asyncio.create_task(application(scope_of(url, method, headers), receive, send))
        if during:
            await asyncio.sleep(0.2)
            await asyncio.to_thread(during)
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
        {"headers": {"cookie": "sessionid=abc"}},  # may be signed in: Django decides
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

"""The stream edge answers as Django's full stack would: the same requests sent to both
get the same status, the headers that matter, redirects, host refusals, language and
refusals; and a middleware the edge does not account for makes it step aside."""

import asyncio
import re
import zlib

import pytest
from django.conf import settings as django_settings
from django.contrib.sessions.backends.db import SessionStore
from django.core.asgi import get_asgi_application
from django.test import override_settings

from accounts.views import SESSION_KEY as LANGUAGE_KEY
from tests.tournaments import test_live
from tests.tournaments.test_live import bare, poll_url
from tests.tournaments.test_stream import SHORT, apart, events_url, parse
from tests.tournaments.test_stream_bare import Django, cookie, scope_of, session_of
from tournaments import stream, stream_edge
from tournaments.models import Tournament

organizer, event, at_once = test_live.organizer, test_live.event, test_live.at_once

pytestmark = pytest.mark.django_db(transaction=True)

WHITENOISE = "whitenoise.middleware.WhiteNoiseMiddleware"

# The headers that say what a browser or a proxy does with the answer.
MATTER = (
    "content-type",
    "cache-control",
    "content-encoding",
    "content-language",
    "x-accel-buffering",
    "x-content-type-options",
    "referrer-policy",
    "cross-origin-opener-policy",
    "x-frame-options",
    "content-security-policy",
    "content-security-policy-report-only",
    "strict-transport-security",
    "retry-after",
    "location",
    "x-request-id",
)


@pytest.fixture(autouse=True)
def no_feeds_left():
    yield
    assert not stream._feeds
    assert not stream._streams_at


def answer_of(application, url: str, headers: dict, address: str = "127.0.0.1"):
    """``application``'s answer to a GET of ``url``: (status, headers by name, the first
    event's kind and data if it streams). The client leaves once the first event came."""

    async def main():
        sent, gone = [], asyncio.Event()
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
            if b"event: " in text(sent) or not message.get("more_body", False):
                gone.set()

        scope = scope_of(url, "GET", headers)
        scope["client"] = (address, 40000)
        await asyncio.wait_for(application(scope, receive, send), 10)
        return sent

    def text(sent) -> bytes:
        body = b"".join(m.get("body", b"") for m in sent[1:])
        if (b"content-encoding", b"gzip") in [(n.lower(), v) for n, v in sent[0]["headers"]]:
            return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(body)
        return body

    sent = apart(asyncio.run, main())
    start = sent[0]
    found: dict[str, str] = {}
    for name, value in start["headers"]:
        name = name.decode().lower()
        found[name] = f"{found[name]}, {value.decode()}" if name in found else value.decode()
    events = []
    if found.get("content-type") == "text/event-stream":
        events = [event for event in parse([text(sent).decode()]) if event[0] == "live"]
    return start["status"], found, events[:1]


def both(url: str, headers: dict | None = None, address: str = "127.0.0.1"):
    """The same request answered by Django's full stack and by the edge in front of it: the
    two answers, and the paths the edge handed to Django."""
    headers = {"x-request-id": "edge-compared-0001", **(headers or {})}
    django = get_asgi_application()
    handed = []

    async def counted(scope, receive, send):
        handed.append(scope["path"])
        await django(scope, receive, send)

    through_django = answer_of(django, url, headers, address)
    through_edge = answer_of(stream_edge.bare(counted), url, headers, address)
    return through_django, through_edge, handed


def assert_same(through_django, through_edge):
    (status, headers, events), (edge_status, edge_headers, edge_events) = (
        through_django,
        through_edge,
    )
    assert edge_status == status
    compared = [name for name in MATTER if name != "content-type" or status == 200]
    assert {name: edge_headers.get(name) for name in compared} == {
        name: headers.get(name) for name in compared
    }
    if status == 200:
        assert "Accept-Encoding" in headers["vary"] and "Accept-Encoding" in edge_headers["vary"]
    assert edge_events == events


def old_tags_url(client, tournament) -> str:
    """A stream opened with no tags: its first event is every part, in its language."""
    return events_url(bare(poll_url(client, tournament)))


@override_settings(**SHORT)
@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"accept-encoding": "gzip"},
        {"accept-language": "es;q=0.9"},
        {"accept-language": "es", "cookie": f"{django_settings.LANGUAGE_COOKIE_NAME}=en"},
        {"cookie": f"{django_settings.LANGUAGE_COOKIE_NAME}=es"},
        {"x-forwarded-for": "198.51.100.7"},
    ],
)
def test_a_visitors_stream_is_answered_by_the_edge_as_by_django(client, event, headers):
    tournament, _, _ = event
    through_django, through_edge, handed = both(old_tags_url(client, tournament), headers)
    assert handed == []  # the edge served it
    assert through_django[0] == 200
    assert_same(through_django, through_edge)
    assert through_django[2] and 'id="tables"' in through_django[2][0][1]


@override_settings(**SHORT)
def test_the_language_the_page_gets_is_the_language_of_both(client, event):
    tournament, _, _ = event
    url = old_tags_url(client, tournament)
    spanish = both(url, {"accept-language": "es"})
    english = both(url, {"accept-language": "en"})
    assert spanish[0][1]["content-language"] == "es" == spanish[1][1]["content-language"]
    assert english[0][1]["content-language"] == "en" == english[1][1]["content-language"]
    assert spanish[1][2] != english[1][2]  # the parts themselves in each language


@override_settings(**SHORT)
def test_a_signed_in_viewers_saved_language_and_staff_view_are_the_edges_too(
    client, event, organizer
):
    tournament, _, _ = event
    url = old_tags_url(client, tournament)
    session = session_of(organizer)
    store = SessionStore(session)
    store[LANGUAGE_KEY] = "es"
    store.save()
    through_django, through_edge, handed = both(url, {**cookie(session), "accept-language": "en"})
    assert handed == []
    assert through_django[0] == 200 and through_django[1]["content-language"] == "es"
    assert_same(through_django, through_edge)


@pytest.mark.parametrize(
    "change",
    [
        {"headers": {"host": "evil.example"}},  # a host Django refuses: 400
        {"settings": {"DISALLOWED_USER_AGENTS": [re.compile("badbot")]}, "agent": "badbot/1"},
        {"query": "&x=%00"},  # a NUL: 400
        {"settings": {"SECURE_SSL_REDIRECT": True}},  # redirected to https
        {"settings": {"PREPEND_WWW": True}},  # redirected to www
    ],
)
def test_what_django_refuses_or_redirects_is_refused_or_redirected_alike(client, event, change):
    tournament, _, _ = event
    url = events_url(poll_url(client, tournament)) + change.get("query", "")
    headers = dict(change.get("headers", {}))
    if "agent" in change:
        headers["user-agent"] = change["agent"]
    with override_settings(**SHORT, **change.get("settings", {})):
        through_django, through_edge, handed = both(url, headers)
    assert through_django[0] in (301, 400, 403)
    assert_same(through_django, through_edge)
    assert handed == [url.split("?")[0]]  # Django's own answer


@override_settings(**SHORT)
def test_a_secure_stream_has_the_same_security_headers(client, event):
    tournament, _, _ = event
    url = old_tags_url(client, tournament)
    with override_settings(
        SECURE_SSL_REDIRECT=True,
        SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
        SECURE_HSTS_SECONDS=3600,
        SECURE_HSTS_INCLUDE_SUBDOMAINS=True,
        SECURE_REFERRER_POLICY="same-origin, strict-origin",
        X_FRAME_OPTIONS="sameorigin",
    ):
        through_django, through_edge, handed = both(url, {"x-forwarded-proto": "https"})
    assert handed == []
    assert through_django[0] == 200
    assert through_django[1]["strict-transport-security"].startswith("max-age=3600")
    assert through_django[1]["x-frame-options"] == "SAMEORIGIN"
    assert_same(through_django, through_edge)


@override_settings(**SHORT)
def test_refusals_are_the_same_status_and_headers(client, event, settings):
    tournament, _, _ = event
    url = events_url(poll_url(client, tournament))
    answers = {}
    answers["odd"] = both(f"/t/{tournament.slug}/events/?stage=x&round=1")
    answers["unknown"] = both("/t/no-such-thing/events/?stage=&round=")
    answers["no round"] = both(f"/t/{tournament.slug}/events/?stage=&round=99")
    settings.LIVE_STREAMS_PER_ADDRESS = 0
    answers["address"] = both(url)
    settings.LIVE_STREAMS_PER_ADDRESS = 50
    settings.LIVE_FEEDS_PER_PROCESS = 0
    answers["feeds"] = both(url)
    settings.LIVE_FEEDS_PER_PROCESS = 200
    Tournament.objects.filter(pk=tournament.pk).update(public=False)
    answers["hidden"] = both(url)
    statuses = {name: got[0][0] for name, got in answers.items()}
    assert statuses == {
        "odd": 400,
        "unknown": 404,
        "no round": 404,
        "address": 429,
        "feeds": 503,
        "hidden": 404,
    }
    for through_django, through_edge, handed in answers.values():
        assert handed == []
        assert_same(through_django, through_edge)


def test_every_middleware_is_accounted_for_by_the_edge():
    """A middleware added to settings.MIDDLEWARE fails here until the edge reproduces it or
    says why it does not apply to a stream (``stream_edge.ACCOUNTED``)."""
    listed = set(django_settings.MIDDLEWARE) | {WHITENOISE}  # production adds WhiteNoise
    assert set(stream_edge.ACCOUNTED) == listed
    assert stream_edge.unaccounted() == []


@override_settings(**SHORT)
def test_a_middleware_the_edge_does_not_account_for_sends_every_stream_through_django(
    client, event, settings
):
    tournament, _, _ = event
    url = events_url(poll_url(client, tournament))
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "django.middleware.gzip.GZipMiddleware"]
    assert stream_edge.unaccounted() == ["django.middleware.gzip.GZipMiddleware"]
    django = Django()
    status = answer_of(stream_edge.bare(django), url, {})[0]
    assert (status, django.paths) == (418, [url.split("?")[0]])

"""The tournament page takes its live parts from a stream where an ASGI server serves one:
a hand recorded elsewhere appears without the page polling."""

import asyncio
import socket
import threading
import time

import pytest
import uvicorn
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.asgi import get_asgi_application

from tests.tournaments import test_live
from tests.tournaments.test_live import one_hand, tables
from tournaments import stream_edge
from tournaments.read import live

pytestmark = pytest.mark.django_db(transaction=True)

# The live tests' event: sixteen players at four tables of a published round.
organizer, event = test_live.organizer, test_live.event


@pytest.fixture
def asgi_server(settings, monkeypatch):
    """capicu under uvicorn in this process (the test database, the local cache)."""
    settings.LIVE_STREAM = True
    settings.LIVE_STREAM_TICK = 0.2
    monkeypatch.setattr(live, "TABLES_HOLD", 0)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    django = ASGIStaticFilesHandler(get_asgi_application())
    to_django = []

    async def counted(scope, receive, send):
        to_django.append(scope.get("path"))
        await django(scope, receive, send)

    server = uvicorn.Server(
        uvicorn.Config(
            stream_edge.bare(counted),  # as config.asgi serves it
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
    yield f"http://127.0.0.1:{port}", to_django
    server.should_exit = True
    thread.join(10)


def test_a_hand_recorded_elsewhere_appears_without_a_poll(asgi_server, phone, organizer, event):
    base, to_django = asgi_server
    tournament, _, round_ = event
    asked, encodings = [], []
    phone.on("request", lambda request: asked.append(request.url))
    phone.on(
        "response",
        lambda response: (
            "/events/" in response.url
            and encodings.append(response.headers.get("content-encoding"))
        ),
    )
    phone.goto(f"{base}/t/{tournament.slug}/")
    phone.wait_for_function("() => document.getElementById('live').dataset.events")
    score = phone.locator("#table-3 .score").first
    assert score.inner_text().strip() in ("", "0")
    phone.wait_for_timeout(500)  # the stream is open
    one_hand(tables(round_)[2].game, organizer)
    phone.locator("#table-3 .score", has_text="15").first.wait_for(timeout=8000)
    assert any("/events/" in url for url in asked)
    assert not any("/live/" in url for url in asked)
    # Chromium took the stream gzip-compressed and read each event as it came.
    assert encodings and set(encodings) == {"gzip"}
    # The page went through Django; its stream, a signed-out visitor's, did not.
    assert f"/t/{tournament.slug}/" in to_django
    assert not any("/events/" in path for path in to_django)
    # Past the poll's interval the page still has not polled: the stream holds it.
    phone.wait_for_timeout(6000)
    assert not any("/live/" in url for url in asked)


def test_without_a_stream_the_page_falls_back_to_polling(
    live_server, settings, monkeypatch, phone, organizer, event
):
    settings.LIVE_STREAM = True  # named, but a WSGI server declines it (204)
    monkeypatch.setattr(live, "TABLES_HOLD", 0)
    tournament, _, round_ = event
    asked = []
    phone.on("request", lambda request: asked.append(request.url))
    phone.goto(f"{live_server.url}/t/{tournament.slug}/")
    one_hand(tables(round_)[2].game, organizer)
    phone.locator("#table-3 .score", has_text="15").first.wait_for(timeout=12000)
    assert any("/events/" in url for url in asked)
    assert any("/live/" in url for url in asked)


def test_a_refused_stream_leaves_the_page_polling_until_its_retry_after(
    asgi_server, settings, phone, organizer, event
):
    base, _ = asgi_server
    settings.LIVE_STREAMS_PER_ADDRESS = 0  # this address may hold no stream: 429
    tournament, _, round_ = event
    asked, refused = [], []
    phone.on("request", lambda request: asked.append(request.url))
    phone.on(
        "response",
        lambda response: (
            "/events/" in response.url
            and refused.append((response.status, response.headers.get("retry-after")))
        ),
    )
    phone.goto(f"{base}/t/{tournament.slug}/")
    one_hand(tables(round_)[2].game, organizer)
    phone.locator("#table-3 .score", has_text="15").first.wait_for(timeout=12000)
    assert refused == [(429, "60")]  # asked once, and not again before a minute
    assert any("/live/" in url for url in asked)  # the poll brought the hand

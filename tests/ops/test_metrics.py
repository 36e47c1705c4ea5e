"""The Prometheus endpoint: refused unless the settings allow the scrape, and the product's
own figures counted where they happen."""

import json
import time
from datetime import timedelta

import pytest
from django.http import HttpResponse
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from config import metrics
from scoring.services import record_hand
from tests.factories import UserFactory, cutthroat_round, start_game
from tournaments.models import StandingsState

pytestmark = pytest.mark.django_db

TOKEN = "scrape-" + "t" * 30


def samples(text: str) -> dict[tuple, float]:
    """Every sample of a scrape, keyed by name and its labels."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def scrape(client=None) -> dict[tuple, float]:
    client = client or Client()
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    return samples(response.content.decode())


@pytest.fixture
def token(settings):
    settings.METRICS_TOKEN = TOKEN
    settings.METRICS_ALLOWED_ADDRESSES = []


def test_the_endpoint_is_not_found_until_a_setting_allows_it(settings):
    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_ADDRESSES = "", []
    assert Client().get("/metrics").status_code == 404
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer anything").status_code == 404


def test_a_scrape_without_the_token_is_refused(token):
    assert Client().get("/metrics").status_code == 403
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    assert Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 200


def test_an_allowed_address_scrapes_without_a_token(settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_ADDRESSES = ["10.0.0.5"]
    assert Client(REMOTE_ADDR="10.0.0.5").get("/metrics").status_code == 200
    assert Client(REMOTE_ADDR="10.0.0.6").get("/metrics").status_code == 403


def test_the_allowed_address_is_the_client_behind_the_configured_proxies(settings):
    """With one proxy in front, the address it appends is the one checked: a client
    cannot name an allowed address further left."""
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_ADDRESSES = ["10.0.0.5"]
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    proxy = Client(REMOTE_ADDR="127.0.0.1")
    assert proxy.get("/metrics", HTTP_X_FORWARDED_FOR="10.0.0.5").status_code == 200
    forged = proxy.get("/metrics", HTTP_X_FORWARDED_FOR="10.0.0.5, 198.51.100.9")
    assert forged.status_code == 403


def test_requests_are_counted_and_timed_by_view(token):
    before = scrape()
    Client().get("/")
    Client().get("/")
    after = scrape()
    key = ("capicu_http_requests_total", (("method", "GET"), ("status", "2xx"), ("view", "home")))
    assert after[key] - before.get(key, 0) == 2
    count = ("capicu_http_request_duration_seconds_count", (("view", "home"),))
    assert after[count] - before.get(count, 0) == 2


def test_hands_recorded_are_counted(token, django_capture_on_commit_callbacks):
    referee = UserFactory()
    game = start_game("cutthroat", 4, referee=referee)
    before = scrape().get(("capicu_hands_recorded_total", ()), 0)
    pips = {"A": 8, "B": 15, "C": 22, "D": 12}
    with django_capture_on_commit_callbacks(execute=True):
        record_hand(game, by=referee, number=1, ended="block", pips=pips, lowest_tiles=None)
    assert scrape()[("capicu_hands_recorded_total", ())] - before == 1


def test_live_polls_are_counted_by_whether_the_cache_answered(token):
    before = scrape()
    for mark in ("hit", "hit", "miss"):
        response = HttpResponse()
        response["Server-Timing"] = f"cache;desc={mark}"
        metrics.live_poll(response)
    metrics.live_poll(HttpResponse())  # not a live answer: not counted
    after = scrape()
    for mark, added in (("hit", 2), ("miss", 1)):
        key = ("capicu_live_polls_total", (("cache", mark),))
        assert after[key] - before.get(key, 0) == added


def test_login_lockouts_are_counted(token, settings):
    settings.AXES_FAILURE_LIMIT = 2
    UserFactory(username="ana", password="right-password-1")
    before = scrape().get(("capicu_login_lockouts_total", ()), 0)
    for _ in range(2):
        Client(REMOTE_ADDR="203.0.113.7").post(
            "/accounts/login/", {"username": "ana", "password": "wrong"}
        )
    assert scrape()[("capicu_login_lockouts_total", ())] - before == 1


def test_streams_open_go_up_and_down():
    before = metrics.STREAMS._value.get()
    metrics.stream_opened()
    metrics.stream_opened()
    metrics.stream_closed()
    assert metrics.STREAMS._value.get() - before == 1
    metrics.stream_closed()


def test_the_standings_lag_is_the_oldest_recompute_waiting(token):
    assert scrape()[("capicu_standings_lag_seconds", ())] == 0
    tournament, _, _ = cutthroat_round(UserFactory(), players=8)
    StandingsState.objects.update_or_create(
        tournament=tournament,
        defaults={
            "requested_at": timezone.now() - timedelta(seconds=40),
            "computed_at": timezone.now() - timedelta(seconds=90),
        },
    )
    assert 39 <= scrape()[("capicu_standings_lag_seconds", ())] <= 60


def test_the_oldest_queued_task_is_read_from_its_published_header():
    queued = time.time() - 12
    raw = json.dumps({"body": "", "headers": {"capicu_published_at": queued}}).encode()
    assert metrics.published_at(raw) == pytest.approx(queued)
    assert metrics.published_at(b"not json") is None
    assert metrics.published_at(json.dumps({"headers": {}}).encode()) is None

"""What an operator watches on the day, for Prometheus to scrape at ``/metrics``.

Counted as they happen, in the process that saw them: requests and their latency by
view (``config.middleware.observe``), hands recorded, live polls by whether the cache
alone answered, login lock-outs, streams open. Read at scrape time, from the shared
state: how long the stalest standings have waited for their recompute, and the tasks
queued in the broker with the age of the oldest.

Under gunicorn every worker is a process of its own: with ``PROMETHEUS_MULTIPROC_DIR``
set (an empty folder, the same for every process of the machine, emptied at start) the
counts are kept in files there and a scrape adds them up, whichever worker answers it.
Without it each process counts for itself (development, tests).

The endpoint answers only where ``METRICS_TOKEN`` (sent as ``Authorization: Bearer``) or
``METRICS_ALLOWED_ADDRESSES`` allows it: without either it is not found (404), and a
scrape they do not allow is refused (403).
"""

import hmac
import json
import os
import time

from axes.signals import user_locked_out
from django.conf import settings
from django.db.models import F, Min
from django.http import Http404, HttpResponse, HttpResponseForbidden
from django.utils import timezone
from django.views.decorators.cache import never_cache
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily

from accounts.addresses import client_address
from config.celery import PUBLISHED_HEADER
from scoring.signals import game_changed
from tournaments.models import StandingsState

MULTIPROCESS = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))

# The counters this process adds to; in multiprocess mode their values live in files.
REGISTRY = CollectorRegistry(auto_describe=True)

REQUESTS = Counter(
    "capicu_http_requests_total",
    "Requests answered, by view (URL name), method and status class.",
    ["view", "method", "status"],
    registry=REGISTRY,
)
LATENCY = Histogram(
    "capicu_http_request_duration_seconds",
    "Time from a request reaching Django to its answer, by view (URL name).",
    ["view"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
    registry=REGISTRY,
)
HANDS = Counter(
    "capicu_hands_recorded_total",
    "Hands recorded by referees (rate() x 60: hands per minute).",
    registry=REGISTRY,
)
LIVE_POLLS = Counter(
    "capicu_live_polls_total",
    "Live polls answered, by whether the cache alone answered (hit) or the database (miss).",
    ["cache"],
    registry=REGISTRY,
)
LOCKOUTS = Counter(
    "capicu_login_lockouts_total",
    "Logins refused by the lock-out after too many wrong passwords.",
    registry=REGISTRY,
)
STREAMS = Gauge(
    "capicu_streams_open",
    "Live streams (Server-Sent Events) open now.",
    registry=REGISTRY,
    multiprocess_mode="livesum",
)

# Celery's Redis transport keeps each queue as a list, one per priority step.
QUEUE = "celery"
PRIORITY_SEPARATOR = "\x06\x16"


def hand_recorded(sender=None, change: str = "", **kwargs) -> None:
    if change == "hand_recorded":
        HANDS.inc()


def locked_out(sender=None, **kwargs) -> None:
    LOCKOUTS.inc()


def live_poll(response) -> None:
    """Counts a live answer by the ``Server-Timing`` mark ``tournaments.read.live`` puts on it."""
    timing = response.get("Server-Timing", "")
    if timing.startswith("cache;desc="):
        LIVE_POLLS.labels(cache=timing.removeprefix("cache;desc=")).inc()


def stream_opened() -> None:
    STREAMS.inc()


def stream_closed() -> None:
    STREAMS.dec()


def connect() -> None:
    """Listen to the signals that carry the product's figures (once per process)."""
    game_changed.connect(hand_recorded, dispatch_uid="capicu-metrics-hands")
    user_locked_out.connect(locked_out, dispatch_uid="capicu-metrics-lockouts")


class SharedState:
    """The figures read when scraped: the standings' recompute lag and the broker's queue."""

    def collect(self):
        yield self.standings_lag()
        yield from self.queue()

    def standings_lag(self):
        lag = GaugeMetricFamily(
            "capicu_standings_lag_seconds",
            "How long the stalest standings have waited for their recompute (0: none waits).",
        )
        oldest = (
            StandingsState.objects.filter(requested_at__isnull=False)
            .exclude(computed_at__gte=F("requested_at"))
            .aggregate(oldest=Min("requested_at"))["oldest"]
        )
        seconds = (timezone.now() - oldest).total_seconds() if oldest else 0.0
        lag.add_metric([], max(0.0, seconds))
        return lag

    def queue(self):
        queued = GaugeMetricFamily(
            "capicu_tasks_queued", "Tasks waiting in the broker for a worker."
        )
        age = GaugeMetricFamily(
            "capicu_tasks_oldest_age_seconds",
            "How long the oldest task waiting in the broker has waited (0: none waits).",
        )
        count, oldest = broker_queue()
        queued.add_metric([], count)
        age.add_metric([], max(0.0, time.time() - oldest) if oldest else 0.0)
        yield queued
        yield age


def broker_queue() -> tuple[int, float | None]:
    """Tasks waiting in the Redis broker and when the oldest was published (None: no
    broker, nothing waiting, or Redis away)."""
    if not settings.REDIS_URL:
        return 0, None
    import redis

    client = redis.Redis.from_url(
        settings.REDIS_URL,
        socket_connect_timeout=settings.REDIS_CONNECT_TIMEOUT,
        socket_timeout=settings.REDIS_SOCKET_TIMEOUT,
    )
    keys = [QUEUE] + [f"{QUEUE}{PRIORITY_SEPARATOR}{step}" for step in (3, 6, 9)]
    count, oldest = 0, None
    try:
        for key in keys:
            count += client.llen(key)
            # kombu pushes on the left and takes from the right: the oldest is last.
            raw = client.lindex(key, -1)
            published = published_at(raw) if raw else None
            if published is not None:
                oldest = published if oldest is None else min(oldest, published)
    except redis.RedisError:
        return 0, None
    finally:
        client.close()
    return count, oldest


def published_at(raw: bytes) -> float | None:
    try:
        value = json.loads(raw)["headers"][PUBLISHED_HEADER]
        return float(value)
    except (ValueError, KeyError, TypeError):
        return None


STATE = CollectorRegistry(auto_describe=False)
STATE.register(SharedState())


def allowed(request) -> bool:
    """Whether this scrape is one the settings allow; Http404 when none is configured."""
    token, addresses = settings.METRICS_TOKEN, settings.METRICS_ALLOWED_ADDRESSES
    if not token and not addresses:
        raise Http404
    if token:
        sent = request.headers.get("Authorization", "")
        if hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
            return True
    return bool(addresses) and client_address(request) in addresses


@never_cache
def metrics(request):
    """The figures in Prometheus's text format, for the scrapes the settings allow."""
    if not allowed(request):
        return HttpResponseForbidden("", content_type="text/plain")
    if MULTIPROCESS:
        counted = CollectorRegistry()
        multiprocess.MultiProcessCollector(counted)
    else:
        counted = REGISTRY
    return HttpResponse(
        generate_latest(counted) + generate_latest(STATE), content_type=CONTENT_TYPE_LATEST
    )

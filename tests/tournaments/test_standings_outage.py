"""Standings survive a broker outage and a worker killed mid-recompute (CI's broker run).

Each test runs its own Redis server and its own Celery worker, so stopping the broker or
killing a worker touches nothing else: the test process publishes to that Redis too.
"""

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from jobs import runner
from scoring.services import record_hand
from tests.factories import UserFactory, bulk_event, event_referee
from tests.workers import start_worker, stop_worker, worker_env
from tournaments.models import Match, StandingsState
from tournaments.read import live
from tournaments.services import (
    add_stage,
    assign_referee,
    create_tournament,
    generate_round,
    publish_round,
    register_entrants,
)

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.broker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Broker:
    """A throwaway Redis server that can be stopped and started again on its port."""

    def __init__(self):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            [
                "redis-server",
                *("--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def wait_for(condition, seconds: float, step: float = 0.1) -> float | None:
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if condition():
            return time.monotonic() - started
        time.sleep(step)
    return None


@pytest.fixture
def broker():
    from config.celery import app

    server = Broker()
    server.start()
    saved = app.conf.broker_url
    app.conf.broker_url = server.url
    app._pool = None
    app.amqp._producer_pool = None
    yield server
    app.conf.broker_url = saved
    app._pool = None
    app.amqp._producer_pool = None
    if server.process.poll() is None:
        server.stop()


@pytest.fixture
def worker(broker, tmp_path):
    """A real Celery worker on the throwaway broker and the test database."""
    env = worker_env(connection.settings_dict["NAME"], REDIS_URL=broker.url)
    process = start_worker(env, tmp_path / "worker.log", f"outage-{broker.port}")
    assert wait_for(lambda: "ready." in process.log_path.read_text(), 60), (
        process.log_path.read_text()
    )
    yield process
    stop_worker(process)


def current(tournament_id: int) -> bool:
    state = StandingsState.objects.filter(tournament_id=tournament_id).first()
    return bool(state and state.computed_at and not state.stale and not state.queued)


def small_event():
    organizer = UserFactory()
    tournament = create_tournament(
        by=organizer, name="Corte de luz", ruleset_key="cutthroat", table_size=2,
        include_live=True,
    )  # fmt: skip
    register_entrants(tournament, by=organizer, text="Ana\nBeto\nCruz\nDalia")
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    round_ = generate_round(stage, by=organizer)
    publish_round(round_, by=organizer)
    return tournament, organizer, round_


def test_hands_are_kept_while_the_broker_is_down_and_standings_catch_up(broker, worker, client):
    tournament, organizer, round_ = small_event()
    assert wait_for(lambda: current(tournament.pk), 20), "standings never computed"
    match = Match.objects.filter(round=round_).order_by("table_number").first()

    broker.stop()
    started = time.monotonic()
    record_hand(
        match.game, by=organizer, number=1, ended="domino", domino_by="A",
        pips={"A": 0, "B": 35},
    )  # fmt: skip
    print(f"hand recorded with the broker down in {time.monotonic() - started:.2f} s")
    match.game.refresh_from_db()
    assert match.game.hand_count == 1  # the hand is saved all the same
    body = client.get(f"/api/v1/tournaments/{tournament.slug}/standings/").json()
    assert body["stale"] is True

    broker.start()
    assert runner.sweep() == 1  # what beat runs every 30 s
    caught_up = wait_for(lambda: current(tournament.pk), 30)
    assert caught_up is not None, worker.log_path.read_text()[-3000:]
    print(f"standings current {caught_up:.2f} s after the sweep")
    # The worker forgets the kept standings in its cache, which is the throwaway broker's
    # Redis here; where web and worker share one Redis, as they do in production, that
    # is this cache too. Do here what the worker's word does there.
    live.forget_standings_of(tournament.pk)
    body = client.get(f"/api/v1/tournaments/{tournament.slug}/standings/").json()
    assert body["stale"] is False
    assert max(row["all_metrics"]["points_for"] for row in body["rows"]) == 35


@pytest.fixture
def everything_on(broker, settings):
    """The cache and the result backend on the throwaway Redis too, as in production."""
    from config.celery import app

    settings.CACHES = {
        "default": {**settings.CACHES["default"], "LOCATION": broker.url}
    }  # fmt: skip
    saved = app.conf.result_backend
    app.conf.result_backend = broker.url
    forget_backend(app)
    yield broker
    app.conf.result_backend = saved
    forget_backend(app)


def forget_backend(app) -> None:
    """Make the app build its result backend again from the current settings."""
    app._backend_cache = None
    app._local.__dict__.pop("backend", None)


def test_a_hand_posted_while_redis_is_stopped_is_answered_within_a_second(everything_on, worker):
    broker = everything_on
    tournament, organizer, round_ = small_event()
    assert wait_for(lambda: current(tournament.pk), 20), "standings never computed"
    match = Match.objects.filter(round=round_).order_by("table_number").first()
    referee = event_referee(tournament)
    assign_referee(match, referee, by=organizer)
    api = APIClient()
    api.force_authenticate(referee)

    broker.stop()
    started = time.monotonic()
    response = api.post(
        f"/api/v1/games/{match.game_id}/hands/",
        {"number": 1, "ended": "domino", "domino_by": "A", "pips": {"A": 0, "B": 30}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="table-1-hand-1",
    )
    waited = time.monotonic() - started
    print(f"hand answered with Redis stopped in {waited:.3f} s")
    assert response.status_code == 201, response.content
    assert waited < 1
    match.game.refresh_from_db()
    assert match.game.hand_count == 1
    started = time.monotonic()
    body = APIClient().get(f"/api/v1/tournaments/{tournament.slug}/standings/").json()
    assert time.monotonic() - started < 1  # the anonymous throttle's cache is down too
    assert body["stale"] is True
    repeat = api.post(
        f"/api/v1/games/{match.game_id}/hands/",
        {"number": 1, "ended": "domino", "domino_by": "A", "pips": {"A": 0, "B": 30}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="table-1-hand-1",
    )
    assert repeat.status_code == 201
    match.game.refresh_from_db()
    assert match.game.hand_count == 1  # the phone's retry stored nothing twice

    broker.start()
    assert runner.sweep() == 1
    assert wait_for(lambda: current(tournament.pk), 30), worker.log_path.read_text()[-3000:]
    body = APIClient().get(f"/api/v1/tournaments/{tournament.slug}/standings/").json()
    assert body["stale"] is False
    assert max(row["all_metrics"]["points_for"] for row in body["rows"]) == 30


def pool_children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(line) for line in found.stdout.split()]


def test_a_worker_killed_during_a_recompute_still_converges(broker, worker):
    tournament, _ = bulk_event(1024, 8)  # a recompute long enough to be caught in the act
    StandingsState.objects.filter(tournament=tournament).delete()
    log_path = worker.log_path
    task = f"jobs.run[standings:{tournament.pk}:"  # the task's id names its job
    before = log_path.read_text().count(task)
    runner.request("standings", tournament.pk)
    assert wait_for(lambda: log_path.read_text().count(task) > before, 20, 0.01)
    children = pool_children(worker.pid)
    assert children, "the worker has no pool process"
    for child in children:
        os.kill(child, signal.SIGKILL)  # the process running the task dies mid-recompute
    killed_at = timezone.now()
    converged = wait_for(lambda: current(tournament.pk), 60)
    log = log_path.read_text()
    assert converged is not None, log[-3000:]
    assert "WorkerLostError" in log or "exited prematurely" in log, log[-3000:]
    state = StandingsState.objects.get(tournament=tournament)
    assert state.computed_at > killed_at  # computed again after the kill
    print(f"standings converged {converged:.2f} s after the worker process was killed")

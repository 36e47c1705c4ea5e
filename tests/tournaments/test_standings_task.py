"""Standings recomputes: coalesced, stale while the broker is away, served with ETags."""

import random
from io import StringIO
from unittest import mock

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from jobs import runner
from scoring.services import record_hand
from tests.factories import UserFactory, event_referee
from tournaments.models import StandingsState
from tournaments.read.selectors import standing_lines
from tournaments.services import (
    add_stage,
    assign_referee,
    create_tournament,
    generate_round,
    publish_round,
    register_entrants,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def event():
    organizer = UserFactory()
    tournament = create_tournament(by=organizer, name="Copa", ruleset_key="cutthroat", table_size=4)
    register_entrants(tournament, by=organizer, text="\n".join(f"P{i}" for i in range(8)))
    stage = add_stage(
        tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": 3}
    )
    round_ = generate_round(stage, by=organizer)
    publish_round(round_, by=organizer)
    referee = event_referee(tournament)
    for match in round_.matches.all():
        assign_referee(match, referee, by=organizer)
    return tournament, round_, referee


def test_a_burst_of_triggers_queues_one_recompute(event):
    tournament, _, _ = event
    with mock.patch.object(runner.run_job, "apply_async") as delay:
        for _ in range(200):
            runner.request("standings", tournament.pk)
    assert delay.call_count == 1
    state = StandingsState.objects.get(tournament=tournament)
    assert state.queued
    assert state.dirty
    assert state.stale
    runs = runner.run_job.apply(args=["standings", tournament.pk]).get()
    assert runs == 1
    state.refresh_from_db()
    assert not state.queued
    assert not state.stale


def test_a_change_during_a_recompute_runs_it_once_more(event):
    tournament, _, _ = event
    from tournaments.read import standings_store

    real = standings_store.rebuild_standings
    calls = []

    def rebuild_and_meanwhile_trigger(tournament_id):
        calls.append(tournament_id)
        if len(calls) == 1:
            runner.request("standings", tournament_id)  # a hand arrives mid-recompute
        return real(tournament_id)

    with mock.patch.object(runner.run_job, "apply_async"):
        runner.request("standings", tournament.pk)
        with mock.patch.object(standings_store, "rebuild_standings", rebuild_and_meanwhile_trigger):
            runs = runner.run_job.apply(args=["standings", tournament.pk]).get()
    assert runs == 2


def test_an_unreachable_broker_leaves_the_standings_stale_for_the_sweep(event):
    tournament, _, _ = event
    with mock.patch.object(
        runner.run_job, "apply_async", side_effect=ConnectionError("broker down")
    ):
        assert runner.request("standings", tournament.pk) is False
    state = StandingsState.objects.get(tournament=tournament)
    assert state.stale
    assert not state.queued
    queued = runner.sweep_jobs.apply().get()  # eager here: the sweep recomputes
    assert queued == 1
    state.refresh_from_db()
    assert not state.stale


def test_standings_endpoint_serves_the_snapshot_with_an_etag(event):
    tournament, round_, referee = event
    rng = random.Random(1)
    for match in round_.matches.all():
        game = match.game
        number = 0
        while True:
            number += 1
            out = rng.choice("ABCD")
            pips = {s: (0 if s == out else rng.randint(10, 40)) for s in "ABCD"}
            record_hand(game, by=referee, number=number, ended="domino", domino_by=out, pips=pips)
            game.refresh_from_db()
            if game.status == "finished":
                break
    out = StringIO()
    call_command("recompute_standings", tournament.slug, stdout=out)
    assert "8 standing row(s)" in out.getvalue()
    client = APIClient()
    response = client.get(f"/api/v1/tournaments/{tournament.slug}/standings/")
    assert response.status_code == 200
    body = response.json()
    assert len(body["rows"]) == 8
    assert body["stale"] is False
    assert list(body["rows"][0]["metrics"]) == tournament.tiebreak_order
    assert body["rows"][0]["rank"] == 1
    winners = sum(1 for row in body["rows"] if row["metrics"]["match_points"] == 1)
    assert winners == 2
    again = client.get(
        f"/api/v1/tournaments/{tournament.slug}/standings/", HTTP_IF_NONE_MATCH=response["ETag"]
    )
    assert again.status_code == 304
    assert standing_lines(tournament)[1] == 8


def test_recompute_command_refuses_an_unknown_slug():
    from django.core.management import CommandError

    with pytest.raises(CommandError):
        call_command("recompute_standings", "nope")


def test_tournament_games_are_followed_and_lone_games_cost_no_lookup(
    event, django_capture_on_commit_callbacks
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.factories import start_game

    _, round_, referee = event
    pips = {"A": 8, "B": 15, "C": 22, "D": 12}
    assert all(match.game.followed for match in round_.matches.select_related("game"))
    lone = start_game("cutthroat", 4, referee=referee)
    assert not lone.followed
    with (
        CaptureQueriesContext(connection) as queries,
        django_capture_on_commit_callbacks(execute=True),
    ):
        record_hand(lone, by=referee, number=1, ended="block", pips=pips)
    assert not [q for q in queries if "tournaments_" in q["sql"]]
    game = round_.matches.first().game
    with (
        CaptureQueriesContext(connection) as queries,
        django_capture_on_commit_callbacks(execute=True),
    ):
        record_hand(game, by=referee, number=1, ended="block", pips=pips)
    assert [q for q in queries if "tournaments_match" in q["sql"]]

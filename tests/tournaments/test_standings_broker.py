"""Standings through a real Redis broker and a real Celery worker (CI's second run)."""

import time

import pytest
from rest_framework.test import APIClient

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

pytestmark = [pytest.mark.broker, pytest.mark.django_db(transaction=True)]


def test_a_hand_posted_through_the_api_shows_in_the_standings_within_two_seconds(
    celery_worker_process,
):
    organizer = UserFactory()
    tournament = create_tournament(
        by=organizer, name="En vivo", ruleset_key="cutthroat", table_size=2, include_live=True
    )
    register_entrants(tournament, by=organizer, text="Ana\nBeto\nCruz\nDalia")
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    round_ = generate_round(stage, by=organizer)
    publish_round(round_, by=organizer)
    referee = event_referee(tournament)
    match = round_.matches.order_by("table_number").first()
    assign_referee(match, referee, by=organizer)
    client = APIClient()
    client.force_authenticate(referee)
    posted = time.monotonic()
    response = client.post(
        f"/api/v1/games/{match.game_id}/hands/",
        {"number": 1, "ended": "domino", "domino_by": "A", "pips": {"A": 0, "B": 40}},
        format="json",
    )
    assert response.status_code == 201
    first = match.seats.get(position=0).entrant_id
    url = f"/api/v1/tournaments/{tournament.slug}/standings/"
    seen = None
    while time.monotonic() - posted < 10:
        body = APIClient().get(url).json()
        rows = {row["entrant"]["id"]: row for row in body["rows"]}
        if rows.get(first) and rows[first]["all_metrics"]["points_for"] == 40 and not body["stale"]:
            seen = time.monotonic() - posted
            break
        time.sleep(0.05)
    assert seen is not None, "the standings never showed the hand"
    print(f"hand visible in the standings after {seen:.2f} s")
    assert seen < 2
    assert standing_lines(tournament)[1] == 4
    assert StandingsState.objects.get(tournament=tournament).runs >= 1

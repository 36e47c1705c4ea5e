"""Ladder sessions: check-in, tables formed as players wait, games feeding the ratings,
the page and the API."""

import random

import pytest

from circuit.models import LadderPlayer, LadderSession, LadderTable, Rating
from circuit.services import ladders
from tests.factories import PlayerFactory, UserFactory, client_for
from tournaments.demo import play

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


def arrivals(session, organizer, count: int, *, first: int = 0) -> list:
    """``count`` new players the organizer checks in by name (players they create)."""
    return [
        ladders.check_in(session, by=organizer, name=f"Arrival {n}").player
        for n in range(first, first + count)
    ]


def test_a_session_seats_players_as_they_arrive_and_as_tables_free(organizer, committed):
    session = ladders.create_session(by=organizer, name="Tuesday", ruleset_key="cutthroat")
    with committed():
        players = arrivals(session, organizer, 5)
    table = LadderTable.objects.get(session=session)
    seated = set(table.game.seats.values_list("player_id", flat=True))
    assert seated == {p.pk for p in players[:4]}  # the first four to arrive
    assert LadderPlayer.objects.get(player=players[4]).waiting_since is not None
    with committed():
        players += arrivals(session, organizer, 1, first=5)
        play(table.game, organizer, random.Random(5))
    table.refresh_from_db()
    assert table.done
    # Four of the six waiting now are seated; ratings came from the finished game.
    assert LadderTable.objects.filter(session=session, done=False).count() == 1
    assert Rating.objects.filter(player__in=players[:4], games=1).count() == 4
    waiting, tables = ladders.session_floor(session)
    assert len(waiting) == 2 and len(tables) == 1
    new_table = set(tables[0].game.seats.values_list("player_id", flat=True))
    assert {players[4].pk, players[5].pk} <= new_table
    lines = ladders.session_standings(session)
    assert len(lines) == 4 and lines[0]["wins"] == 1


def test_interval_sessions_wait_for_the_beat_or_the_organizer(organizer, committed):
    from circuit.services.ladders import form_due_sessions

    session = ladders.create_session(
        by=organizer, name="Every ten", ruleset_key="cutthroat", table_size=2, every_minutes=10
    )
    with committed():
        arrivals(session, organizer, 5)
    assert not LadderTable.objects.exists()
    assert form_due_sessions() == 2
    assert form_due_sessions() == 0  # not due again for ten minutes
    arrivals(session, organizer, 1, first=5)
    assert len(ladders.form_now(session, by=organizer)) == 1


def test_check_out_and_close(organizer):
    session = ladders.create_session(
        by=organizer, name="Short", ruleset_key="cutthroat", every_minutes=5
    )
    (player,) = arrivals(session, organizer, 1)
    ladders.check_out(session, by=organizer, player=player)
    assert LadderPlayer.objects.get(player=player).waiting_since is None
    ladders.close_session(session, by=organizer)
    from circuit.services.common import CircuitConflict

    with pytest.raises(CircuitConflict):
        ladders.check_in(session, by=organizer, player=player)


def test_the_api_runs_a_session(organizer, committed):
    api = client_for(organizer)
    made = api.post(
        "/api/v1/ladders/", {"name": "API night", "ruleset": "cutthroat", "table_size": 2},
        format="json",
    )  # fmt: skip
    assert made.status_code == 201
    slug = made.json()["slug"]
    with committed():
        for name in ("Ana", "Beto", "Cira"):
            response = api.post(f"/api/v1/ladders/{slug}/check-in/", {"name": name}, format="json")
            assert response.status_code == 200, response.json()
    state = client_for(None).get(f"/api/v1/ladders/{slug}/").json()
    assert [w["name"] for w in state["waiting"]] == ["Cira"]
    assert len(state["tables"]) == 1 and sorted(state["tables"][0]["players"]) == ["Ana", "Beto"]
    cira = state["waiting"][0]["player_id"]
    out = api.post(f"/api/v1/ladders/{slug}/check-out/", {"player_id": cira}, format="json")
    assert out.status_code == 200 and out.json()["waiting"] == []
    stranger = client_for(UserFactory())
    refused = stranger.post(f"/api/v1/ladders/{slug}/check-in/", {"name": "Dora"}, format="json")
    assert refused.status_code == 403
    assert client_for(None).post(f"/api/v1/ladders/{slug}/form/").status_code == 401
    assert api.post(f"/api/v1/ladders/{slug}/dance/").status_code == 404
    bad = api.post(
        "/api/v1/ladders/", {"name": "x", "ruleset": "partners", "table_size": 3}, format="json"
    )
    assert bad.status_code == 400
    assert api.post(f"/api/v1/ladders/{slug}/close/").json()["status"] == "closed"


def test_a_player_checks_themself_in_on_the_page(client, organizer):
    session = ladders.create_session(
        by=organizer, name="Self", ruleset_key="cutthroat", every_minutes=5
    )
    user = UserFactory()
    player = PlayerFactory(user=user)
    client.force_login(user)
    page = client.get(f"/ladders/{session.slug}/").content.decode()
    assert 'name="self"' in page
    client.post(f"/ladders/{session.slug}/do/check-in/", {"self": "1"})
    assert LadderPlayer.objects.get(session=session, player=player).waiting_since
    floor = client.get(f"/ladders/{session.slug}/floor/", HTTP_ACCEPT_LANGUAGE="es")
    assert (
        "Esperando: 1" in floor.content.decode() and player.display_name in floor.content.decode()
    )
    client.post(f"/ladders/{session.slug}/do/check-out/", {"player": player.pk})
    assert LadderPlayer.objects.get(session=session, player=player).present is False
    # Someone else's player cannot be checked out by this user.
    (other,) = arrivals(session, organizer, 1)
    response = client.post(f"/ladders/{session.slug}/do/check-out/", {"player": other.pk})
    assert response.status_code == 403
    assert LadderPlayer.objects.get(session=session, player=other).present


def test_the_organizer_pages(client, organizer):
    client.force_login(organizer)
    assert client.get("/ladders/new/").status_code == 200
    made = client.post(
        "/ladders/new/", {"name": "Jueves", "ruleset_key": "cutthroat", "every_minutes": "0"}
    )
    session = LadderSession.objects.get(name="Jueves")
    assert made.status_code == 302
    client.post(f"/ladders/{session.slug}/do/check-in/", {"name": "Rosa"})
    client.post(f"/ladders/{session.slug}/do/form/")
    page = client.get(f"/ladders/{session.slug}/").content.decode()
    assert "Rosa" in page and "Tables formed: 0." in page
    assert client.post(f"/ladders/{session.slug}/do/nothing/").status_code == 404
    bad = client.post(
        "/ladders/new/", {"name": "", "ruleset_key": "cutthroat", "every_minutes": "999"}
    )
    assert bad.status_code == 400
    assert "Jueves" in client.get("/ladders/").content.decode()

"""Ladder sessions: check-in, tables formed as players wait, games feeding the ratings,
the page and the API."""

import random

import pytest

from circuit.models import (
    Consent,
    LadderAct,
    LadderPlayer,
    LadderRequest,
    LadderSeat,
    LadderSession,
    LadderTable,
    Rating,
)
from circuit.services import ladders
from scoring.models import OfficialAct
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
    # Closing sends everyone waiting away: without confirm nothing changes, and it says so.
    unconfirmed = api.post(f"/api/v1/ladders/{slug}/close/")
    assert unconfirmed.status_code == 400
    assert "The session closes for good" in unconfirmed.json()["detail"]
    assert LadderSession.objects.get(slug=slug).status == "open"
    closed = api.post(f"/api/v1/ladders/{slug}/close/", {"confirm": True}, format="json")
    assert closed.json()["status"] == "closed"


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


# --- consent: who checks whom in, requests, forfeits, the audit list --------------------


@pytest.fixture
def mallory():
    return UserFactory(username="mallory")


@pytest.fixture
def ana():
    """A player with an account."""
    return PlayerFactory(display_name="Ana Rivera", user=UserFactory(username="ana"))


def floor_counts() -> tuple:
    return (
        LadderPlayer.objects.count(),
        LadderAct.objects.count(),
        LadderTable.objects.count(),
        LadderRequest.objects.count(),
    )


def test_a_stranger_cannot_seat_other_peoples_players_in_her_ladder(
    mallory, organizer, ana, committed
):
    """The review's steps: mallory's ladder, other people's players by id or by name;
    each refused with a 4xx that says why, and nothing changes."""
    from tests.circuit.helpers import played_game

    played_game([ana, *(PlayerFactory() for _ in range(3))], committed=committed)
    home = ladders.create_session(by=organizer, name="Home", ruleset_key="cutthroat")
    (bob,) = arrivals(home, organizer, 1)  # the organizer's own player, no account
    api = client_for(mallory)
    made = api.post("/api/v1/ladders/", {"name": "Mine", "ruleset": "cutthroat"}, format="json")
    slug = made.json()["slug"]
    before = floor_counts()
    for body, says in (
        ({"player_id": ana.pk}, "has an account"),
        ({"player_id": bob.pk}, "is not a player of your ladders"),
        ({"name": "ana rivera"}, "is not a player you may check in"),
        ({"name": bob.display_name}, "is not a player you may check in"),
    ):
        refused = api.post(f"/api/v1/ladders/{slug}/check-in/", body, format="json")
        assert refused.status_code in (400, 409) and says in refused.json()["detail"], body
    assert api.post(
        f"/api/v1/ladders/{slug}/ask/", {"player_id": bob.pk}, format="json"
    ).status_code == 400  # fmt: skip
    # Nor may she check them into the organizer's ladder, or forfeit for them there.
    assert api.post(
        f"/api/v1/ladders/{home.slug}/check-in/", {"player_id": bob.pk}, format="json"
    ).status_code == 403  # fmt: skip
    assert floor_counts() == before
    assert not LadderPlayer.objects.filter(player=ana).exists()
    (rated,) = client_for(None).get(f"/api/v1/players/{ana.pk}/ratings/").json()
    assert rated["games"] == 1


def test_a_player_with_an_account_taps_check_in_themself(organizer, ana):
    session = ladders.create_session(
        by=organizer, name="Open", ruleset_key="cutthroat", table_size=2, every_minutes=5
    )
    (bob,) = arrivals(session, organizer, 1)
    tapped = client_for(ana.user).post(
        f"/api/v1/ladders/{session.slug}/check-in/", {"player_id": ana.pk}, format="json"
    )
    assert tapped.status_code == 200 and ana.display_name in str(tapped.json()["waiting"])
    (table,) = ladders.form_now(session, by=organizer)
    seats = dict(LadderSeat.objects.filter(table=table).values_list("player_id", "consent"))
    assert seats == {ana.pk: Consent.SELF, bob.pk: Consent.ORGANIZER}
    acts = LadderAct.objects.filter(session=session, kind=LadderAct.Kind.CHECKED_IN)
    assert acts.get(player=ana).actor == ana.user


def test_the_organizers_request_accepted_checks_the_player_in(organizer, ana, mallory, client):
    session = ladders.create_session(
        by=organizer, name="Jueves", ruleset_key="cutthroat", every_minutes=5
    )
    api = client_for(organizer)
    asked = api.post(f"/api/v1/ladders/{session.slug}/ask/", {"player_id": ana.pk}, format="json")
    assert asked.status_code == 200
    assert not LadderPlayer.objects.filter(player=ana).exists()  # asked, not seated
    again = api.post(f"/api/v1/ladders/{session.slug}/ask/", {"player_id": ana.pk}, format="json")
    assert again.status_code == 409 and "already been asked" in again.json()["detail"]

    mine = client_for(ana.user).get("/api/v1/account/ladders/").json()
    (request,) = mine["requests"]
    assert request["session"] == session.slug and request["answer"] == "pending"
    url = f"/api/v1/account/ladders/requests/{request['id']}"
    assert client_for(mallory).post(f"{url}/accept/").status_code == 404
    assert client_for(None).post(f"{url}/accept/").status_code == 401

    client.force_login(ana.user)
    page = client.get("/accounts/").content.decode()
    assert "The organizer of Jueves asks you to check in." in page
    assert f"/ladders/requests/{request['id']}/accept/" in page
    assert client.post(f"/ladders/requests/{request['id']}/accept/").status_code == 302
    entry = LadderPlayer.objects.get(session=session, player=ana)
    assert entry.consent == Consent.ACCEPTED and entry.waiting_since is not None
    assert client_for(ana.user).post(f"{url}/accept/").status_code == 409
    page = client.get("/accounts/").content.decode()
    assert "Jueves" in page and "Accepted the organizer&#x27;s request" in page
    entries = client_for(ana.user).get("/api/v1/account/ladders/").json()["entries"]
    assert [(e["session"], e["consent"]) for e in entries] == [(session.slug, "accepted")]


def test_a_declined_request_cannot_be_sent_again(organizer, ana):
    session = ladders.create_session(by=organizer, name="Viernes", ruleset_key="cutthroat")
    asked = ladders.ask(session, by=organizer, player=ana)
    declined = client_for(ana.user).post(f"/api/v1/account/ladders/requests/{asked.pk}/decline/")
    assert declined.status_code == 200 and declined.json()["answer"] == "declined"
    assert not LadderPlayer.objects.filter(player=ana).exists()
    again = client_for(organizer).post(
        f"/api/v1/ladders/{session.slug}/ask/", {"player_id": ana.pk}, format="json"
    )
    assert again.status_code == 409 and "declined" in again.json()["detail"]


def test_an_organizer_has_one_unanswered_request_per_player(organizer, ana):
    first, second = (
        ladders.create_session(by=organizer, name=name, ruleset_key="cutthroat")
        for name in ("Lunes", "Martes")
    )
    ladders.ask(first, by=organizer, player=ana)
    again = client_for(organizer).post(
        f"/api/v1/ladders/{second.slug}/ask/", {"player_id": ana.pk}, format="json"
    )
    assert again.status_code == 409 and "another session" in again.json()["detail"]
    assert LadderRequest.objects.count() == 1


def test_the_organizer_checks_in_the_unlinked_players_they_created(organizer, mallory):
    from tournaments import services as events

    event = events.create_tournament(by=organizer, name="Club night", ruleset_key="cutthroat")
    regular = events.register_entrant(event, by=organizer, name="Club Regular").player
    session = ladders.create_session(by=organizer, name="After", ruleset_key="cutthroat")
    api = client_for(organizer)
    for body in ({"player_id": regular.pk}, {"name": "Newcomer"}):
        response = api.post(f"/api/v1/ladders/{session.slug}/check-in/", body, format="json")
        assert response.status_code == 200, response.json()
    newcomer = LadderPlayer.objects.get(session=session, player__display_name="Newcomer")
    assert newcomer.consent == Consent.ORGANIZER and newcomer.consented_by == organizer
    # Checked out and back in by id: a player of this organizer's ladders.
    ladders.check_out(session, by=organizer, player=newcomer.player)
    back = api.post(
        f"/api/v1/ladders/{session.slug}/check-in/", {"player_id": newcomer.player_id},
        format="json",
    )  # fmt: skip
    assert back.status_code == 200
    # Another organizer may not take them into theirs.
    theirs = ladders.create_session(by=mallory, name="Theirs", ruleset_key="cutthroat")
    for player in (regular, newcomer.player):
        refused = client_for(mallory).post(
            f"/api/v1/ladders/{theirs.slug}/check-in/", {"player_id": player.pk}, format="json"
        )
        assert refused.status_code == 400


def test_entries_without_a_recorded_consent_are_not_seated(organizer):
    session = ladders.create_session(
        by=organizer, name="Old", ruleset_key="cutthroat", table_size=2, every_minutes=5
    )
    players = arrivals(session, organizer, 2)
    LadderPlayer.objects.filter(player=players[0]).update(consent="")  # made before the rule
    assert ladders.form_now(session, by=organizer) == []


@pytest.fixture
def two_at_a_table(organizer, ana):
    """A table of two: Ana (her own tap) and the organizer's player Bob."""
    session = ladders.create_session(
        by=organizer, name="Duel", ruleset_key="cutthroat", table_size=2, every_minutes=5
    )
    ladders.check_in(session, by=ana.user, player=ana)
    (bob,) = arrivals(session, organizer, 1)
    (table,) = ladders.form_now(session, by=organizer)
    return session, table, bob


def test_a_player_forfeits_their_own_seat_and_the_audit_list_says_so(
    two_at_a_table, organizer, ana, mallory, committed
):
    session, table, bob = two_at_a_table
    url = f"/api/v1/ladders/{session.slug}/forfeit/"
    for user, player in ((mallory, ana), (ana.user, bob)):
        refused = client_for(user).post(
            url, {"player_id": player.pk, "reason": "x", "confirm": True}, format="json"
        )
        assert refused.status_code == 403
        # Unconfirmed, a stranger is refused all the same, and learns nothing of the table.
        unconfirmed = client_for(user).post(url, {"player_id": player.pk}, format="json")
        assert unconfirmed.status_code == 403
    no_reason = {"player_id": ana.pk, "confirm": True}
    assert client_for(ana.user).post(url, no_reason, format="json").status_code == 400
    # Without confirm nothing changes and the answer says what the forfeit would do.
    unconfirmed = client_for(ana.user).post(
        url, {"player_id": ana.pk, "reason": "Called away"}, format="json"
    )
    assert unconfirmed.status_code == 400
    assert unconfirmed.json()["detail"] == (
        f"Nothing changed: The game at table {table.number} ends now as "
        f"{ana.display_name}'s forfeit: they are placed last, the others by their totals. "
        "Send confirm: true to do it."
    )
    table.game.refresh_from_db()
    assert table.game.status != "finished" and not table.game.forfeits
    assert not OfficialAct.objects.filter(game=table.game).exists()
    with committed():
        done = client_for(ana.user).post(
            url, {"player_id": ana.pk, "reason": "Called away", "confirm": True}, format="json"
        )
    assert done.status_code == 200
    table.game.refresh_from_db()
    assert table.game.status == "finished" and table.game.forfeits
    act = OfficialAct.objects.get(game=table.game, kind="forfeit")
    assert act.actor == ana.user and act.subject == ana.display_name
    # Both seats consented: the game is rated.
    assert set(Rating.objects.values_list("player_id", flat=True)) == {ana.pk, bob.pk}

    assert client_for(ana.user).get(f"/api/v1/ladders/{session.slug}/audit/").status_code == 403
    audit = client_for(organizer).get(f"/api/v1/ladders/{session.slug}/audit/").json()["acts"]
    assert [(a["kind"], a["by"], a["player"]) for a in audit[:1]] == [
        ("forfeit", "ana", ana.display_name)
    ]
    assert ("checked_in", "ana", ana.display_name) in [
        (a["kind"], a["by"], a["player"]) for a in audit
    ]


def test_a_forfeited_game_with_an_unconsented_seat_is_not_rated(
    two_at_a_table, organizer, ana, committed
):
    from circuit.services.common import CircuitConflict

    session, table, bob = two_at_a_table
    LadderSeat.objects.filter(table=table, player=bob).delete()  # a seat nobody agreed to
    # Forfeits are over consented seats only: Bob's is not one.
    with pytest.raises(CircuitConflict):
        ladders.forfeit(session, by=organizer, player=bob, reason="No-show")
    with committed():
        ladders.forfeit(session, by=organizer, player=ana, reason="No-show")
    table.game.refresh_from_db()
    assert table.game.status == "finished"
    assert not Rating.objects.exists()


def test_the_ladder_page_offers_the_request_and_the_forfeit(client, two_at_a_table, ana, organizer):
    session, table, _bob = two_at_a_table
    client.force_login(ana.user)
    page = client.get(f"/ladders/{session.slug}/").content.decode()
    assert "Forfeit my game" in page
    # The page asks in words before the forfeit: a box to tick that says what it does.
    assert 'name="confirm" value="1" id="own-forfeit-confirm" required' in page
    assert f"The game at table {table.number} ends now as your forfeit: you are placed last" in page
    unticked = client.post(
        f"/ladders/{session.slug}/do/forfeit/", {"player": ana.pk, "reason": "Tired"}, follow=True
    )
    assert "Nothing changed: The game at table" in unticked.content.decode()
    table.game.refresh_from_db()
    assert table.game.status != "finished"
    client.post(
        f"/ladders/{session.slug}/do/forfeit/",
        {"player": ana.pk, "reason": "Tired", "confirm": "1"},
    )
    table.game.refresh_from_db()
    assert table.game.status == "finished"

    cira = PlayerFactory(display_name="Cira Soto", user=UserFactory())
    client.force_login(organizer)
    assert "Ask to check in" in client.get(f"/ladders/{session.slug}/").content.decode()
    client.post(f"/ladders/{session.slug}/do/ask/", {"name": "cira soto"})
    assert LadderRequest.objects.get(session=session).player == cira
    client.force_login(cira.user)
    page = client.get(f"/ladders/{session.slug}/").content.decode()
    assert "The organizer asks you to check in." in page


def test_a_player_stays_the_organizer_who_created_them(organizer, mallory):
    """The creator is whoever's event or ladder the player came to first, however often
    they come back later."""
    from circuit.consent import created_by
    from circuit.services.common import CircuitError
    from tournaments import services as events

    session = ladders.create_session(by=organizer, name="Home", ruleset_key="cutthroat")
    (zoe,) = arrivals(session, organizer, 1)
    event = events.create_tournament(by=mallory, name="Elsewhere", ruleset_key="cutthroat")
    events.register_entrant(event, by=mallory, player=zoe)
    ladders.check_out(session, by=organizer, player=zoe)
    ladders.check_in(session, by=organizer, player=zoe)  # back, later than her entry
    assert created_by(zoe) == organizer.pk
    theirs = ladders.create_session(by=mallory, name="Theirs", ruleset_key="cutthroat")
    with pytest.raises(CircuitError):
        ladders.check_in(theirs, by=mallory, player=zoe)


def test_the_organizer_confirms_a_forfeit_and_closing_on_the_page(
    client, two_at_a_table, organizer
):
    """The organizer's forfeit of a seat and closing the session each ask, in words that
    say their effect, in English and Spanish; unticked, nothing changes."""
    session, table, bob = two_at_a_table
    client.force_login(organizer)
    page = client.get(f"/ladders/{session.slug}/").content.decode()
    assert f'id="forfeit-confirm-{table.number}" required' in page
    assert f"The game at table {table.number} ends now as the chosen player" in page
    assert 'id="close-confirm" required' in page
    assert "The session closes for good" in page
    spanish = client.get(f"/ladders/{session.slug}/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert f"La partida de la mesa {table.number} termina ahora" in spanish
    assert "La sesión se cierra definitivamente" in spanish

    forfeit = f"/ladders/{session.slug}/do/forfeit/"
    said = client.post(forfeit, {"player": bob.pk, "reason": "Left"}, follow=True)
    assert f"{bob.display_name}&#x27;s forfeit" in said.content.decode()
    closing = client.post(f"/ladders/{session.slug}/do/close/", follow=True).content.decode()
    assert "Nothing changed: The session closes for good" in closing
    table.game.refresh_from_db()
    session.refresh_from_db()
    assert table.game.status != "finished" and session.status == "open"

    client.post(forfeit, {"player": bob.pk, "reason": "Left", "confirm": "1"})
    client.post(f"/ladders/{session.slug}/do/close/", {"confirm": "1"})
    table.game.refresh_from_db()
    session.refresh_from_db()
    assert table.game.forfeits and session.status == "closed"

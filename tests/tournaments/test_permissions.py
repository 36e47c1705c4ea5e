"""Who sees a round in draft, and who may record in it: every address, every role, before
and after the round is published."""

import pytest
from rest_framework.test import APIClient

from scoring.models import Game, Hand, ScoreEvent
from tests.factories import SuperuserFactory, UserFactory
from tournaments import services

pytestmark = pytest.mark.django_db

ROLES = ["anonymous", "outsider", "referee", "organizer", "superuser"]
STAFF = {"referee", "organizer", "superuser"}
HELD = "This table is not published yet"


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


@pytest.fixture
def draft(organizer):
    """A public event whose round 1 is generated, refereed at table 1 and not published."""
    tournament = services.create_tournament(
        by=organizer, name="Copa", slug="copa", ruleset_key="cutthroat", table_size=4
    )
    services.register_entrants(
        tournament, by=organizer, text="\n".join(f"Player {i:02d}" for i in range(8))
    )
    stage = services.add_stage(tournament, by=organizer, name="Round robin", format="round_robin")
    round_ = services.generate_round(stage, by=organizer)
    referee, _ = services.create_referee(tournament, by=organizer, username="ref")
    match = round_.matches.order_by("table_number").first()
    services.assign_referee(match, referee, by=organizer)
    return round_, match


def client_as(role: str, organizer) -> APIClient:
    client = APIClient()
    user = {
        "anonymous": None,
        "outsider": lambda: UserFactory(username="outsider"),
        "referee": lambda: UserFactory(username="ref"),
        "organizer": lambda: organizer,
        "superuser": lambda: SuperuserFactory(username="root"),
    }[role]
    if user is not None:
        client.force_login(user())
    return client


def addresses(match) -> list[str]:
    """Every address that shows a table or its game by itself."""
    return [
        "/api/v1/tournaments/copa/rounds/1/",
        f"/api/v1/matches/{match.pk}/",
        f"/api/v1/games/{match.game_id}/",
        f"/games/{match.game_id}/",
        f"/games/{match.game_id}/sheet/",
    ]


def listings(client, match) -> dict[str, bool]:
    """Whether each listing that can name the table or its game names it."""
    entrant = match.seats.order_by("position").first().entrant
    rounds = client.get("/api/v1/tournaments/copa/rounds/").json()["results"]
    games = client.get("/api/v1/games/").json()["results"]
    return {
        "rounds": any(r["number"] == 1 for r in rounds),
        "games": any(g["id"] == match.game_id for g in games),
        "entrant page": f'href="/games/{match.game_id}/"'
        in client.get(f"/t/copa/entrants/{entrant.pk}/").content.decode(),
        "tables": entrant.name in client.get("/t/copa/live/?round=1").content.decode(),
        "tournament page": f'href="/games/{match.game_id}/"'
        in client.get("/t/copa/").content.decode(),
    }


@pytest.mark.parametrize("role", ROLES)
def test_a_draft_round_is_shown_only_to_the_event_staff(role, draft, organizer):
    _, match = draft
    client = client_as(role, organizer)
    staff = role in STAFF
    for address in addresses(match):
        assert client.get(address).status_code == (200 if staff else 404), address
    seen = listings(client, match)
    assert seen["rounds"] is staff
    assert seen["entrant page"] is staff
    assert seen["tables"] is staff
    assert seen["tournament page"] is staff
    # The games list names only games one referees, opened, or that are public and open.
    assert seen["games"] is (role in {"referee", "superuser"})


@pytest.mark.parametrize("role", ROLES)
def test_a_published_round_is_shown_to_everyone(role, draft, organizer):
    round_, match = draft
    services.publish_round(round_, by=organizer)
    client = client_as(role, organizer)
    for address in addresses(match):
        assert client.get(address).status_code == 200, address
    seen = listings(client, match)
    assert seen["rounds"] and seen["entrant page"] and seen["tables"] and seen["games"]
    assert seen["tournament page"]


HAND = {"number": 1, "ended": "block", "pips": {"A": 1, "B": 2, "C": 3, "D": 4}}
IN_PLAY = {"hand": 1, "seat": "A", "kind": "in_play", "points": 10}
PENALTY = {"hand": 1, "seat": "B", "kind": "penalty", "points": -10}


@pytest.mark.parametrize("role", ["referee", "organizer", "superuser"])
def test_nobody_records_hands_or_points_in_a_draft_round(role, draft, organizer):
    _, match = draft
    client = client_as(role, organizer)
    for address, body in (
        (f"/api/v1/games/{match.game_id}/hands/", HAND),
        (f"/api/v1/games/{match.game_id}/events/", IN_PLAY),
        (f"/api/v1/games/{match.game_id}/events/", PENALTY),
    ):
        response = client.post(address, body, format="json")
        assert response.status_code == 409, (address, response.json())
        assert HELD in response.json()["detail"]
    assert not Hand.objects.filter(game_id=match.game_id).exists()
    assert not ScoreEvent.objects.filter(game_id=match.game_id).exists()
    assert Game.objects.get(pk=match.game_id).status == Game.Status.SCHEDULED


@pytest.mark.parametrize("role", ["anonymous", "outsider"])
def test_others_are_refused_a_draft_rounds_game_as_before(role, draft, organizer):
    _, match = draft
    response = client_as(role, organizer).post(
        f"/api/v1/games/{match.game_id}/hands/", HAND, format="json"
    )
    assert response.status_code in (401, 403, 404)
    assert not Hand.objects.filter(game_id=match.game_id).exists()


def test_the_scoring_page_says_the_round_is_not_published_instead_of_a_form(draft, organizer):
    round_, match = draft
    client = client_as("referee", organizer)
    page = client.get(f"/games/{match.game_id}/score/").content.decode()
    assert HELD in page
    assert 'id="hand-form"' not in page
    posted = client.post(
        f"/games/{match.game_id}/score/hand/",
        {"number": 1, "ending": "block", "pips_A": 1, "pips_B": 2, "pips_C": 3, "pips_D": 4},
    )
    assert HELD in posted.content.decode()
    event = client.post(
        f"/games/{match.game_id}/score/event/",
        {"hand": 1, "seat": "A", "kind": "in_play", "points": 10, "key": "k1"},
    )
    assert HELD in event.content.decode()
    assert not Hand.objects.filter(game_id=match.game_id).exists()
    assert not ScoreEvent.objects.filter(game_id=match.game_id).exists()

    services.publish_round(round_, by=organizer)
    page = client.get(f"/games/{match.game_id}/score/").content.decode()
    assert HELD not in page
    assert 'id="hand-form"' in page


def test_publishing_opens_the_round_for_scoring(draft, organizer):
    round_, match = draft
    services.publish_round(round_, by=organizer)
    client = client_as("referee", organizer)
    assert (
        client.post(f"/api/v1/games/{match.game_id}/events/", IN_PLAY, format="json").status_code
        == 201
    )
    response = client.post(f"/api/v1/games/{match.game_id}/hands/", HAND, format="json")
    assert response.status_code == 201, response.json()
    assert Game.objects.get(pk=match.game_id).status == Game.Status.IN_PROGRESS

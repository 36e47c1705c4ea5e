"""Each role against each endpoint: the allowed succeed, the others get 401, 403 or 404."""

import pytest
from rest_framework.test import APIClient

from scoring.services import create_game, record_hand
from tests.factories import PlayerFactory, SuperuserFactory, UserFactory, client_for, start_game

pytestmark = pytest.mark.django_db

ROLES = ["anonymous", "no_role", "other_referee", "referee", "superuser"]
PIPS = {"A": 8, "B": 15, "C": 22, "D": 12}


@pytest.fixture
def world():
    referee, other = UserFactory(), UserFactory()
    game = start_game("two_box_cutthroat", 4, referee=referee)
    start_game("cutthroat", 4, referee=other)
    record_hand(game, by=referee, number=1, ended="block", pips=PIPS, lowest_tiles=None)
    users = {
        "anonymous": None,
        "no_role": UserFactory(),
        "other_referee": other,
        "referee": referee,
        "superuser": SuperuserFactory(),
    }
    return game, users


def call(client, game, endpoint):
    base = f"/api/v1/games/{game.pk}/"
    if endpoint == "detail":
        return client.get(base)
    if endpoint == "history":
        return client.get(f"{base}hands/1/history/")
    if endpoint == "record":
        return client.post(
            f"{base}hands/", {"number": 2, "ended": "block", "pips": PIPS}, format="json"
        )
    if endpoint == "correct":
        return client.put(
            f"{base}hands/1/",
            {"ended": "block", "pips": PIPS, "reason": "x", "expected_version": 1},
            format="json",
        )
    if endpoint == "void":
        return client.delete(f"{base}hands/1/?reason=misdeal")
    if endpoint == "event":
        return client.post(
            f"{base}events/",
            {"hand": 2, "seat": "A", "kind": "in_play", "points": 10},
            format="json",
        )
    raise AssertionError(endpoint)


READ = {"anonymous": 200, "no_role": 200, "other_referee": 200, "referee": 200, "superuser": 200}
WRITE = {"anonymous": 401, "no_role": 403, "other_referee": 403, "referee": "ok", "superuser": "ok"}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    ("endpoint", "expected"),
    [
        ("detail", READ),
        ("history", READ),
        ("record", WRITE),
        ("correct", WRITE),
        ("void", WRITE),
        ("event", WRITE),
    ],
)
def test_public_game_matrix(world, role, endpoint, expected):
    game, users = world
    response = call(client_for(users[role]), game, endpoint)
    want = expected[role]
    if want == "ok":
        assert 200 <= response.status_code < 300, response.json()
    else:
        assert response.status_code == want, response.json()


@pytest.mark.parametrize(
    ("role", "status"),
    [
        ("anonymous", 404),
        ("no_role", 404),
        ("other_referee", 404),
        ("referee", 200),
        ("superuser", 200),
    ],
)
def test_private_game_is_hidden_from_all_but_its_people(world, role, status):
    game, users = world
    game.public = False
    game.save(update_fields=["public"])
    assert call(client_for(users[role]), game, "detail").status_code == status
    listed = client_for(users[role]).get("/api/v1/games/").json()["results"]
    assert (game.pk in {row["id"] for row in listed}) == (status == 200)


@pytest.mark.parametrize(
    ("role", "status"),
    [
        ("anonymous", 401),
        ("no_role", 403),
        ("other_referee", 403),
        ("referee", 403),
        ("superuser", 200),
    ],
)
def test_only_organizers_reopen_a_finished_game(role, status):
    referee = UserFactory()
    game = start_game("cutthroat", 2, referee=referee)
    for number in (1, 2, 3):
        record_hand(
            game, by=referee, number=number, ended="domino", domino_by="A", pips={"A": 0, "B": 50}
        )
    users = {
        "anonymous": None,
        "no_role": UserFactory(),
        "other_referee": UserFactory(),
        "referee": referee,
        "superuser": SuperuserFactory(),
    }
    response = client_for(users[role]).post(
        f"/api/v1/games/{game.pk}/reopen/", {"reason": "disputed"}, format="json"
    )
    assert response.status_code == status


def test_the_owner_of_a_game_may_reopen_it():
    owner = UserFactory()
    client = client_for(owner)
    game = client.post(
        "/api/v1/games/", {"ruleset": "cutthroat", "seats": ["a", "b"]}, format="json"
    ).json()
    for number in (1, 2, 3):
        client.post(
            f"/api/v1/games/{game['id']}/hands/",
            {"number": number, "ended": "domino", "domino_by": "A", "pips": {"A": 0, "B": 50}},
            format="json",
        )
    response = client.post(f"/api/v1/games/{game['id']}/reopen/", {"reason": "x"}, format="json")
    assert response.status_code == 200
    assert response.json()["status"] == "in_progress"


@pytest.mark.parametrize(("role", "status"), [("anonymous", 401), ("no_role", 201)])
def test_creating_a_game_needs_an_account(role, status):
    user = None if role == "anonymous" else UserFactory()
    response = client_for(user).post(
        "/api/v1/games/", {"ruleset": "dcs", "seats": ["a", "b", "c", "d"]}, format="json"
    )
    assert response.status_code == status


def test_rule_book_and_calculator_are_open_to_anyone():
    client = APIClient()
    assert client.get("/api/v1/rulesets/").status_code == 200
    response = client.post(
        "/api/v1/rulesets/dcs/score/", {"ended": "block", "pips": PIPS}, format="json"
    )
    assert response.status_code == 200


@pytest.mark.parametrize("role", ROLES)
def test_a_held_game_is_shown_only_to_its_referees_and_superusers(world, role):
    game, users = world
    held = create_game(
        ruleset_key="cutthroat",
        seats=[PlayerFactory() for _ in range(4)],
        referees=[users["referee"]],
        held=True,
    )
    assert held.public
    client = client_for(users[role])
    sees = role in {"referee", "superuser"}
    assert client.get(f"/api/v1/games/{held.pk}/").status_code == (200 if sees else 404)
    listed = {g["id"] for g in client.get("/api/v1/games/").json()["results"]}
    assert (held.pk in listed) is sees
    assert game.pk in listed  # the open public game stays listed for everyone

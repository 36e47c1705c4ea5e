"""config/parsers.py: a JSON body no field could take is a 400 before any view reads it."""

import pytest
from rest_framework.test import APIClient

from scoring.models import Game
from tests.factories import UserFactory
from tournaments.models import Match

pytestmark = pytest.mark.django_db

DEEP = "[" * 100_000 + "]" * 100_000
NESTED_OBJECTS = '{"a":' * 50_000 + "1" + "}" * 50_000


@pytest.fixture
def organizer():
    return UserFactory(username="org")


@pytest.fixture
def api(organizer):
    client = APIClient()
    client.force_authenticate(organizer)
    return client


@pytest.fixture
def world(api):
    """A tournament with entrants, a stage and a paired round: every write has a target."""
    created = api.post(
        "/api/v1/tournaments/",
        {"name": "Copa", "ruleset": "cutthroat", "table_size": 2},
        format="json",
    )
    slug = created.json()["slug"]
    api.post(f"/api/v1/tournaments/{slug}/entrants/", {"text": "Ana\nBeto"}, format="json")
    api.post(
        f"/api/v1/tournaments/{slug}/stages/",
        {"name": "RR", "format": "round_robin", "settings": {"rounds": 1}},
        format="json",
    )
    assert api.post(f"/api/v1/tournaments/{slug}/rounds/", {}, format="json").status_code == 201
    match = Match.objects.get()
    return {"slug": slug, "game": match.game_id, "match": match.pk}


def writes(world) -> list[tuple[str, str]]:
    slug, game, match = world["slug"], world["game"], world["match"]
    return [
        ("post", "/api/v1/games/"),
        ("post", f"/api/v1/games/{game}/hands/"),
        ("put", f"/api/v1/games/{game}/hands/1/"),
        ("delete", f"/api/v1/games/{game}/hands/1/"),
        ("post", f"/api/v1/games/{game}/events/"),
        ("post", f"/api/v1/games/{game}/reopen/"),
        ("post", "/api/v1/rulesets/cutthroat/score/"),
        ("post", "/api/v1/tournaments/"),
        ("patch", f"/api/v1/tournaments/{slug}/"),
        ("post", f"/api/v1/tournaments/{slug}/entrants/"),
        ("post", f"/api/v1/tournaments/{slug}/stages/"),
        ("post", f"/api/v1/tournaments/{slug}/stages/1/finish/"),
        ("post", f"/api/v1/tournaments/{slug}/rounds/"),
        ("post", f"/api/v1/tournaments/{slug}/rounds/1/swap/"),
        ("post", f"/api/v1/matches/{match}/referee/"),
    ]


def assert_refused(response, words: str):
    assert response.status_code == 400, (response.status_code, response.content[:200])
    body = response.json()
    assert words in body["detail"]
    assert body["errors"] == {}


JUST_PAST_THE_LIMIT = "[" * 33 + "]" * 33


@pytest.mark.parametrize(
    "deep", [DEEP, NESTED_OBJECTS, JUST_PAST_THE_LIMIT], ids=["lists", "objects", "33 deep"]
)
def test_json_nested_too_deep_is_refused_by_every_json_endpoint(api, world, deep):
    for method, url in writes(world):
        response = getattr(api, method)(url, deep, content_type="application/json")
        assert_refused(response, "nested too deeply")
    assert Game.objects.count() == 1


def test_the_anonymous_calculator_refuses_deep_json():
    response = APIClient().post(
        "/api/v1/rulesets/dcs/score/", DEEP, content_type="application/json"
    )
    assert_refused(response, "nested too deeply")


def test_nesting_an_honest_body_needs_is_accepted(api):
    body = {"ended": "block", "pips": {"A": 8, "B": 15, "C": 22, "D": 12}}
    assert api.post("/api/v1/rulesets/dcs/score/", body, format="json").status_code == 200


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("patch", "", {"placement_points": {"1\x00": 3}}),
        ("patch", "", {"placement_points": {"1": 3}, "name": "Copa\x00"}),
        ("post", "stages/", {"format": "round_robin", "settings": {"rounds\x00": 1}}),
        ("post", "stages/", {"format": "swiss", "settings": {"pairing": "fold\x00"}}),
        ("post", "entrants/", {"name": "Ana\x00"}),
    ],
)
def test_nul_in_any_text_is_refused(api, world, method, path, body):
    url = f"/api/v1/tournaments/{world['slug']}/{path}"
    assert_refused(getattr(api, method)(url, body, format="json"), "NUL")


def test_nul_in_a_seat_name_is_refused(api):
    response = api.post(
        "/api/v1/games/", {"ruleset": "cutthroat", "seats": ["Ana\x00", "B", "C"]}, format="json"
    )
    assert_refused(response, "NUL")
    assert not Game.objects.exists()


@pytest.mark.parametrize("number", [2**64, -(2**64), 10**30, 2**63])
def test_integers_beyond_64_bits_are_refused_everywhere(api, world, number):
    slug = world["slug"]
    cases = [
        ("post", f"/api/v1/tournaments/{slug}/entrants/", {"name": "Cruz", "seed": number}),
        ("patch", f"/api/v1/tournaments/{slug}/", {"placement_points": {"1": number}}),
        ("post", f"/api/v1/tournaments/{slug}/stages/1/finish/", {"top": number}),
        ("post", f"/api/v1/tournaments/{slug}/rounds/1/swap/", {"entrants": [number, 1]}),
        (
            "post",
            f"/api/v1/games/{world['game']}/events/",
            {"hand": 1, "seat": "A", "kind": "penalty", "points": number},
        ),
        (
            "post",
            "/api/v1/rulesets/cutthroat/score/",
            {"ended": "block", "pips": {"A": number, "B": 1, "C": 2}},
        ),
    ]
    for method, url, body in cases:
        # Each field refuses it with its own range; nothing reaches the database.
        response = getattr(api, method)(url, body, format="json")
        assert response.status_code == 400, (url, response.content[:200])
        assert response.json()["errors"], url

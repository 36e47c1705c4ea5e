"""The referee API: games, hands, corrections, events, idempotency and the calculator."""

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import IdempotencyKey
from scoring.models import Game, Hand, ScoreEvent
from tests.factories import PlayerFactory, UserFactory, start_game

pytestmark = pytest.mark.django_db

BLOCK = {"ended": "block", "pips": {"A": 8, "B": 15, "C": 22, "D": 12}}


@pytest.fixture
def referee():
    return UserFactory()


@pytest.fixture
def api(referee):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=referee).key}")
    return client


@pytest.fixture
def game(referee):
    return start_game("cutthroat", 4, referee=referee)


def hands_url(game):
    return f"/api/v1/games/{game.pk}/hands/"


def test_open_a_game_with_named_seats(api, referee):
    player = PlayerFactory(display_name="Ana")
    response = api.post(
        "/api/v1/games/",
        {"ruleset": "partners", "seats": [player.pk, "Beto", "Cruz", "Dalia"], "label": "Mesa 1"},
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert [side["name"] for side in body["sides"]] == ["A+C", "B+D"]
    assert [seat["display_name"] for seat in body["seats"]] == ["Ana", "Beto", "Cruz", "Dalia"]
    assert body["ruleset"]["target"] == 250
    assert body["next_hand"] == 1
    assert Game.objects.get(pk=body["id"]).referees.filter(pk=referee.pk).exists()


def test_a_game_for_a_table_size_the_rules_refuse_is_a_400(api):
    response = api.post(
        "/api/v1/games/", {"ruleset": "partners", "seats": ["A", "B", "C"]}, format="json"
    )
    assert response.status_code == 400
    assert "seats" in response.json()["errors"]


def test_record_a_hand_returns_the_award_and_new_totals(api, game):
    response = api.post(hands_url(game), {"number": 1, **BLOCK}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["hand"]["awards"] == {"A": 40, "B": 0, "C": 0, "D": 0}
    assert [side["total"] for side in body["game"]["sides"]] == [40, 0, 0, 0]
    assert body["game"]["next_hand"] == 2
    assert body["game"]["next_leader"] == "A"


def test_hand_body_with_tiles_and_in_play(api, game):
    body = {
        "number": 1,
        "ended": "domino",
        "domino_by": "B",
        "tiles": {"A": [[6, 6], [1, 2]], "B": [], "C": [[0, 3]], "D": [[2, 2]]},
        "in_play": [{"seat": "A", "points": 10}],
    }
    response = api.post(hands_url(game), body, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["hand"]["awards"]["B"] == 20
    assert response.json()["hand"]["pips"] == {"A": 15, "B": 0, "C": 3, "D": 4}


def test_a_hand_the_engine_refuses_is_a_400_in_a_referees_words(api, game):
    response = api.post(
        hands_url(game),
        {"number": 1, "ended": "block", "pips": {"A": 8, "B": 80, "C": 22, "D": 12}},
        format="json",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["errors"]["pips"] == ["Seat B cannot hold 80 pips: 7 tiles hold at most 69."]
    assert body["detail"] == body["errors"]["pips"][0]
    assert not Hand.objects.exists()


def test_a_second_device_entering_the_same_hand_gets_409_with_the_state(api, game):
    assert api.post(hands_url(game), {"number": 1, **BLOCK}, format="json").status_code == 201
    response = api.post(hands_url(game), {"number": 1, **BLOCK}, format="json")
    assert response.status_code == 409
    assert "already recorded" in response.json()["detail"]
    assert response.json()["game"]["next_hand"] == 2
    assert Hand.objects.count() == 1


def test_a_retried_post_with_the_same_key_records_one_hand(api, game):
    first = api.post(
        hands_url(game), {"number": 1, **BLOCK}, format="json", HTTP_IDEMPOTENCY_KEY="tab-7-h1"
    )
    again = api.post(
        hands_url(game), {"number": 1, **BLOCK}, format="json", HTTP_IDEMPOTENCY_KEY="tab-7-h1"
    )
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert Hand.objects.count() == 1


def test_the_same_key_with_another_body_is_a_409(api, game):
    api.post(hands_url(game), {"number": 1, **BLOCK}, format="json", HTTP_IDEMPOTENCY_KEY="k")
    other = {"number": 2, "ended": "block", "pips": {"A": 1, "B": 2, "C": 3, "D": 4}}
    response = api.post(hands_url(game), other, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert response.status_code == 409
    assert Hand.objects.count() == 1


def test_a_failed_write_does_not_burn_its_key(api, game):
    bad = {"number": 1, "ended": "block", "pips": {"A": -1, "B": 2, "C": 3, "D": 4}}
    assert (
        api.post(hands_url(game), bad, format="json", HTTP_IDEMPOTENCY_KEY="k2").status_code == 400
    )
    good = api.post(
        hands_url(game), {"number": 1, **BLOCK}, format="json", HTTP_IDEMPOTENCY_KEY="k2"
    )
    assert good.status_code == 201


def test_a_refusal_repeated_with_its_key_is_told_again_and_never_stored(api, game):
    too_many = {"number": 1, "ended": "block", "pips": {"A": 8, "B": 80, "C": 22, "D": 12}}
    first = api.post(hands_url(game), too_many, format="json", HTTP_IDEMPOTENCY_KEY="k3")
    again = api.post(hands_url(game), too_many, format="json", HTTP_IDEMPOTENCY_KEY="k3")
    assert first.status_code == again.status_code == 400
    assert again.json() == first.json()
    assert "Idempotent-Replayed" not in again
    assert not IdempotencyKey.objects.exists()


def test_a_conflict_repeated_with_its_key_carries_the_state_each_time(api, game):
    assert api.post(hands_url(game), {"number": 1, **BLOCK}, format="json").status_code == 201
    first = api.post(
        hands_url(game), {"number": 1, **BLOCK}, format="json", HTTP_IDEMPOTENCY_KEY="k4"
    )
    again = api.post(
        hands_url(game), {"number": 1, **BLOCK}, format="json", HTTP_IDEMPOTENCY_KEY="k4"
    )
    assert first.status_code == again.status_code == 409
    assert again.json() == first.json()
    assert first.json()["game"]["next_hand"] == 2
    assert not IdempotencyKey.objects.exists()


def test_correction_mid_game_recomputes_later_totals(api, game):
    hands = [
        {"A": 8, "B": 15, "C": 22, "D": 12},
        {"A": 20, "B": 5, "C": 10, "D": 10},
        {"A": 3, "B": 10, "C": 20, "D": 17},
    ]
    for number, pips in enumerate(hands, start=1):
        api.post(hands_url(game), {"number": number, "ended": "block", "pips": pips}, format="json")
    url = f"{hands_url(game)}2/"
    body = {
        "ended": "block",
        "pips": {"A": 20, "B": 10, "C": 5, "D": 10},
        "reason": "C was miscounted",
        "expected_version": 1,
    }
    response = api.put(url, body, format="json")
    assert response.status_code == 200, response.json()
    assert [side["total"] for side in response.json()["game"]["sides"]] == [85, 0, 35, 0]
    stale = api.put(url, body, format="json")
    assert stale.status_code == 409
    assert stale.json()["current"]["version"] == 2
    history = api.get(f"{url}history/").json()["results"]
    assert [(v["version"], v["reason"]) for v in history] == [(1, ""), (2, "C was miscounted")]


def test_void_a_hand_with_a_reason(api, game):
    api.post(hands_url(game), {"number": 1, **BLOCK}, format="json")
    assert api.delete(f"{hands_url(game)}1/").status_code == 400
    response = api.delete(f"{hands_url(game)}1/?reason=misdeal")
    assert response.status_code == 200
    assert response.json()["hand"]["voided"] is True
    assert [side["total"] for side in response.json()["game"]["sides"]] == [0, 0, 0, 0]


def test_events_add_and_undo(api, referee):
    game = start_game("two_box_cutthroat", 4, referee=referee)
    url = f"/api/v1/games/{game.pk}/events/"
    assert (
        api.post(
            url, {"hand": 1, "seat": "A", "kind": "in_play", "points": 10}, format="json"
        ).status_code
        == 201
    )
    steal = api.post(
        url, {"hand": 1, "seat": "B", "kind": "steal", "points": 10, "double": True}, format="json"
    )
    assert steal.status_code == 201
    assert [side["total"] for side in steal.json()["game"]["sides"]] == [-10, 20, 0, 0]
    event_id = steal.json()["events"][0]["id"]
    undone = api.delete(f"{url}{event_id}/")
    assert undone.status_code == 200
    assert [side["total"] for side in undone.json()["game"]["sides"]] == [10, 0, 0, 0]
    assert api.delete(f"{url}{event_id}/").status_code == 404


def test_a_steal_names_the_last_player_who_played_when_the_seat_between_passed(api, referee):
    game = start_game("two_box_cutthroat", 4, referee=referee)
    url = f"/api/v1/games/{game.pk}/events/"
    api.post(url, {"hand": 1, "seat": "A", "kind": "in_play", "points": 10}, format="json")
    steal = api.post(
        url,
        {"hand": 1, "seat": "C", "kind": "steal", "points": 10, "from_seat": "A"},
        format="json",
    )
    assert steal.status_code == 201
    assert [side["total"] for side in steal.json()["game"]["sides"]] == [0, 0, 10, 0]
    itself = api.post(
        url,
        {"hand": 1, "seat": "D", "kind": "steal", "points": 10, "from_seat": "D"},
        format="json",
    )
    assert itself.status_code == 400
    assert "from_seat" in itself.json()["errors"]


def test_an_impossible_in_play_score_is_a_400(api, game):
    response = api.post(
        f"/api/v1/games/{game.pk}/events/",
        {"hand": 1, "seat": "A", "kind": "in_play", "points": 40},
        format="json",
    )
    assert response.status_code == 400
    assert "points" in response.json()["errors"]
    assert not ScoreEvent.objects.exists()


def test_a_finished_game_takes_no_more_hands(api, referee):
    game = start_game("cutthroat", 2, referee=referee)
    for number in (1, 2, 3):
        api.post(
            hands_url(game),
            {"number": number, "ended": "domino", "domino_by": "A", "pips": {"A": 0, "B": 50}},
            format="json",
        )
    response = api.post(
        hands_url(game), {"number": 4, "ended": "block", "pips": {"A": 1, "B": 2}}, format="json"
    )
    assert response.status_code == 409
    assert "finished" in response.json()["detail"]


def test_game_detail_shows_hands_and_rules(api, game):
    api.post(hands_url(game), {"number": 1, **BLOCK}, format="json")
    body = api.get(f"/api/v1/games/{game.pk}/").json()
    assert body["hands"][0]["awards"]["A"] == 40
    assert body["ruleset"]["block_award"] == "opponents_minus_own"
    assert body["status"] == "in_progress"


def test_list_filters_by_status(api, game):
    assert api.get("/api/v1/games/?status=in_progress").json()["count"] == 1
    assert api.get("/api/v1/games/?status=finished").json()["count"] == 0
    assert api.get("/api/v1/games/?status=won").status_code == 400


def test_calculator_scores_without_storing():
    client = APIClient()
    response = client.post(
        "/api/v1/rulesets/dcs/score/",
        {"ended": "block", "pips": {"A": 8, "B": 15, "C": 22, "D": 12}},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["awards"] == {"A": 25, "B": 0, "C": 0, "D": 0}
    assert response.json()["winners"] == ["A"]
    assert not Hand.objects.exists()


def test_calculator_takes_seats_and_overrides():
    response = APIClient().post(
        "/api/v1/rulesets/cutthroat/score/",
        {
            "ended": "domino",
            "domino_by": "N",
            "seats": ["N", "E", "S"],
            "pips": {"N": 0, "E": 13, "S": 9},
            "overrides": {"rounding": "none"},
        },
        format="json",
    )
    assert response.status_code == 200, response.json()
    assert response.json()["awards"]["N"] == 22


def test_calculator_errors_are_400():
    response = APIClient().post(
        "/api/v1/rulesets/dcs/score/", {"ended": "block", "pips": {"A": 8, "B": 15}}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["errors"]["seats"]
    assert APIClient().post("/api/v1/rulesets/nope/score/", {}, format="json").status_code == 404


def test_rulesets_list_every_preset_with_every_field():
    body = APIClient().get("/api/v1/rulesets/").json()
    assert body["count"] == len(body["results"])
    keys = {preset["key"] for preset in body["results"]}
    assert keys >= {"cutthroat", "dcs", "two_box_cutthroat"}
    dcs = APIClient().get("/api/v1/rulesets/dcs/").json()
    assert dcs["per_table_size"]["4"]["block_tie"] == "split"


def test_recording_a_hand_is_a_constant_number_of_queries(
    api, referee, django_assert_max_num_queries
):
    game = start_game("cutthroat", 4, referee=referee, overrides={"target": 2000})
    for _ in range(50):
        start_game("cutthroat", 4)
    pips = {"A": 1, "B": 2, "C": 3, "D": 4}
    api.post(hands_url(game), {"number": 1, "ended": "block", "pips": pips}, format="json")

    def post(number):
        return api.post(
            hands_url(game), {"number": number, "ended": "block", "pips": pips}, format="json"
        )

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as early:
        assert post(2).status_code == 201
    at_hand_two = len(early)
    for number in range(3, 30):
        post(number)
    with django_assert_max_num_queries(at_hand_two):
        assert post(30).status_code == 201


@pytest.fixture
def three_a_minute(monkeypatch):
    from django.core.cache import cache
    from rest_framework.throttling import AnonRateThrottle

    cache.clear()
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "3/min"})
    yield
    cache.clear()


def test_a_forged_forwarded_for_does_not_escape_the_anonymous_limit(three_a_minute):
    client = APIClient()
    codes = [
        client.get(
            "/api/v1/rulesets/", REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}"
        ).status_code
        for n in range(6)
    ]
    assert codes == [200, 200, 200, 429, 429, 429]
    other = client.get("/api/v1/rulesets/", REMOTE_ADDR="203.0.113.8")
    assert other.status_code == 200


def test_behind_one_proxy_the_right_most_forwarded_address_is_the_client(three_a_minute, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    client = APIClient()

    def get(forwarded):
        return client.get(
            "/api/v1/rulesets/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=forwarded
        ).status_code

    # The client may write anything on the left; the proxy appends the address it saw.
    assert [get(f"198.51.100.{n}, 203.0.113.7") for n in range(4)] == [200, 200, 200, 429]
    assert get("203.0.113.9") == 200

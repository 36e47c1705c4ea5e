"""Every number the referee API takes is refused outside its range, and nothing is stored.

On PostgreSQL a value outside its column wraps instead of failing (a penalty of
4,294,967,306 was stored as -10), so these run on both databases.
"""

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from scoring.bounds import LAST_HAND, MOST_PIPS, MOST_PLAY_POINTS
from scoring.models import Game, Hand, ScoreEvent
from tests.factories import PlayerFactory, UserFactory, start_game

pytestmark = pytest.mark.django_db

# Past a 32-bit column, past it by a wrap to a small number, past 64 bits, far past.
HUGE = [2**31, 2**32 + 10, 2**63, 10**30]
OUT_OF_RANGE = [*HUGE, -1, -(2**31), -(2**63)]
BLOCK = {"ended": "block", "pips": {"A": 8, "B": 15, "C": 22, "D": 12}}


@pytest.fixture
def referee():
    return UserFactory()


@pytest.fixture
def api(referee):
    client = APIClient()
    client.force_authenticate(referee)
    return client


@pytest.fixture
def game(referee):
    return start_game("cutthroat", 4, referee=referee)


def stored(game: Game) -> tuple:
    """What a refused request must leave as it was."""
    game.refresh_from_db()
    return (
        Hand.objects.filter(game=game).count(),
        ScoreEvent.objects.filter(game=game).count(),
        game.totals,
        game.tallies,
        game.hand_count,
        game.revision,
    )


def refused(response, field: str) -> dict:
    assert response.status_code == 400, (response.status_code, response.content[:300])
    body = response.json()
    assert field in str(body["errors"]), body
    return body


@pytest.mark.parametrize("value", [*OUT_OF_RANGE, 0, LAST_HAND + 1])
def test_a_hand_number_outside_1_to_10000_is_refused(api, game, value):
    before = stored(game)
    response = api.post(
        f"/api/v1/games/{game.pk}/hands/", {"number": value, **BLOCK}, format="json"
    )
    body = refused(response, "number")
    assert body["errors"]["number"] == ["Give a whole number from 1 to 10000."]
    assert stored(game) == before


@pytest.mark.parametrize("value", [*OUT_OF_RANGE, MOST_PIPS + 1])
def test_pips_no_table_can_leave_are_refused(api, game, value):
    before = stored(game)
    body = {"number": 1, "ended": "block", "pips": {"A": 8, "B": value, "C": 22, "D": 12}}
    response = api.post(f"/api/v1/games/{game.pk}/hands/", body, format="json")
    refused(response, "pips")
    assert stored(game) == before


@pytest.mark.parametrize("value", [*OUT_OF_RANGE, 0, MOST_PLAY_POINTS + 5, 4294967306])
def test_in_play_points_outside_one_play_are_refused(api, game, value):
    before = stored(game)
    body = {"number": 1, **BLOCK, "in_play": [{"seat": "A", "points": value}]}
    response = api.post(f"/api/v1/games/{game.pk}/hands/", body, format="json")
    refused(response, "points")
    assert stored(game) == before


def test_one_set_caps_a_play_at_35(api, game):
    body = {"number": 1, **BLOCK, "in_play": [{"seat": "A", "points": 40}]}
    response = api.post(f"/api/v1/games/{game.pk}/hands/", body, format="json")
    assert "No play can score 40" in str(refused(response, "points"))


def test_a_thousand_in_play_entries_do_not_end_a_game(api, game):
    before = stored(game)
    body = {"number": 1, **BLOCK, "in_play": [{"seat": "A", "points": 5}] * 1000}
    response = api.post(f"/api/v1/games/{game.pk}/hands/", body, format="json")
    assert refused(response, "in_play")["errors"]["in_play"] == [
        "A hand has at most 56 in-play scores: one per tile played."
    ]
    assert stored(game) == before


def test_a_hand_has_no_more_in_play_scores_than_tiles(api, game):
    """Cutthroat plays one set: 28 tiles, so 28 in-play scores at most, whether sent with
    the hand or point by point during it."""
    too_many = {"number": 1, **BLOCK, "in_play": [{"seat": "A", "points": 5}] * 29}
    response = api.post(f"/api/v1/games/{game.pk}/hands/", too_many, format="json")
    assert "at most 28 tiles" in str(refused(response, "in_play"))
    live = {"hand": 1, "seat": "B", "kind": "in_play", "points": 5}
    for _ in range(28):
        assert api.post(f"/api/v1/games/{game.pk}/events/", live, format="json").status_code == 201
    before = stored(game)
    response = api.post(f"/api/v1/games/{game.pk}/events/", live, format="json")
    assert "would have 29" in str(refused(response, "hand"))
    assert stored(game) == before
    hand = api.post(f"/api/v1/games/{game.pk}/hands/", {"number": 1, **BLOCK}, format="json")
    assert hand.status_code == 201
    assert hand.json()["game"]["sides"][1]["total"] == 140


@pytest.mark.parametrize("value", [*HUGE, 4294967306, -4294967306, 501, -501, 10**30])
def test_a_penalty_outside_1_to_500_points_is_refused(api, game, value):
    before = stored(game)
    body = {"hand": 1, "seat": "A", "kind": "penalty", "points": value}
    response = api.post(f"/api/v1/games/{game.pk}/events/", body, format="json")
    refused(response, "points")
    assert stored(game) == before


def test_a_penalty_of_500_written_either_way_deducts_500(api, game):
    for points in (500, -500):
        body = {"hand": 1, "seat": "A", "kind": "penalty", "points": points}
        assert api.post(f"/api/v1/games/{game.pk}/events/", body, format="json").status_code == 201
    game.refresh_from_db()
    assert game.totals["A"] == -1000
    assert game.tallies["A"]["penalties"] == 1000


@pytest.mark.parametrize(
    ("kind", "field", "value"),
    [
        ("in_play", "points", 2**63),
        ("in_play", "hand", 2**31),
        ("steal", "points", 10**30),
        ("forced_pass", "hand", -(2**63)),
    ],
)
def test_event_numbers_outside_their_range_are_refused(referee, kind, field, value):
    api = APIClient()
    api.force_authenticate(referee)
    game = start_game("two_box_cutthroat", 4, referee=referee)
    before = stored(game)
    body = {"hand": 1, "seat": "A", "kind": kind, "points": 10, field: value}
    response = api.post(f"/api/v1/games/{game.pk}/events/", body, format="json")
    refused(response, field)
    assert stored(game) == before


@pytest.mark.parametrize("value", [*OUT_OF_RANGE, 0])
def test_a_correction_with_an_impossible_version_is_refused(api, game, value):
    assert api.post(f"/api/v1/games/{game.pk}/hands/", {"number": 1, **BLOCK}, format="json")
    before = stored(game)
    body = {**BLOCK, "reason": "typo", "expected_version": value}
    response = api.put(f"/api/v1/games/{game.pk}/hands/1/", body, format="json")
    refused(response, "expected_version")
    assert stored(game) == before


@pytest.mark.parametrize("path", ["", "hands/1/", "hands/1/history/"])
@pytest.mark.parametrize("value", [2**63, 10**30])
def test_ids_and_numbers_in_the_address_beyond_any_column_are_not_found(api, game, path, value):
    assert api.get(f"/api/v1/games/{value}/{path}").status_code in (404, 405)
    assert api.get(f"/api/v1/games/{game.pk}/hands/{value}/history/").status_code == 404


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"target": 10**30}, "target"),
        ({"target": 2**32 + 10}, "target"),
        ({"target": 0}, "target"),
        ({"penalty_points": 4294967306}, "penalty_points"),
        ({"hand_size": 2**63}, "hand_size"),
    ],
)
def test_a_game_with_rules_outside_their_range_is_refused(api, overrides, field):
    body = {"ruleset": "cutthroat", "seats": ["A", "B", "C", "D"], "overrides": overrides}
    refused(api.post("/api/v1/games/", body, format="json"), field)
    refused(
        api.post(
            "/api/v1/rulesets/cutthroat/score/", {**BLOCK, "overrides": overrides}, format="json"
        ),
        field,
    )
    assert not Game.objects.exists()


@pytest.mark.parametrize("value", [*HUGE, 0, -1])
def test_a_seat_given_by_an_id_beyond_any_player_is_refused(api, value):
    body = {"ruleset": "cutthroat", "seats": [PlayerFactory().pk, value, "C", "D"]}
    refused(api.post("/api/v1/games/", body, format="json"), "seats")
    assert not Game.objects.exists()


@pytest.mark.parametrize("value", HUGE)
def test_the_calculator_refuses_pips_no_hand_holds(value):
    body = {"ended": "block", "pips": {"A": value, "B": 15, "C": 22, "D": 12}}
    refused(APIClient().post("/api/v1/rulesets/cutthroat/score/", body, format="json"), "pips")


# --- a property over every whole-number slot of a hand body ---------------------------------

SLOTS = {
    # slot: (its valid range, where it goes in the body)
    "number": (1, LAST_HAND),
    "pips": (0, MOST_PIPS),
    "points": (5, MOST_PLAY_POINTS),
}


def outside(low: int, high: int):
    return st.one_of(
        st.sampled_from(OUT_OF_RANGE),
        st.integers(max_value=low - 1),
        st.integers(min_value=high + 1),
    ).filter(lambda value: not low <= value <= high)


@st.composite
def bodies_with_one_number_out_of_range(draw):
    slot = draw(st.sampled_from(sorted(SLOTS)))
    value = draw(outside(*SLOTS[slot]))
    body = {"number": 1, **BLOCK, "pips": dict(BLOCK["pips"])}
    body["in_play"] = [{"seat": "B", "points": 10}]
    if slot == "number":
        body["number"] = value
    elif slot == "pips":
        body["pips"][draw(st.sampled_from("ABCD"))] = value
    else:
        body["in_play"][0]["points"] = value
    return slot, body


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=bodies_with_one_number_out_of_range())
def test_any_number_out_of_range_in_a_hand_body_is_a_400_that_stores_nothing(api, game, case):
    slot, body = case
    before = stored(game)
    response = api.post(f"/api/v1/games/{game.pk}/hands/", body, format="json")
    refused(response, slot)
    assert stored(game) == before


def test_verify_games_stays_clean_after_out_of_range_values_are_thrown_at_the_api(
    api, game, referee
):
    url = f"/api/v1/games/{game.pk}"
    assert api.post(f"{url}/hands/", {"number": 1, **BLOCK}, format="json").status_code == 201
    assert (
        api.post(
            f"{url}/events/", {"hand": 2, "seat": "C", "kind": "penalty"}, format="json"
        ).status_code
        == 201
    )
    for value in [*HUGE, -(2**31), -(2**63)]:
        answers = [
            api.post(
                f"{url}/events/",
                {"hand": 2, "seat": "A", "kind": "penalty", "points": value},
                format="json",
            ),
            api.post(
                f"{url}/events/",
                {"hand": 2, "seat": "A", "kind": "in_play", "points": value},
                format="json",
            ),
            api.post(f"{url}/hands/", {"number": value, **BLOCK}, format="json"),
            api.post(
                f"{url}/hands/",
                {"number": 2, **BLOCK, "in_play": [{"seat": "A", "points": value}]},
                format="json",
            ),
            api.post(
                f"{url}/hands/",
                {"number": 2, "ended": "block", "pips": {"A": value, "B": 1, "C": 1, "D": 1}},
                format="json",
            ),
            api.put(
                f"{url}/hands/1/",
                {**BLOCK, "reason": "x", "expected_version": value},
                format="json",
            ),
        ]
        assert {answer.status_code for answer in answers} == {400}
    game.refresh_from_db()
    assert game.totals == {"A": 40, "B": 0, "C": -10, "D": 0}
    call_command("verify_games")  # exits 1 on any disagreement

"""Random hand bodies through the API: valid ones stored exactly, invalid ones 400, never 500."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from scoring.engine import score_hand
from scoring.models import Hand
from scoring.rulesets import RuleSet
from tests.factories import UserFactory, start_game

pytestmark = pytest.mark.django_db

SEATS = ["A", "B", "C", "D"]
junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-100, 200),
    st.text(max_size=3),
    st.lists(st.integers(-1, 8), max_size=3),
    st.dictionaries(st.text(max_size=2), st.integers()),
)
valid_pips = st.fixed_dictionaries({seat: st.integers(0, 40) for seat in SEATS})


@st.composite
def valid_hands(draw):
    pips = draw(valid_pips)
    domino_by = draw(st.one_of(st.none(), st.sampled_from(SEATS)))
    if domino_by:
        pips[domino_by] = 0
    body = {
        "ended": "domino" if domino_by else "block",
        "pips": pips,
        "leader": draw(st.sampled_from(SEATS)),
    }
    if domino_by:
        body["domino_by"] = domino_by
    in_play = draw(
        st.lists(st.tuples(st.sampled_from(SEATS), st.sampled_from([5, 10, 15, 20])), max_size=3)
    )
    body["in_play"] = [{"seat": seat, "points": points} for seat, points in in_play]
    return body


@st.composite
def invalid_hands(draw):
    body = draw(valid_hands())
    field = draw(
        st.sampled_from(
            [
                "ended",
                "pips",
                "domino_by",
                "leader",
                "in_play",
                "number",
                "negative",
                "too_many",
                "missing_seat",
                "out_with_pips",
            ]
        )
    )
    if field == "negative":
        body["pips"]["B"] = -draw(st.integers(1, 50))
    elif field == "too_many":
        body["pips"]["C"] = draw(st.integers(70, 10_000))
    elif field == "missing_seat":
        body["pips"].pop("D")
    elif field == "out_with_pips":
        body.update(ended="domino", domino_by="A")
        body["pips"]["A"] = draw(st.integers(1, 30))
    elif field == "in_play":
        body["in_play"] = [{"seat": "A", "points": draw(st.sampled_from([3, -5, 0, 40, 500]))}]
    elif field == "number":
        body["number"] = draw(st.one_of(junk, st.integers(-5, 0)))
    else:
        # None is a fine leader and a fine domino_by for a block: leave it out here.
        body[field] = draw(
            junk.filter(lambda value: value is not None and value not in (*SEATS, *"ABCD")).filter(
                lambda value: value not in ("block", "domino")
            )
        )
    return body


@pytest.fixture(scope="module")
def referee(django_db_blocker):
    with django_db_blocker.unblock():
        return UserFactory(username="hypothesis-referee")


def fresh_game(referee):
    return start_game("cutthroat", 4, referee=referee, overrides={"target": 5000})


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(hands=st.lists(valid_hands(), min_size=1, max_size=4))
def test_valid_hands_are_stored_and_totals_equal_the_engine(hands):
    referee = UserFactory()
    client = APIClient()
    client.force_authenticate(referee)
    game = fresh_game(referee)
    rules = RuleSet.from_dict(game.ruleset)
    expected = dict.fromkeys(SEATS, 0)
    for number, body in enumerate(hands, start=1):
        response = client.post(
            f"/api/v1/games/{game.pk}/hands/", {"number": number, **body}, format="json"
        )
        assert response.status_code == 201, response.json()
        result = score_hand(
            rules,
            seats=SEATS,
            pips=body["pips"],
            domino_by=body.get("domino_by"),
            leader=body["leader"],
        )
        for side, award in result.awards.items():
            expected[side] += award
        for entry in body["in_play"]:
            expected[entry["seat"]] += entry["points"]
    game.refresh_from_db()
    assert game.totals == expected
    assert Hand.objects.filter(game=game).count() == len(hands)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=invalid_hands())
def test_invalid_hands_are_400_and_change_nothing(body):
    referee = UserFactory()
    client = APIClient()
    client.force_authenticate(referee)
    game = fresh_game(referee)
    payload = {"number": 1, **body}
    response = client.post(f"/api/v1/games/{game.pk}/hands/", payload, format="json")
    assert response.status_code in (400, 409), (payload, response.json())
    if response.status_code == 409:  # a wrong number that is a whole number: out of turn
        assert isinstance(payload["number"], int)
    body = response.json()
    assert body["detail"]
    assert isinstance(body["errors"], dict)
    game.refresh_from_db()
    assert game.hand_count == 0
    assert not Hand.objects.filter(game=game).exists()
    assert set(game.totals.values()) == {0}

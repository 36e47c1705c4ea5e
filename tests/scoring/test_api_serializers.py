"""The hand body read without the serializer agrees with the serializer, refusals included."""

import pytest
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.exceptions import ValidationError

from scoring.api.serializers import HandInputSerializer, plain_hand_body, validated_hand_body

SEATS = ["A", "B", "C", "D"]
FIELDS = ["number", "ended", "domino_by", "leader", "pips", "tiles", "lowest_tiles", "in_play"]

ODD_LETTERS = ["", " ", "\t", "AB", " A", "A ", "\x00", "\ud800", "é", "a", "1", 5, 5.0, True]
ODD_NUMBERS = [0, 1, 10_000, 10_001, -3, 5.0, 2.5, "5", " 5", "", "1e3", True, False, 2**70]
ODD_SHAPES = [None, [], {}, [1], {"A": 1}]
odd_letters = st.one_of(st.sampled_from(ODD_LETTERS + ODD_SHAPES), st.text(max_size=2))
odd_numbers = st.one_of(st.sampled_from(ODD_NUMBERS + ODD_SHAPES), st.integers())
junk = st.one_of(
    odd_letters,
    odd_numbers,
    st.sampled_from(["block", "domino", "Block", " block"]),
    st.lists(st.integers(-1, 8), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)
seat_letters = st.sampled_from(SEATS)
tiles = st.dictionaries(seat_letters, st.lists(st.lists(st.integers(0, 6), min_size=2, max_size=2)))
in_play_entries = st.one_of(
    st.fixed_dictionaries({"seat": odd_letters, "points": st.sampled_from([5, 10])}),
    st.fixed_dictionaries(
        {"seat": seat_letters, "points": odd_numbers}, optional={"note": st.just("x")}
    ),
    st.dictionaries(st.sampled_from(["seat", "points"]), junk),
    junk,
)
odd_values = {
    "number": st.one_of(st.integers(-2, 10_002), odd_numbers),
    "ended": junk,
    "domino_by": st.one_of(seat_letters, odd_letters),
    "leader": st.one_of(seat_letters, odd_letters),
    "pips": st.one_of(
        st.dictionaries(st.one_of(seat_letters, st.text(max_size=2)), junk, max_size=4), junk
    ),
    "tiles": st.one_of(tiles, junk),
    "lowest_tiles": st.one_of(tiles, junk),
    "in_play": st.one_of(st.lists(in_play_entries, min_size=1, max_size=3), junk),
}


@st.composite
def well_formed_bodies(draw):
    domino_by = draw(st.one_of(st.none(), seat_letters))
    body = {
        "number": draw(st.integers(1, 10_000)),
        "ended": "domino" if domino_by else "block",
        "pips": draw(st.fixed_dictionaries({seat: st.integers(0, 40) for seat in SEATS})),
        "in_play": [
            {"seat": seat, "points": points}
            for seat, points in draw(
                st.lists(st.tuples(seat_letters, st.sampled_from([5, 10, 15])), max_size=3)
            )
        ],
    }
    if domino_by or draw(st.booleans()):
        body["domino_by"] = domino_by
    if draw(st.booleans()):
        body["leader"] = draw(st.one_of(st.none(), seat_letters))
    return body


@st.composite
def hand_bodies(draw):
    """A well-formed body with one or two fields changed to something odd, or left out."""
    body = draw(well_formed_bodies())
    for field in draw(st.lists(st.sampled_from(FIELDS), min_size=1, max_size=2, unique=True)):
        if draw(st.booleans()):
            body[field] = draw(odd_values[field])
        else:
            body.pop(field, None)
    if draw(st.booleans()):
        body["comment"] = draw(junk)
    return body


def serializer_answer(body):
    serializer = HandInputSerializer(data=body)
    if serializer.is_valid():
        return serializer.validated_data
    return ValidationError(serializer.errors)


def assert_read_as_the_serializer_validates_it(body):
    expected = serializer_answer(body)
    if isinstance(expected, ValidationError):
        assert plain_hand_body(body) is None
        with pytest.raises(ValidationError) as refused:
            validated_hand_body(body)
        assert refused.value.detail == expected.detail
    else:
        assert validated_hand_body(body) == expected


@settings(max_examples=500, deadline=None)
@given(body=hand_bodies())
def test_a_hand_body_is_read_as_the_serializer_validates_it(body):
    assert_read_as_the_serializer_validates_it(body)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        *[("number", value) for value in ODD_NUMBERS + ODD_SHAPES],
        *[("domino_by", value) for value in ODD_LETTERS + ODD_SHAPES],
        *[("leader", value) for value in ODD_LETTERS + ODD_SHAPES],
        *[("seat", value) for value in ODD_LETTERS + ODD_SHAPES],
        *[("points", value) for value in ODD_NUMBERS + ODD_SHAPES],
        *[("ended", value) for value in ["Block", " block", "block ", "", None, 1]],
        *[("pips", value) for value in [*ODD_SHAPES, {"A": "8"}, {"A": None}, {"A": 1.5}]],
        *[("in_play", value) for value in [*ODD_SHAPES, "A", [None], [[]], [{"seat": "A"}]]],
    ],
)
def test_an_odd_value_gets_the_serializers_answer(field, value):
    body = {"number": 2, "ended": "domino", "domino_by": "A", "pips": {"A": 0, "B": 9}}
    body["in_play"] = [{"seat": "B", "points": 10}]
    if field in {"seat", "points"}:
        body["in_play"][0][field] = value
    else:
        body[field] = value
    assert_read_as_the_serializer_validates_it(body)


@settings(max_examples=100, deadline=None)
@given(body=well_formed_bodies())
def test_a_well_formed_hand_body_is_read_without_the_serializer(body):
    assert plain_hand_body(body) == serializer_answer(body)


def test_the_plain_reading_gives_every_field_the_serializer_gives():
    body = {"number": 1, "ended": "block", "pips": {"A": 8, "B": 15}}
    assert set(plain_hand_body(body)) == set(HandInputSerializer().fields)


def test_a_refusal_is_worded_in_each_callers_language():
    body = {"number": 10_001, "ended": "block", "pips": {"A": 1}}
    words = {}
    for language in ["en", "es", "en", "es"]:
        with translation.override(language), pytest.raises(ValidationError) as refused:
            validated_hand_body(body)
        words.setdefault(language, set()).add(str(refused.value.detail["number"][0]))
    assert words["en"] == {"Give a whole number from 1 to 10000."}
    assert len(words["es"]) == 1
    assert words["es"] != words["en"]

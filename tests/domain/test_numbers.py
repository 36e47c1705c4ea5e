"""domain/numbers.py: whole numbers as typed, ASCII digits within 64 bits."""

import pytest

from domain.numbers import MAX_INTEGER, whole_number


@pytest.mark.parametrize(
    ("text", "number"),
    [("0", 0), ("7", 7), (" 12 ", 12), (3, 3), (str(MAX_INTEGER), MAX_INTEGER)],
)
def test_ascii_digits_read_as_their_number(text, number):
    assert whole_number(text) == number


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        " ",
        "²",
        "\u0661",
        "1²",
        "-1",
        "+1",
        "1.0",
        "1e3",
        "0x1",
        str(MAX_INTEGER + 1),
        "9" * 400,
    ],
)
def test_anything_else_is_none(text):
    assert whole_number(text) is None


def test_a_maximum_caps_the_number():
    assert whole_number("10", maximum=9) is None
    assert whole_number("9", maximum=9) == 9

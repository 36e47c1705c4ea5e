"""Reading and checking numbers against their bounds."""

import pytest

from scoring.bounds import ID_MAX, INTEGER_MAX, MAX_PLAY_POINTS, SMALLINT_MAX, digits, within


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7", 7),
        (" 12 ", 12),
        ("007", 7),
        ("100", 100),
        ("101", None),
        ("0", None),
        ("", None),
        ("-3", None),
        ("+3", None),
        ("3.0", None),
        ("1e2", None),
        ("²", None),  # str.isdigit says yes; int() refuses it
        ("٣", None),  # an Arabic-Indic three: int() would read it, a form should not
        ("4294967299", None),
        (str(2**63), None),
        ("9" * 5000, None),
        (None, None),
        (7, None),
    ],
)
def test_digits_reads_only_ascii_whole_numbers_inside_the_bounds(text, expected):
    assert digits(text, (1, 100)) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1, True), (100, True), (0, False), (101, False), (True, False), (5.0, False), ("5", False)],
)
def test_within_takes_whole_numbers_only(value, expected):
    assert within(value, (1, 100)) is expected


def test_the_columns_ranges_are_postgresqls():
    assert (SMALLINT_MAX, INTEGER_MAX, ID_MAX) == (32_767, 2_147_483_647, 9_223_372_036_854_775_807)


def test_one_play_scores_at_most_35_with_one_set_and_40_with_two():
    assert MAX_PLAY_POINTS == {1: 35, 2: 40}

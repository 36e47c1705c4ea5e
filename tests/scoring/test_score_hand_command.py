"""The score_hand command prints the award per side."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command


def run(*args: str) -> str:
    out = StringIO()
    call_command("score_hand", *args, stdout=out)
    return out.getvalue()


def test_dcs_block_from_the_terminal():
    out = run("dcs", "--block", "A=8", "B=15", "C=22", "D=12")
    assert "A: 25" in out
    assert "Won by: A" in out


def test_domino_shows_the_rounding():
    out = run("cutthroat", "--domino", "A", "A=0", "B=13", "C=9", "D=5")
    assert "A: 25 (27 rounded)" in out


def test_overrides_and_lowest_tiles():
    out = run(
        "two_box",
        "--block",
        "A=5",
        "B=5",
        "C=20",
        "D=10",
        "--lowest-tile",
        "A=0-2",
        "--lowest-tile",
        "B=1-1",
        "--set",
        "rounding=nearest_5",
    )
    assert "A: 30" in out


def test_an_impossible_hand_is_a_command_error():
    with pytest.raises(CommandError, match="pips: Seat B cannot hold fewer than 0 pips"):
        run("dcs", "--block", "A=8", "B=-1", "C=22", "D=12")


def test_badly_written_pips_are_a_command_error():
    with pytest.raises(CommandError, match="SEAT=PIPS"):
        run("dcs", "--block", "A8")

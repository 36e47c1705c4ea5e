"""Correcting or voiding a hand reads the game once, under its lock: the new version is
written against the locked game, not a second read of it."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.services import correct_hand, record_hand, void_hand
from tests.factories import UserFactory, start_game

pytestmark = pytest.mark.django_db

GAME_READ = re.compile(r'^SELECT .*? FROM "?scoring_game"?[ ;]', re.IGNORECASE | re.DOTALL)


def game_reads(act) -> int:
    with CaptureQueriesContext(connection) as queries:
        act()
    return sum(bool(GAME_READ.match(query["sql"])) for query in queries.captured_queries)


@pytest.fixture
def played():
    referee = UserFactory()
    game = start_game("cutthroat", 4, referee=referee)
    record_hand(game, by=referee, number=1, ended="domino", domino_by="A",
                pips={"A": 0, "B": 10, "C": 15, "D": 5})  # fmt: skip
    return game, referee


def test_voiding_a_hand_reads_the_game_once(played):
    game, referee = played
    assert game_reads(lambda: void_hand(game, 1, by=referee, reason="misdeal")) == 1


def test_correcting_a_hand_reads_the_game_once(played):
    game, referee = played

    def correct():
        correct_hand(game, 1, by=referee, reason="pips", expected_version=1, ended="domino",
                     domino_by="A", pips={"A": 0, "B": 20, "C": 15, "D": 5})  # fmt: skip

    assert game_reads(correct) == 1

"""The database refuses numbers outside the games' bounds, even from a write that goes
around the services."""

import pytest
from django.db import IntegrityError, transaction

from scoring.models import Game, Hand, ScoreEvent
from tests.factories import UserFactory, start_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def game():
    return start_game("cutthroat", 4, referee=UserFactory())


def event(game: Game, kind: str, points: int) -> ScoreEvent:
    seat = game.seats.get(name="A")
    return ScoreEvent(game=game, hand_number=1, seat=seat, side=seat.side, kind=kind, points=points)


@pytest.mark.parametrize(
    ("kind", "points"),
    [
        ("in_play", 45),
        ("in_play", 7),
        ("in_play", 0),
        ("in_play", -10),
        ("steal", 85),
        ("stolen", -85),
        ("penalty", -501),
        ("penalty", 10),
        ("forced_pass", 5),
    ],
)
def test_an_event_outside_its_kinds_range_is_refused(game, kind, points):
    with pytest.raises(IntegrityError), transaction.atomic():
        event(game, kind, points).save()


@pytest.mark.parametrize(
    ("kind", "points"),
    [("in_play", 5), ("in_play", 40), ("steal", 80), ("stolen", -80), ("penalty", -500)],
)
def test_an_event_at_the_ends_of_its_range_is_kept(game, kind, points):
    event(game, kind, points).save()


def test_a_hand_number_past_10000_is_refused(game):
    with pytest.raises(IntegrityError), transaction.atomic():
        Hand.objects.create(game=game, number=10_001, ended="block", pips={}, awards={})


@pytest.mark.parametrize("target", [0, 24, 5_001, 2**31 - 1])
def test_a_game_frozen_with_a_target_outside_its_range_is_refused(game, target):
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.filter(pk=game.pk).update(
            status="in_progress", ruleset={**(game.ruleset or {}), "target": target}
        )


def test_a_game_frozen_with_a_target_inside_its_range_is_kept(game):
    Game.objects.filter(pk=game.pk).update(
        status="in_progress", ruleset={**(game.ruleset or {}), "target": 5_000}
    )

"""The ratings hear of a game in play only when it finishes: who leads, a redeal or the
round's clock calling time ask no rating work; a finished game's change does."""

from unittest import mock

import pytest

from circuit.models import RatingsDirty
from jobs import runner
from scoring.models import Game
from scoring.signals import game_changed
from tests.factories import start_game

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("change", ["leader_set", "redeal", "time_limit", "hand_recorded"])
def test_a_game_in_play_asks_no_ratings(change):
    game = start_game()
    with mock.patch.object(runner, "request") as requested:
        game_changed.send(
            sender=Game, game_id=game.pk, change=change, followed=True, status="in_progress"
        )
    assert not RatingsDirty.objects.exists()
    assert not [call for call in requested.call_args_list if call.args[0] == "ratings"]


def test_a_finished_games_change_asks_for_the_ratings():
    game = start_game()
    with mock.patch.object(runner, "request") as requested:
        game_changed.send(
            sender=Game, game_id=game.pk, change="redeal", followed=True, status="finished"
        )
    assert RatingsDirty.objects.filter(game_id=game.pk).exists()
    assert [call.args for call in requested.call_args_list] == [("ratings",)]

"""scoring/statements.py: the game's lock reads the row as the ORM would, and says
whether the caller referees the game as an answer of its own."""

import pytest
from django.db import transaction

from scoring import statements
from scoring.models import Game
from tests.factories import UserFactory, start_game

pytestmark = pytest.mark.django_db


def test_the_locked_game_reads_as_the_orm_reads_it():
    game = start_game("cutthroat", 4)
    with transaction.atomic():
        locked = statements.lock_game(game.pk)
    stored = Game.objects.get(pk=game.pk)
    for field in Game._meta.concrete_fields:
        assert getattr(locked, field.attname) == getattr(stored, field.attname), field.name


def test_the_lock_says_whether_the_caller_referees_the_game():
    referee, other = UserFactory(), UserFactory()
    game = start_game("cutthroat", 4, referee=referee)
    with transaction.atomic():
        locked, referees = statements.lock_game_for(game.pk, referee)
        assert locked.pk == game.pk and referees is True
        assert statements.lock_game_for(game.pk, other)[1] is False
        assert statements.lock_game_for(game.pk, None)[1] is False
    # The answer is returned, never left on the model for a permission rule to find.
    assert not hasattr(locked, "referee_answer")


def test_an_unknown_game_is_no_lock():
    with pytest.raises(Game.DoesNotExist), transaction.atomic():
        statements.lock_game(2**62)

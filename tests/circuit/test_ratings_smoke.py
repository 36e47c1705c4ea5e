import pytest

from circuit.models import Rating, RatingChange
from circuit.services.ratings import rebuild_all
from tests.circuit.helpers import played_game

pytestmark = pytest.mark.django_db


def test_smoke(committed):
    game = played_game(committed=committed)
    assert game.status == "finished"
    assert Rating.objects.count() == 4
    before = list(Rating.objects.order_by("player_id").values_list("mu", "sigma", "games"))
    rebuild_all()
    after = list(Rating.objects.order_by("player_id").values_list("mu", "sigma", "games"))
    assert before == after
    assert RatingChange.objects.count() == 4

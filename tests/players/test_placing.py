"""A player's events show a placing only once a game of theirs counts."""

import random

import pytest

from players.models import Player
from scoring.models import Game
from tests.factories import client_for
from tests.test_pages import make_event
from tournaments.demo import play
from tournaments.read.standings_store import rebuild_standings

pytestmark = pytest.mark.django_db


def events_of(name: str) -> list[dict]:
    player = Player.objects.get(display_name=name)
    return client_for(None).get(f"/api/v1/players/{player.pk}/").json()["events"]


def test_no_placing_before_a_game_of_theirs_counts(organizer):
    tournament, round_ = make_event(organizer, slug="copa", players=8)
    rebuild_standings(tournament.pk)  # standings of a field that has played nothing
    assert [line["placing"] for line in events_of("Player 00")] == [None]
    game = Game.objects.filter(match__round=round_).order_by("pk").first()
    played = set(game.seats.values_list("player__display_name", flat=True))
    play(game, organizer, random.Random(1))
    rebuild_standings(tournament.pk)
    for number in range(8):
        name = f"Player {number:02d}"
        [line] = events_of(name)
        if name in played:
            assert 1 <= line["placing"] <= 4, name
        else:
            assert line["placing"] is None, name

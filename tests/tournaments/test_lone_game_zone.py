"""A game played outside any event: its page's unchanged poll asks the database nothing,
as an event game's does (the time-zone middleware remembers that it has no event)."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.services import start_game
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def test_a_lone_games_unchanged_poll_runs_no_query(client):
    game = start_game(
        ruleset_key="cutthroat",
        seats=[PlayerFactory() for _ in range(4)],
        referees=[UserFactory()],
    )
    page = client.get(f"/games/{game.pk}/").content.decode()
    url = re.search(r'id="game-live"[^>]* hx-get="([^"]+)"', page).group(1).replace("&amp;", "&")
    assert client.get(url, **HTMX).status_code == 204
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url, **HTMX).status_code == 204
    assert [query["sql"] for query in queries] == []


def test_no_such_game_is_not_remembered_as_a_lone_one(client):
    assert client.get("/games/987654/").status_code == 404
    game = start_game(
        ruleset_key="cutthroat",
        seats=[PlayerFactory() for _ in range(4)],
        referees=[UserFactory()],
    )
    assert client.get(f"/games/{game.pk}/").status_code == 200

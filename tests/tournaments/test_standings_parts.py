"""The standings page lists those who played, then those who have not, then the
withdrawn, and says so."""

import random
import re

import pytest

from scoring.models import Game
from tests.factories import UserFactory
from tests.test_pages import make_event
from tournaments import services
from tournaments.demo import play
from tournaments.read.standings_store import rebuild_standings

pytestmark = pytest.mark.django_db


def test_the_standings_page_shows_who_played_first_and_the_withdrawn_last(client):
    organizer = UserFactory(username="organizer")
    tournament, round_ = make_event(organizer, slug="copa", players=8)
    games = list(Game.objects.filter(match__round=round_).order_by("pk"))
    play(games[0], organizer, random.Random(3))
    played = set(games[0].seats.values_list("player__display_name", flat=True))
    # One who played withdraws (withdrawing one who has not would forfeit their table).
    gone = tournament.entrants.filter(name__in=played).order_by("seed").first()
    services.withdraw(gone, by=organizer)
    rebuild_standings(tournament.pk)
    page = client.get("/t/copa/").content.decode()
    body = page[page.index('<table class="standings">') :]
    names = re.findall(r'<th scope="row"><a href="[^"]*">([^<]+)</a>', body)
    assert set(names[:3]) == played - {gone.name}
    assert not set(names[3:7]) & played
    assert names[-1] == gone.name
    assert body.count("part-end") == 2
    assert "has played; those below have not played a game yet" in body
    assert "still in the event; those below withdrew or were disqualified" in body
    assert "Entrants who have not played a game yet are listed after those who have" in page

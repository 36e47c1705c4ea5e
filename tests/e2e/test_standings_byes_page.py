"""The standings page says what a bye scores in the stage, on a phone and a desktop, in
English and Spanish."""

import pytest
from django.utils import translation

from tests.factories import UserFactory
from tests.tournaments.test_standings_byes import dcs_night
from tournaments.read.standings_store import rebuild_standings

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {"390": {"width": 390, "height": 844}, "1280": {"width": 1280, "height": 900}}
SENTENCE = (
    "A bye (sitting out a round when the field does not divide into tables) counts as a "
    "game won, with points for equal to that round's winners' average points for (to "
    "hundredths of a point; none until a game of the round is won) and no points against."
)


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_standings_say_what_a_bye_scores(live_server, browser, language):
    tournament, _ = dcs_night(UserFactory(username="organizer"), {}, rounds=1)
    rebuild_standings(tournament.pk)
    with translation.override(language):
        sentence = translation.gettext(SENTENCE)
    for size, viewport in SIZES.items():
        context = browser.new_context(viewport=viewport, locale=language)
        page = context.new_page()
        page.goto(f"{live_server.url}/t/{tournament.slug}/")
        told = page.locator("#standings [data-bye-scores=round_winners_average]")
        assert told.inner_text() == sentence and told.is_visible()
        box = told.bounding_box()
        assert box is not None and box["x"] + box["width"] <= viewport["width"]
        told.scroll_into_view_if_needed()
        page.screenshot(path=f"/tmp/shots-standings-byes/standings-{size}-{language}.png")
        context.close()

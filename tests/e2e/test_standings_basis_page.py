"""The standings page says how the stage compares points across table sizes, on a phone
and a desktop, in English and Spanish."""

import pytest
from django.utils import translation

from tests.tournaments.test_standings_basis import _event
from tournaments.read.standings_store import rebuild_standings

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {"390": {"width": 390, "height": 844}, "1280": {"width": 1280, "height": 900}}
SENTENCE = (
    "Points for and against count as a share of each table's target, told in points at "
    "this stage's own table size: a table's points \u00d7 the stage's target ÷ that table's "
    "target."
)


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_standings_name_their_points_basis(live_server, browser, language):
    tournament, _ = _event(None)
    rebuild_standings(tournament.pk)
    with translation.override(language):
        sentence = translation.gettext(SENTENCE)
    for size, viewport in SIZES.items():
        context = browser.new_context(viewport=viewport, locale=language)
        page = context.new_page()
        page.goto(f"{live_server.url}/t/{tournament.slug}/")
        told = page.locator("#standings [data-points-basis=target_share]")
        assert told.inner_text() == sentence and told.is_visible()
        # The table of three's winner (200 of 200) leads the table of four's (240 of 250).
        first = page.locator("#standings tbody tr").first
        assert "E1" in first.inner_text() and "250" in first.inner_text()
        told.scroll_into_view_if_needed()
        page.screenshot(path=f"/tmp/shots-standings-basis/standings-{size}-{language}.png")
        context.close()

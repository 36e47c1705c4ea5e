"""The round clock on a table's scoring page at phone size, in English and Spanish: it
counts down in the browser and says when time is called, without a reload."""

from datetime import timedelta

import pytest
from django.utils import timezone

from scoring.models import Game
from tests.e2e.conftest import log_in
from tests.factories import UserFactory
from tests.tournaments.test_round_clock import timed_event
from tournaments.models import Round

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"
PHONE = {"width": 390, "height": 844}
WORDS = {
    "en-US": (
        "Round time left",
        "Time is called.",
        "Finish the hand in play and 1 more hand",
        "Time is called in round 1.",
    ),
    "es-ES": (
        "Tiempo restante de la ronda",
        "Se cumplió el tiempo.",
        "Termine la mano en juego y 1 mano más",
        "Se cumplió el tiempo de la ronda 1.",
    ),
}


def seconds(text: str) -> int:
    minutes, secs = text.split(":")[-2:]
    return int(minutes) * 60 + int(secs)


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_the_scoring_page_counts_down_and_says_when_time_is_called(
    live_server, browser, shot, locale
):
    organizer = UserFactory(username="reloj", password=PASSWORD)
    tournament, round_ = timed_event(organizer, minutes=30, hands=1)
    game = round_.matches.order_by("table_number").first().game
    running, called, rule, hall = WORDS[locale]
    context = browser.new_context(viewport=PHONE, locale=locale, device_scale_factor=1)
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        log_in(page, live_server.url, "reloj", PASSWORD, f"/games/{game.pk}/score/")
        clock = page.locator("#round-clock")
        clock.wait_for()
        assert running in clock.inner_text()
        left = page.locator("#round-clock [data-left]")
        first = seconds(left.inner_text())
        assert 29 * 60 < first <= 30 * 60
        page.wait_for_function(
            f"() => document.querySelector('#round-clock [data-left]').textContent !== "
            f"'{left.inner_text()}'"
        )
        assert seconds(left.inner_text()) < first  # ticking in the page, no reload
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        shot(page, f"round-clock-running-{locale}")
        # Time will be called three seconds from now: the page turns by itself.
        soon = timezone.now() + timedelta(seconds=3)
        Round.objects.filter(pk=round_.pk).update(clock_deadline=soon)
        Game.objects.filter(match__round=round_).update(time_limit_at=soon)
        page.reload()
        page.locator("#round-clock [data-when-called]").wait_for(state="visible")
        text = page.locator("#round-clock").inner_text()
        assert called in text and rule in text
        assert not page.locator("#round-clock [data-when-running]").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        shot(page, f"round-clock-called-{locale}")
        # The tournament page and the hall screen say it too.
        for where in (f"/t/{tournament.slug}/", f"/t/{tournament.slug}/screen/"):
            page.goto(live_server.url + where)
            assert hall in page.locator("#round-clock").inner_text(), where
    finally:
        context.close()

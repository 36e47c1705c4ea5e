"""A ladder forfeit and closing a ladder session ask first, in words that say what they
do, at phone and desktop size in English and Spanish: unticked, nothing is sent."""

import pytest

from circuit.models import LadderSession
from circuit.services import ladders
from tests.e2e.conftest import TABLE_PHONE, check_accessibility, fits, log_in
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"
WORDS = {
    "en": {
        "forfeit": "Forfeit my game",
        "why": "Why you forfeit",
        "own": "The game at table 1 ends now as your forfeit: you are placed last",
        "close": "Close the session",
        "closes": "The session closes for good",
    },
    "es": {
        "forfeit": "Abandonar mi partida",
        "why": "Por qué abandona",
        "own": "La partida de la mesa 1 termina ahora, perdida por abandono suyo",
        "close": "Cerrar la sesión",
        "closes": "La sesión se cierra definitivamente",
    },
}


def _valid(page, selector: str) -> bool:
    return page.locator(selector).evaluate("box => box.validity.valid")


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_ladder_forfeit_and_closing_ask_first(live_server, browser, language):
    words = WORDS[language]
    organizer = UserFactory(username="org", password=PASSWORD)
    ana = PlayerFactory(
        display_name="Ana Rivera", user=UserFactory(username="ana", password=PASSWORD)
    )
    session = ladders.create_session(
        by=organizer, name="Duelo", ruleset_key="cutthroat", table_size=2, every_minutes=5
    )
    ladders.check_in(session, by=ana.user, player=ana)
    ladders.check_in(session, by=organizer, name="Beto")
    ladders.check_in(session, by=organizer, name="Cira")  # waits: closing sends her away
    (table,) = ladders.form_now(session, by=organizer)
    url = f"/ladders/{session.slug}/"
    locale = "es-ES" if language == "es" else "en-US"

    for viewport in (TABLE_PHONE, {"width": 1280, "height": 900}):
        context = browser.new_context(viewport=viewport, locale=locale, device_scale_factor=1)
        page = context.new_page()
        page.set_default_timeout(15_000)
        log_in(page, live_server.url, "ana", PASSWORD, url)
        page.get_by_text(words["own"]).wait_for()
        page.locator("#own-forfeit-reason").fill("Me llaman")
        page.get_by_role("button", name=words["forfeit"]).click()
        # The box saying what the forfeit does is not ticked: the browser sends nothing.
        assert not _valid(page, "#own-forfeit-confirm")
        table.game.refresh_from_db()
        assert table.game.status != "finished"
        if viewport is TABLE_PHONE:
            fits(page)
            check_accessibility(page)
        page.screenshot(
            path=f"test-output/e2e/ladder-forfeit-confirm-{viewport['width']}-{language}.png",
            full_page=True,
        )
        context.close()

    context = browser.new_context(viewport=TABLE_PHONE, locale=locale, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, live_server.url, "ana", PASSWORD, url)
    page.locator("#own-forfeit-reason").fill("Me llaman")
    page.get_by_label(words["own"]).check()
    with page.expect_navigation():
        page.get_by_role("button", name=words["forfeit"]).click()
    table.game.refresh_from_db()
    assert table.game.status == "finished" and table.game.forfeits
    context.close()

    context = browser.new_context(viewport=TABLE_PHONE, locale=locale, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, live_server.url, "org", PASSWORD, url)
    page.get_by_role("button", name=words["close"]).click()
    assert not _valid(page, "#close-confirm")
    assert LadderSession.objects.get(pk=session.pk).status == "open"
    fits(page)
    page.screenshot(path=f"test-output/e2e/ladder-close-confirm-390-{language}.png", full_page=True)
    page.get_by_label(words["closes"]).check()
    with page.expect_navigation():
        page.get_by_role("button", name=words["close"]).click()
    assert LadderSession.objects.get(pk=session.pk).status == "closed"
    context.close()


def test_the_organizers_forfeit_panel_stays_open_over_the_floors_refresh(live_server, phone):
    """The floor refreshes every 10 s; a forfeit being filled in there is not wiped."""
    organizer = UserFactory(username="org", password=PASSWORD)
    session = ladders.create_session(
        by=organizer, name="Martes", ruleset_key="cutthroat", table_size=2, every_minutes=5
    )
    for name in ("Beto", "Cira"):
        ladders.check_in(session, by=organizer, name=name)
    (table,) = ladders.form_now(session, by=organizer)
    page = phone
    log_in(page, live_server.url, "org", PASSWORD, f"/ladders/{session.slug}/")
    page.get_by_text("Forfeit a seat").click()
    page.locator("#forfeit-reason-1").fill("Left the hall")
    page.get_by_label("The game at table 1 ends now as the chosen player").check()
    page.wait_for_timeout(11_000)  # one refresh of the floor would have come and gone
    assert page.locator("#floor details[open]").count() == 1
    assert page.locator("#forfeit-reason-1").input_value() == "Left the hall"
    assert page.locator("#forfeit-confirm-1").is_checked()
    with page.expect_navigation():
        page.locator("#floor").get_by_role("button", name="Forfeit", exact=True).click()
    table.game.refresh_from_db()
    assert table.game.forfeits

"""The scoring page's details, on a phone (390 x 844) in English and Spanish: a dispute
keeps the page where it was and the bar says what it became; the bar never covers the
language menu; an organizer's forfeit takes the play clock and the in-play tools away at
once; a penalty leaves the seat chosen; an undone forced pass is told in words; after a
reload without a connection the page agrees with the hands waiting in its outbox; and no
answer breaks the Content-Security-Policy."""

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils import translation

from accounts.services import set_language
from scoring.models import Game, Hand
from tests.e2e.conftest import log_in
from tests.e2e.test_officiating_organizer import PASSWORD
from tests.e2e.test_referee_phone import wait_until_kept_for_offline
from tests.factories import UserFactory, event_referee
from tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
SHOTS = Path("/tmp/shots-scoring-details")
BAR = "#referee-bar [data-bar-line]"
TARGET = 250  # DCS at four


def said(language: str, message: str, **values) -> str:
    """A message of the code ({name} placeholders) in ``language``."""
    with translation.override(language):
        return translation.gettext(message).format(**values)


def shown(language: str, message: str, **values) -> str:
    """A message of a template (blocktranslate's %(name)s placeholders) in ``language``."""
    with translation.override(language):
        return translation.gettext(message) % values


def event():
    """A DCS round of two tables, both published; the referee keeps both."""
    organizer = UserFactory(username="org", password=PASSWORD)
    referee = UserFactory(username="ref", password=PASSWORD)
    tournament = services.create_tournament(
        by=organizer, name="Copa", slug="copa", ruleset_key="dcs", table_size=4
    )
    services.register_entrants(
        tournament, by=organizer, text="\n".join(f"Jugador {i:02d}" for i in range(8))
    )
    stage = services.add_stage(tournament, by=organizer, name="RR", format="round_robin")
    round_ = services.generate_round(stage, by=organizer)
    services.publish_round(round_, by=organizer)
    event_referee(tournament, user=referee)
    games = [m.game for m in round_.matches.order_by("table_number")]
    for game in games:
        services.assign_referee(game.match, referee, by=organizer)
    return games


def watched(browser, language, viewport=PHONE):
    """A browser whose console's CSP refusals and page errors are kept; ``language`` None
    leaves the browser's (the page then follows the signed-in user's choice)."""
    options = {"locale": language} if language else {}
    context = browser.new_context(viewport=viewport, has_touch=True, **options)
    page = context.new_page()
    page.set_default_timeout(20_000)
    refused: list[str] = []
    page.on(
        "console",
        lambda message: (
            refused.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.on("pageerror", lambda error: refused.append(str(error)))
    return context, page, refused


def top_of(page, selector: str) -> float:
    return page.evaluate(f"document.querySelector({selector!r}).getBoundingClientRect().top")


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_scoring_page_keeps_its_place_and_says_what_each_act_became(
    live_server, browser, language
):
    game = event()[0]
    names = {seat.name: seat.display_name for seat in game.seats.all()}
    context, page, refused = watched(browser, language)
    log_in(page, live_server.url, "org", PASSWORD, f"/games/{game.pk}/score/")
    bar = page.locator(BAR)

    # An undone forced pass is told in words, never as "+0".
    page.locator("#clock-seat").select_option("B")
    page.locator("#forced-pass").tap()
    page.locator("#referee-bar.saved").wait_for()
    page.locator(".events li form button").first.tap()
    undone = said(language, "Undone: the forced pass for {name}.", name=names["B"])
    page.locator("#referee-bar.saved", has_text=undone).wait_for()
    assert "+0" not in bar.inner_text()

    # A penalty leaves the seat chosen in "Seat to play" (not the hand's leader again).
    leader = page.locator("#clock-seat").input_value()
    other = next(name for name in "ABCD" if name != leader)
    page.locator("#clock-seat").select_option(other)
    page.locator("#penalty").tap()
    penalty = said(language, "Penalty for {name}: {points}.", name=names[other], points=-10)
    page.locator("#referee-bar.saved", has_text=penalty).wait_for()
    assert page.locator("#clock-seat").input_value() == other

    # Scrolled to the end, the language menu sits above the bar, not under it.
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    menu = page.locator("#language").bounding_box()
    line = page.locator("#referee-bar").bounding_box()
    assert menu["y"] + menu["height"] <= line["y"]

    # A dispute: the bar says it was opened and its form stays where it was on screen.
    page.locator("#dispute summary").scroll_into_view_if_needed()
    page.locator("#dispute summary").tap()
    page.locator("#dispute-note").fill("B dice que tenía 2, no 12")
    page.locator("#dispute summary").evaluate("s => s.scrollIntoView({block: 'center'})")
    before = top_of(page, "#dispute summary")
    page.locator("#dispute button[type=submit]").tap()
    opened = said(language, "Dispute opened: an organizer will settle it. Play goes on.")
    page.locator("#referee-bar.saved", has_text=opened).wait_for()
    page.locator("#officiating .dispute-mark").wait_for()
    assert abs(top_of(page, "#dispute summary") - before) <= 1
    page.screenshot(path=str(SHOTS / f"dispute-390-{language}.png"))

    # An organizer's forfeit ends the game: the clock and the in-play tools go at once.
    page.locator("#sanctions summary").scroll_into_view_if_needed()
    page.locator("#sanctions summary").tap()
    page.locator("#sanction-seat").select_option("D")
    page.locator("#sanction-reason").fill("abandonó la sala")
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#sanctions form[hx-post] button").tap()
    forfeit = said(language, "{name} forfeits the game.", name=names["D"])
    page.locator("#referee-bar.saved", has_text=forfeit).wait_for()
    page.locator("#panel[data-status=finished]").wait_for()
    for part in ("#clock", "#sanctions", "#redeal", "#hand-form", "#forced-pass"):
        assert page.locator(part).count() == 0, part
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.forfeits
    page.screenshot(path=str(SHOTS / f"forfeit-390-{language}.png"), full_page=True)
    context.close()
    assert refused == []


@pytest.mark.parametrize("language", ["en", "es"])
def test_after_a_reload_offline_the_page_agrees_with_the_hands_it_keeps(
    live_server, browser, language
):
    game = event()[1]
    # The language is the referee's own choice: a browser told a language asks for the
    # page with it, which the copy kept for a reload without a connection is not.
    set_language(get_user_model().objects.get(username="ref"), language)
    context, page, refused = watched(browser, None)
    log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/")
    wait_until_kept_for_offline(page)
    context.set_offline(True)
    page.locator("#hand-form input[name=ending][value=A]").check()
    for name, pips in (("B", 20), ("C", 25), ("D", 30)):
        page.locator(f"#hand-form input[name=pips_{name}]").fill(str(pips))
    page.locator("#hand-form button[type=submit]").tap()
    page.locator("#hand-form button[type=submit]").get_by_text("2").wait_for()
    page.reload()
    heading = shown(language, "Hand %(number)s", number=2)
    status = page.locator("#panel .status")
    page.locator("#panel h2", has_text=heading).wait_for()
    # The status line names the hand the heading names, and the totals say what they lack.
    assert status.inner_text().startswith(
        shown(language, "In play · hand %(number)s · target %(target)s", number=2, target=TARGET)
    )
    lacking = shown(
        language, "These totals are without hand %(number)s: it waits to be sent.", number=1
    )
    assert page.locator("[data-waiting-totals]").inner_text() == lacking
    page.screenshot(path=str(SHOTS / f"offline-reload-390-{language}.png"), full_page=True)

    # Back online the hand is stored, and the note goes with it.
    context.set_offline(False)
    page.locator("#referee-bar [data-outbox]").wait_for(state="hidden")
    page.locator("[data-waiting-totals]").wait_for(state="hidden")
    assert Hand.objects.filter(game=game).count() == 1
    scores = [t.inner_text() for t in page.locator("#panel .total-box .score").all()]
    game.refresh_from_db()
    assert scores == [str(game.totals[side]) for side in sorted(game.totals)]
    context.close()
    assert [text for text in refused if "Failed to fetch" not in text] == []


def test_the_scoring_page_at_a_desktop_width(live_server, browser):
    """A look at 1280 x 900 after a dispute: the bar and the page's foot."""
    game = event()[0]
    context, page, refused = watched(browser, "en", DESKTOP)
    log_in(page, live_server.url, "org", PASSWORD, f"/games/{game.pk}/score/")
    page.locator("#dispute summary").click()
    page.locator("#dispute-note").fill("A question about hand 1")
    page.locator("#dispute button[type=submit]").click()
    page.locator("#referee-bar.saved", has_text="Dispute opened").wait_for()
    page.screenshot(path=str(SHOTS / "dispute-1280-en.png"), full_page=True)
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    menu = page.locator("#language").bounding_box()
    assert menu["y"] + menu["height"] <= page.locator("#referee-bar").bounding_box()["y"]
    context.close()
    assert refused == []

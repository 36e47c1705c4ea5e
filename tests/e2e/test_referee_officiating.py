"""One page for the referee: the play clock's buttons, penalties and the leader question
go through the phone's outbox like the scoring buttons, so the page never moves and the
bar by the thumb says what each act became."""

from pathlib import Path

import pytest

from scoring.models import ScoreEvent
from tests.e2e.conftest import check_accessibility, log_in
from tests.e2e.test_referee_phone import PASSWORD, a_game, bar, wait_until_kept_for_offline

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}
SHOTS = Path("/tmp/shots-refqa")

# The buttons a referee taps: where each one is on the screen.
BOXES = """
() => Array.from(document.querySelectorAll(
    '#clock button, #leader-question button, #hand-form button[type=submit]'))
  .map(b => { const r = b.getBoundingClientRect(); return [b.textContent.trim(), r.x, r.y]; })
"""
BAR_IN_VIEW = """
() => { const r = document.getElementById('referee-bar').getBoundingClientRect();
  return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0; }
"""


def positions(page):
    # "Start the play" becomes "Next play" once started: compare the places alone.
    return [(x, y) for _, x, y in page.evaluate(BOXES)]


def test_officiating_taps_while_scrolled_move_nothing(live_server, page):
    game, _ = a_game("dcs", names=("Ana", "Beto", "Cira", "Dino"))
    page.clock.install()
    log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/")
    page.evaluate("window.scrollTo(0, 150)")
    scrolled = page.evaluate("window.scrollY")
    assert scrolled == 150
    before = positions(page)

    def unmoved(said=True):
        assert page.evaluate("window.scrollY") == scrolled
        assert positions(page) == before
        assert page.evaluate(BAR_IN_VIEW) == said  # the bar shows once there is news

    page.get_by_role("button", name="Start the play").tap()
    page.clock.run_for(31_000)
    assert page.locator("#clock-left").inner_text() == "0"
    assert page.get_by_text("Time is up.").is_visible()
    unmoved(said=False)
    page.locator("#clock-seat").select_option("B")
    page.get_by_role("button", name="Clock violation").tap()
    page.locator("#referee-bar.saved", has_text="✓ Forced pass for Beto.").wait_for()
    unmoved()
    page.get_by_role("button", name="Clock violation").tap()
    page.locator("#referee-bar.saved", has_text="✓ Penalty for Beto: -10.").wait_for()
    unmoved()
    page.locator("#clock-seat").select_option("C")
    page.get_by_role("button", name="Penalty \u221210").tap()
    page.locator("#referee-bar.saved", has_text="✓ Penalty for Cira: -10.").wait_for()
    unmoved()
    # A hand half filled in (its ending chosen) keeps it, and its award preview, too.
    page.evaluate("document.querySelector('#hand-form input[name=ending]').checked = true")
    page.locator("#leader-question").get_by_role("button", name="Dino").tap()
    page.locator("#referee-bar.saved", has_text="✓ Dino leads hand 1.").wait_for()
    unmoved()
    assert page.locator("#leader-question button.chosen").inner_text() == "Dino"
    # The answer is the hand's "Led by": no second control asks it.
    assert page.locator("#hand-form [name=leader]").input_value() == "D"
    assert page.locator("#hand-form select[name=leader]").count() == 0
    assert page.locator("#hand-form input[name=ending]").first.is_checked()
    page.locator("#preview", has_text="Fill in how the hand ended").wait_for()
    unmoved()
    page.screenshot(path=str(SHOTS / "e2e-officiating-taps-390.png"))
    events = ScoreEvent.objects.filter(game=game, active=True).order_by("pk")
    assert [(e.seat.name, e.kind, e.points, e.violation) for e in events] == [
        ("B", "forced_pass", 0, True),
        ("B", "penalty", -10, True),
        ("C", "penalty", -10, False),
    ]
    game.refresh_from_db()
    assert game.next_leader == "D"
    assert page.locator(".total-box .score").all_inner_texts() == ["0", "-10", "-10", "0"]


def test_a_clock_violation_taken_offline_is_sent_once(live_server, context, page):
    game, _ = a_game("dcs", names=("Ana", "Beto", "Cira", "Dino"))
    log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/")
    wait_until_kept_for_offline(page)
    context.set_offline(True)
    page.locator("#clock-seat").select_option("A")
    page.get_by_role("button", name="Clock violation").click()
    bar(page).get_by_text("Not sent yet: Clock violation: Ana.").wait_for()
    page.reload()
    page.get_by_text("1 action not sent yet").wait_for()  # kept across the reload
    # Chromium's offline emulation once let the first attempt reach the server anyway
    # (a CI run): whatever got through, the outbox's resend must not count it twice.
    context.set_offline(False)
    # "✓ Forced pass for Ana.", or, when the first attempt did get through, the server's
    # "Already done; nothing was done twice." for the resend with the same key.
    page.locator("#referee-bar.saved").wait_for()
    page.locator("#referee-bar [data-outbox]").wait_for(state="hidden")
    page.wait_for_timeout(500)  # nothing more is sent
    assert list(ScoreEvent.objects.filter(game=game).values_list("kind", "seat__name")) == [
        ("forced_pass", "A")
    ]


def test_a_steal_names_the_seat_that_lost_the_points(live_server, page):
    game, _ = a_game("two_box_cutthroat", names=("Ana", "Beto", "Cira", "Dino"))
    log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/")
    steal = page.locator("form.steal").nth(2)  # Cira's
    assert "the previous seat, Beto" in steal.locator("select[name=from_seat]").inner_text()
    steal.locator("select[name=points]").select_option("10")
    steal.locator("select[name=from_seat]").select_option("A")
    steal.get_by_role("button", name="Steal").click()
    page.locator("#referee-bar.saved", has_text="taken from Ana").wait_for()
    assert "Steal by Cira" in bar(page).inner_text()


@pytest.mark.parametrize("locale", ["en", "es"])
@pytest.mark.parametrize("width", [390, 1280])
def test_the_officiating_page_fits_in_both_languages(live_server, browser, locale, width):
    game, _ = a_game("dcs", names=("Karla Medina", "Beto", "Cira", "Dino"))
    context = browser.new_context(
        viewport={"width": width, "height": 844}, locale=locale, device_scale_factor=1
    )
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/")
        page.locator("#clock-seat").select_option("B")
        page.locator("#clock-violation").click()
        page.locator("#referee-bar.saved").wait_for()
        if locale == "es":
            assert "Pase forzado" in bar(page).inner_text()
        page.locator("#leader-question button").nth(1).click()
        page.locator("#referee-bar.saved", has_text="Beto").wait_for()
        for part in ("#penalty-box summary", "#redeal summary", "#dispute summary"):
            page.locator(part).click()
        width_used = page.evaluate("document.documentElement.scrollWidth")
        assert width_used <= width, f"the page scrolls sideways ({width_used} px)"
        check_accessibility(page)
        page.screenshot(path=str(SHOTS / f"officiating-{locale}-{width}.png"), full_page=True)
    finally:
        context.close()

"""The referee's phone page stays under the thumb and keeps what it cannot send yet."""

from pathlib import Path

import pytest

from scoring.models import Game, Hand, ScoreEvent
from scoring.services import record_hand, start_game
from tests.e2e.conftest import check_accessibility, log_in
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"
PHONE = {"width": 390, "height": 844}
SHOTS = Path("/tmp/shots-phone")

BUTTON_BOXES = """
() => Array.from(document.querySelectorAll('#panel .plays button, #clock button'))
  .slice(0, 12).map(b => { const r = b.getBoundingClientRect(); return [r.x, r.y]; })
"""
BAR_IN_VIEW = """
() => { const r = document.getElementById('referee-bar').getBoundingClientRect();
  return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0; }
"""


def a_game(ruleset_key="cutthroat", names=("Karla Medina", "Beto", "Cira", "Dino")):
    referee = UserFactory(username="ref", password=PASSWORD)
    players = [PlayerFactory(display_name=n) for n in names]
    game = start_game(ruleset_key=ruleset_key, seats=players, referees=[referee], label="Mesa 1")
    return game, referee


def bar(page):
    return page.locator("#referee-bar [data-bar-line]")


def test_taps_while_scrolled_move_neither_the_page_nor_the_buttons(live_server, page):
    game, _ = a_game()
    log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/")
    check_accessibility(page)
    page.evaluate("window.scrollTo(0, 260)")
    scrolled = page.evaluate("window.scrollY")
    assert scrolled > 200  # the page is long enough to scroll on a phone
    before = page.evaluate(BUTTON_BOXES)
    taps = [
        ("Karla Medina plus 5", "✓ Karla Medina +5."),
        ("Beto plus 10", "✓ Beto +10."),
        ("Penalty for Cira", "✓ Penalty for Cira: -10."),
        ("Karla Medina plus 20", "✓ Karla Medina +20."),
    ]
    for button, outcome in taps:
        if button.startswith("Penalty"):  # beside the seat chosen by the clock's buttons
            page.locator("#clock-seat").select_option(label=button.removeprefix("Penalty for "))
            button = "Penalty \u221210"
        page.get_by_role("button", name=button, exact=True).tap()
        page.locator("#referee-bar.saved", has_text=outcome).wait_for()
        assert page.evaluate("window.scrollY") == scrolled
        assert page.evaluate(BUTTON_BOXES) == before
        assert page.evaluate(BAR_IN_VIEW)
    page.screenshot(path=str(SHOTS / "e2e-after-taps-390.png"))
    # Undo sits below the controls: taking an event back moves no button either.
    undo = page.locator(".events form button").first
    undo.scroll_into_view_if_needed()
    scrolled, before = page.evaluate("window.scrollY"), page.evaluate(BUTTON_BOXES)
    undo.tap()
    page.locator("#referee-bar.saved", has_text="Undone").wait_for()
    assert page.evaluate(BUTTON_BOXES) == before
    assert page.evaluate("window.scrollY") == scrolled
    kept = ScoreEvent.objects.filter(game=game, active=True)
    assert sorted((e.seat.display_name, e.points) for e in kept) == [
        ("Beto", 10),
        ("Cira", -10),
        ("Karla Medina", 20),
    ]


def record_offline(page, number, *, ending, pips):
    page.get_by_label(ending, exact=True).check()
    for label, value in pips.items():
        page.get_by_label(f"Pips left: {label}").fill(str(value))
    page.get_by_role("button", name=f"Confirm hand {number}").click()


KEPT = """
async () => { const names = ['/static/referee.js', '/static/capicu.css', location.pathname];
  for (const name of names) { if (!(await caches.match(name))) return false; }
  return true; }
"""


def wait_until_kept_for_offline(page) -> None:
    """The service worker keeps the page and its files once it is running."""
    for _ in range(100):
        if page.evaluate(KEPT):
            return
        page.wait_for_timeout(100)
    raise AssertionError("the scoring page was not kept for a reload without a connection")


def test_actions_taken_offline_survive_a_reload_and_are_stored_once(live_server, context, page):
    game, _ = a_game()
    log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/")
    wait_until_kept_for_offline(page)
    context.set_offline(True)
    page.get_by_role("button", name="Confirm hand 1").click()  # nothing filled in yet
    page.locator("#referee-bar.refused", has_text="Not kept: say how the hand ended").wait_for()
    page.get_by_role("button", name="Karla Medina plus 10", exact=True).click()
    bar(page).get_by_text("Not sent yet: Karla Medina +10.").wait_for()
    page.get_by_role("button", name="Beto plus 5", exact=True).click()
    record_offline(
        page, 1, ending="Domino by Karla Medina", pips={"Beto": 20, "Cira": 25, "Dino": 30}
    )
    # The page goes on to hand 2 by itself and says hand 1 waits on the phone.
    page.get_by_role("button", name="Confirm hand 2").wait_for()
    assert "Hand 1 is kept on this phone" in bar(page).inner_text()
    page.get_by_role("button", name="Cira plus 15", exact=True).click()
    page.get_by_text("4 actions not sent yet").wait_for()
    page.screenshot(path=str(SHOTS / "e2e-offline-outbox-390.png"))
    assert not ScoreEvent.objects.filter(game=game).exists()
    assert not Hand.objects.filter(game=game).exists()

    # A reload without a connection: the page opens from the kept copy, outbox and all.
    page.reload()
    page.get_by_text("4 actions not sent yet").wait_for()
    page.get_by_role("button", name="Confirm hand 2").wait_for()  # still ahead of the server
    assert not Hand.objects.filter(game=game).exists()
    context.set_offline(False)

    page.locator("#referee-bar [data-outbox]").wait_for(state="hidden")
    page.locator("#referee-bar.saved").wait_for()
    events = ScoreEvent.objects.filter(game=game, active=True).order_by("pk")
    assert [(e.hand_number, e.seat.display_name, e.points) for e in events] == [
        (1, "Karla Medina", 10),
        (1, "Beto", 5),
        (2, "Cira", 15),
    ]
    assert Hand.objects.filter(game=game).count() == 1
    game.refresh_from_db()
    # Hand 1: Karla dominoes, 20 + 25 + 30 = 75; with the points in play.
    assert game.totals == {"A": 85, "B": 5, "C": 15, "D": 0}
    shown = [t.inner_text() for t in page.locator(".total-box .score").all()]
    assert shown == ["85", "5", "15", "0"]


def drop_first_answer(state):
    def handle(route):
        if not state["dropped"]:
            state["dropped"] = True
            route.fetch()  # the server stores it ...
            route.abort("failed")  # ... and the phone never hears back
        else:
            route.continue_()

    return handle


def test_answers_lost_in_flight_are_resent_and_counted_once(live_server, page):
    game, _ = a_game()
    log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/")
    page.route("**/score/event/", drop_first_answer({"dropped": False}))
    page.get_by_role("button", name="Beto plus 15", exact=True).click()
    # The page resends after a 2 s wait; on a machine busy with other test runs the
    # stored-then-lost answer and the resend take longer than a usual step.
    bar(page).get_by_text("Already counted; nothing was added twice.").wait_for(timeout=90_000)
    assert ScoreEvent.objects.filter(game=game, points=15).count() == 1

    page.route("**/score/hand/", drop_first_answer({"dropped": False}))
    pips = {"Karla Medina": 5, "Beto": 10, "Cira": 20, "Dino": 30}
    record_offline(page, 1, ending="Blocked", pips=pips)
    bar(page).get_by_text("Hand 1 was already saved; it was not counted twice.").wait_for(
        timeout=90_000
    )
    assert Hand.objects.filter(game=game).count() == 1
    game.refresh_from_db()
    # A block: Karla holds 5 and scores 10 + 20 + 30 - 5 = 55; Beto's 15 in play.
    assert game.totals == {"A": 55, "B": 15, "C": 0, "D": 0}


def test_a_hand_someone_else_recorded_is_refused_plainly(live_server, context, page):
    game, referee = a_game()
    log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/")
    context.set_offline(True)
    record_offline(
        page, 1, ending="Domino by Karla Medina", pips={"Beto": 20, "Cira": 25, "Dino": 30}
    )
    page.get_by_role("button", name="Confirm hand 2").wait_for()
    page.get_by_role("button", name="Beto plus 5", exact=True).click()
    # Meanwhile another referee records hand 1 differently.
    record_hand(
        game,
        by=referee,
        number=1,
        ended="domino",
        domino_by="B",
        pips={"A": 10, "B": 0, "C": 0, "D": 0},
    )
    context.set_offline(False)
    page.locator("#referee-bar.refused").wait_for()
    text = bar(page).inner_text()
    assert "Not saved: Hand 1" in text and "as the server has it" in text
    assert "1 later action depended on it and was not sent." in text
    assert page.locator(".total-box .score").all_inner_texts() == ["0", "10", "0", "0"]
    page.get_by_role("button", name="Confirm hand 2").wait_for()
    assert Hand.objects.filter(game=game).count() == 1
    assert not ScoreEvent.objects.filter(game=game).exists()
    page.screenshot(path=str(SHOTS / "e2e-refused-390.png"))


def test_the_ends_counter_adds_the_ends_and_records_the_play(live_server, page):
    game, _ = a_game("two_box", names=("Ana", "Beto", "Cira", "Dino"))
    log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/")
    assert page.get_by_role("button", name="Ana plus 40", exact=True).count() == 1
    page.get_by_text("Count the open ends").click()
    page.get_by_role("button", name="Double 6 across").click()
    page.locator("[data-end='3']").click()
    assert page.locator("[data-ends-total]").inner_text() == "15"
    assert "scores 15" in page.locator("[data-ends-verdict]").inner_text()
    page.locator("[data-end='1']").click()  # 16: no score, no button to record it
    assert "not a multiple of 5" in page.locator("[data-ends-verdict]").inner_text()
    assert page.locator("[data-ends-record] button").first.is_disabled()
    page.get_by_role("button", name="Remove the last end").click()
    page.screenshot(path=str(SHOTS / "e2e-ends-counter-390.png"))
    page.get_by_role("button", name="Ana +15").click()
    page.locator("#referee-bar.saved", has_text="Ana +15").wait_for()
    event = ScoreEvent.objects.get(game=game)
    assert (event.seat.display_name, event.kind, event.points) == ("Ana", "in_play", 15)
    assert page.locator("#ends-counter").evaluate("d => d.open")  # still open for the next play


def test_a_recorded_hand_is_voided_from_the_phone_with_its_reason(live_server, page):
    game, referee = a_game()
    record_hand(
        game,
        by=referee,
        number=1,
        ended="domino",
        domino_by="A",
        pips={"A": 0, "B": 5, "C": 5, "D": 5},
    )
    log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/")
    page.get_by_text("Void hand 1").first.click()
    page.get_by_label("Why is this hand void?").fill("Misdeal: 8 tiles to Beto")
    page.get_by_role("button", name="Void hand 1").click()
    page.locator("#referee-bar.saved", has_text="Hand 1 voided").wait_for()
    hand = Hand.objects.get(game=game, is_current=True)
    assert hand.voided and hand.reason == "Misdeal: 8 tiles to Beto"
    assert Game.objects.get(pk=game.pk).total_of("A") == 0


@pytest.mark.parametrize("locale", ["en", "es"])
@pytest.mark.parametrize("width", [390, 1280])
def test_the_scoring_page_fits_a_phone_and_a_desktop_in_both_languages(
    live_server, browser, locale, width
):
    game, referee = a_game("two_box_cutthroat", names=("Karla Medina", "Beto", "Cira", "Dino"))
    record_hand(
        game,
        by=referee,
        number=1,
        ended="domino",
        domino_by="A",
        pips={"A": 0, "B": 5, "C": 5, "D": 5},
    )
    context = browser.new_context(
        viewport={"width": width, "height": 844}, locale=locale, device_scale_factor=1
    )
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/")
        assert page.evaluate("document.documentElement.lang") == locale
        assert not page.locator("#referee-bar").is_visible()  # nothing to say yet
        page.screenshot(path=str(SHOTS / f"score-top-{locale}-{width}.png"))
        page.locator("#ends-counter summary").click()
        page.locator("[data-end='12']").click()
        page.locator("[data-end='3']").click()
        verdict = page.locator("[data-ends-verdict]").inner_text()
        assert (
            verdict
            == {"en": "scores 15: tap who played", "es": "anota 15: toque quién jugó"}[locale]
        )
        page.locator(".plays button").first.click()
        page.locator("#referee-bar.saved").wait_for()
        width_used = page.evaluate("document.documentElement.scrollWidth")
        assert width_used <= width, f"the page scrolls sideways ({width_used} px)"
        check_accessibility(page)
        page.screenshot(path=str(SHOTS / f"score-{locale}-{width}.png"), full_page=True)
        context.set_offline(True)
        page.locator(".plays button").nth(1).click()
        page.locator("#referee-bar.waiting").wait_for()
        if locale == "es":
            assert "Sin enviar todavía" in page.locator("#referee-bar").inner_text()
        page.screenshot(path=str(SHOTS / f"score-offline-{locale}-{width}.png"))
        context.set_offline(False)
        page.locator("#referee-bar.saved").wait_for()
    finally:
        context.close()


def test_a_correction_made_offline_is_sent_once_when_the_connection_returns(
    live_server, context, page
):
    game, referee = a_game()
    pips = {"A": 0, "B": 5, "C": 5, "D": 5}
    record_hand(game, by=referee, number=1, ended="domino", domino_by="A", pips=pips)
    log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/hands/1/")
    context.set_offline(True)
    page.get_by_label("Pips left: Dino").fill("20")
    page.get_by_label("Why is this hand being corrected?").fill("Dino had 20")
    page.get_by_role("button", name="Save correction").click()
    bar(page).get_by_text("Not sent yet: Correct hand 1.").wait_for()
    page.screenshot(path=str(SHOTS / "e2e-correction-offline-390.png"))
    assert Hand.objects.get(game=game, is_current=True).version == 1
    context.set_offline(False)
    page.wait_for_url(f"**/games/{game.pk}/score/")
    bar(page).get_by_text("✓ Hand 1 corrected: Dino had 20").wait_for()
    current = Hand.objects.get(game=game, is_current=True)
    assert current.version == 2 and current.pips["D"] == 20
    assert Game.objects.get(pk=game.pk).total_of("A") == 30  # 5 + 5 + 20


def test_logging_out_forgets_the_kept_copy_of_the_scoring_page(live_server, page):
    game, _ = a_game()
    log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/")
    wait_until_kept_for_offline(page)
    page.locator("header.site form button[type=submit]").click()
    page.wait_for_url(lambda url: "/score/" not in url)
    # Static files may be kept again by the next page; the signed-in page is not.
    kept = page.evaluate(f"async () => !!(await caches.match('/games/{game.pk}/score/'))")
    assert kept is False

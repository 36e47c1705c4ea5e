"""A referee records a hand with the keyboard alone: Tab and Shift+Tab to move, the arrow
keys to choose how the hand ended, Space and Enter to press; no click, no tap. The hand
is saved on the server and the page says so in its polite status bar."""

import pytest

from scoring.models import Hand, ScoreEvent
from scoring.services import start_game
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"
PHONE = {"width": 390, "height": 844}

FOCUSED = """
() => { const el = document.activeElement;
  if (!el || el === document.body) return {tag: 'body'};
  const label = el.labels && el.labels.length ? el.labels[0].textContent.trim() : '';
  return {tag: el.tagName.toLowerCase(), type: el.type || '', name: el.name || '',
          id: el.id || '', label: label, checked: !!el.checked,
          text: (el.getAttribute('aria-label') || el.textContent || '').trim(),
          inPanel: !!el.closest('#panel')}; }
"""


def focused(page) -> dict:
    return page.evaluate(FOCUSED)


def tab_to(page, wanted, *, key="Tab", most=80) -> dict:
    """Press Tab (or Shift+Tab) until the focused control is the one ``wanted`` picks."""
    for _ in range(most):
        page.keyboard.press(key)
        now = focused(page)
        if wanted(now):
            return now
    raise AssertionError(f"{key} never reached the control; last focused: {focused(page)}")


def test_a_hand_is_recorded_with_the_keyboard_alone(live_server, browser):
    referee = UserFactory(username="ref", password=PASSWORD)
    names = ("Karla Medina", "Beto", "Cira", "Dino")
    game = start_game(
        ruleset_key="cutthroat",
        seats=[PlayerFactory(display_name=n) for n in names],
        referees=[referee],
        label="Mesa 1",
    )
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        # Signing in: type, Tab, type, Enter.
        page.goto(f"{live_server.url}/accounts/login/?next=/games/{game.pk}/score/")
        page.locator("#id_username").focus()  # the field the page focuses by itself
        page.keyboard.type("ref")
        page.keyboard.press("Tab")
        page.keyboard.type(PASSWORD)
        page.keyboard.press("Enter")
        page.wait_for_url(f"**/games/{game.pk}/score/")
        bar = page.locator("#referee-bar")
        said = page.locator("#referee-said")  # what the bar says, said politely
        assert said.get_attribute("role") == "status"
        assert said.get_attribute("aria-live") == "polite"

        # Points during play: Tab to Beto's +10 and press it with Space.
        tab_to(page, lambda f: f["text"] == "Beto plus 10")
        page.keyboard.press("Space")
        page.locator("#referee-bar.saved", has_text="Beto +10").wait_for()
        assert said.inner_text() == bar.locator("[data-bar-line]").inner_text()
        # The panel was replaced, and the focus stayed where the referee was.
        after = focused(page)
        assert after["inPanel"] and after["text"] == "Beto plus 10", after

        # How the hand ended: into the radio group, then the arrow keys choose.
        tab_to(page, lambda f: f["name"] == "ending")
        for _ in range(len(names) + 2):
            if focused(page)["label"] == "Domino by Karla Medina":
                break
            page.keyboard.press("ArrowDown")
        if not focused(page)["checked"]:  # Tab lands on the group without choosing
            page.keyboard.press("Space")
        now = focused(page)
        assert now["label"] == "Domino by Karla Medina" and now["checked"], now

        # The pips left: Beto 20, Cira (mistyped, then put right with Shift+Tab), Dino 30.
        tab_to(page, lambda f: f["label"] == "Pips left: Beto")
        page.keyboard.type("20")
        tab_to(page, lambda f: f["label"] == "Pips left: Cira")
        page.keyboard.type("52")
        tab_to(page, lambda f: f["label"] == "Pips left: Dino")
        page.keyboard.type("30")
        tab_to(page, lambda f: f["label"] == "Pips left: Cira", key="Shift+Tab")
        page.keyboard.press("ControlOrMeta+A")
        page.keyboard.type("25")
        page.locator("#preview").get_by_text("+75").wait_for()  # the award, before saving

        # Confirm with Enter.
        tab_to(page, lambda f: f["text"] == "Confirm hand 1")
        page.keyboard.press("Enter")
        page.locator("#referee-bar.saved").wait_for()
        page.get_by_role("button", name="Confirm hand 2").wait_for()
        assert "hand 1" in said.inner_text().lower()
        # The focus is on the next hand's button, not thrown to the top of the page.
        assert focused(page)["text"] == "Confirm hand 2"
        shown = page.locator(".total-box .score").all_inner_texts()
    finally:
        context.close()

    hand = Hand.objects.get(game=game)
    assert (hand.number, hand.ended, hand.domino_by) == (1, "domino", "A")
    assert hand.pips == {"A": 0, "B": 20, "C": 25, "D": 30}
    assert [(e.seat.display_name, e.points) for e in ScoreEvent.objects.filter(game=game)] == [
        ("Beto", 10)
    ]
    game.refresh_from_db()
    # Karla dominoes: 20 + 25 + 30 = 75; Beto's 10 in play.
    assert game.totals == {"A": 75, "B": 10, "C": 0, "D": 0}
    assert shown == ["75", "10", "0", "0"]

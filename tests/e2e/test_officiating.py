"""The play clock on a phone: it runs on the phone, warns, and at zero a tap records the
violation the server decides; the leader question, a dispute and the organizer's side."""

import pytest

from scoring.models import ScoreEvent
from scoring.services import start_game
from tests.e2e.conftest import check_accessibility, log_in
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"
SHOTS = "/tmp/shots-officiating"


def test_the_play_clock_runs_on_the_phone_and_escalates(live_server, browser):
    referee = UserFactory(username="ref", password=PASSWORD)
    players = [PlayerFactory(display_name=n) for n in ("Ana", "Beto", "Cira", "Dino")]
    game = start_game(ruleset_key="dcs", seats=players, referees=[referee], label="Mesa 1")
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.clock.install()
    log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/")
    check_accessibility(page)
    assert page.locator("#clock-left").inner_text() == "30"
    page.get_by_text("Who holds the highest double? (else the highest tile)").wait_for()
    page.locator("#leader-question").get_by_role("button", name="Beto").click()
    page.locator("#referee-bar").get_by_text("Beto leads hand 1.").wait_for()
    assert page.locator("#clock-seat").input_value() == "B"  # the clock starts with the leader
    page.reload()
    assert page.locator("#clock-seat").input_value() == "B"

    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.get_by_role("button", name="Start the play").click()
    page.clock.run_for(26_000)
    assert page.locator("#clock-left").inner_text() == "4"
    assert "clock-warn" in page.locator("#clock").get_attribute("class")
    page.clock.run_for(5_000)
    assert page.locator("#clock-left").inner_text() == "0"
    assert page.get_by_text("Time is up.").is_visible()
    assert requests == []  # the clock ran on the phone
    page.screenshot(path=f"{SHOTS}/clock-zero-390.png", full_page=False)
    page.get_by_role("button", name="Clock violation").click()
    page.locator("#referee-bar").get_by_text("Forced pass for Beto.").wait_for()
    assert page.locator("#clock-seat").input_value() == "B"

    # The next play moves the clock to Cira; Beto's second violation is a penalty.
    page.get_by_role("button", name="Next play").click()
    assert page.locator("#clock-seat").input_value() == "C"
    page.locator("#clock-seat").select_option("B")
    page.get_by_role("button", name="Clock violation").click()
    page.locator("#referee-bar").get_by_text("Penalty for Beto: -10.").wait_for()
    # The scoring panel shows the new total without a reload.
    page.locator("#panel").get_by_text("-10").first.wait_for()
    kinds = list(
        ScoreEvent.objects.filter(game=game, violation=True)
        .order_by("pk")
        .values_list("kind", "points")
    )
    assert kinds == [("forced_pass", 0), ("penalty", -10)]

    # A dispute from the table; the game shows it.
    page.locator("#officiating summary", has_text="Open a dispute").click()
    page.get_by_label("What is disputed").fill("Beto says the clock was not started")
    page.get_by_role("button", name="Open the dispute").click()
    page.locator("#officiating").get_by_text("Under dispute").wait_for()
    page.screenshot(path=f"{SHOTS}/score-390-en.png", full_page=True)
    context.close()

"""An organizer runs a ladder session from a phone: players check in, a table is formed
and shows on the page; a player accepts the ladder's request on their account page; the
series and leaderboard pages read well on a phone."""

import pytest

from circuit.models import LadderPlayer, LadderTable
from circuit.services.ladders import create_session
from circuit.services.series import create_series
from tests.e2e.conftest import check_accessibility, log_in
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"


def test_an_organizer_opens_a_ladder_and_four_arrivals_get_a_table(live_server, phone, shot):
    UserFactory(username="org", password=PASSWORD)
    page = phone
    log_in(page, live_server.url, "org", PASSWORD, "/ladders/new/")
    page.locator("#name").fill("Martes de escalera")
    page.get_by_role("button", name="Open the session").click()
    page.wait_for_url("**/ladders/martes-de-escalera/")
    for name in ("Ana", "Beto", "Cira", "Dora", "Eloy"):
        page.locator("#check-name").fill(name)
        with page.expect_navigation():
            page.get_by_role("button", name="Check in", exact=True).click()
        assert name in page.locator("#floor").inner_text()
    page.get_by_text("Table 1", exact=True).wait_for()
    floor = page.locator("#floor").inner_text()
    assert "Waiting: 1" in floor and "Eloy" in floor
    table = LadderTable.objects.get()
    assert sorted(table.game.seats.values_list("display_name", flat=True)) == [
        "Ana", "Beto", "Cira", "Dora",
    ]  # fmt: skip
    check_accessibility(page)
    shot(page, "ladder-phone")
    page.get_by_role("link", name="Score").click()
    page.wait_for_url(f"**/games/{table.game_id}/score/")


def test_a_player_accepts_the_ladders_request_on_their_account_page(live_server, phone):
    organizer = UserFactory(username="org", password=PASSWORD)
    lola = PlayerFactory(
        display_name="Lola Vidal", user=UserFactory(username="lola", password=PASSWORD)
    )
    session = create_session(by=organizer, name="Miércoles", ruleset_key="cutthroat")
    page = phone
    log_in(page, live_server.url, "org", PASSWORD, f"/ladders/{session.slug}/")
    page.locator("#ask-name").fill("Lola Vidal")
    with page.expect_navigation():
        page.get_by_role("button", name="Ask to check in").click()
    assert not LadderPlayer.objects.filter(player=lola).exists()
    page.context.clear_cookies()
    log_in(page, live_server.url, "lola", PASSWORD, "/accounts/")
    page.get_by_text("The organizer of Miércoles asks you to check in.").wait_for()
    check_accessibility(page)
    with page.expect_navigation():
        page.locator("#ladders-title ~ ul").get_by_role("button", name="Accept").click()
    page.get_by_text("You are checked in to Miércoles.").wait_for()
    assert LadderPlayer.objects.get(player=lola).consent == "accepted"


def test_the_series_and_leaderboard_pages_on_a_phone(live_server, phone, shot):
    organizer = UserFactory(username="org", password=PASSWORD)
    series = create_series(by=organizer, name="Friday Cut-Throat", ruleset_key="cutthroat")
    page = phone
    log_in(page, live_server.url, "org", PASSWORD, f"/series/{series.slug}/")
    page.get_by_role("button", name="Create the next event").click()
    page.wait_for_url("**/t/friday-cut-throat-1/manage/")
    page.goto(f"{live_server.url}/series/{series.slug}/")
    page.get_by_role("link", name="Friday Cut-Throat #1").wait_for()
    check_accessibility(page)
    shot(page, "series-phone")
    page.goto(f"{live_server.url}/ratings/")
    page.get_by_text("Nobody has played enough rated games yet.").wait_for()
    check_accessibility(page)

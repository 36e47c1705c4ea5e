"""An organizer invites an existing user from a phone; the user sees it and accepts."""

import pytest

from tests.e2e.conftest import check_accessibility, log_in
from tests.factories import UserFactory
from tests.test_pages import make_event
from tournaments.models import Staff

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"


def test_an_invited_referee_accepts_and_can_then_be_given_a_table(
    live_server, browser, phone, shot
):
    organizer = UserFactory(username="org", password=PASSWORD)
    tournament, round_ = make_event(organizer, slug="copa", public=False)
    UserFactory(username="marta", password=PASSWORD)

    page = phone
    log_in(page, live_server.url, "org", PASSWORD, "/t/copa/manage/")
    page.get_by_label("Invite an existing user: username").fill("marta")
    page.get_by_role("button", name="Invite", exact=True).click()
    page.get_by_text("marta is invited as referee").wait_for()
    assert "marta (referee)" in page.locator("section[aria-labelledby=staff-title]").inner_text()
    shot(page, "staff-invited-phone")
    assert not Staff.objects.filter(user__username="marta").exists()

    invited = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    log_in(invited, live_server.url, "marta", PASSWORD, "/accounts/")
    assert invited.locator("header .badge").inner_text() == "1"
    invited.get_by_text("org invites you to be referee of Copa Capicú.").wait_for()
    check_accessibility(invited)
    shot(invited, "account-invitation-phone")
    invited.get_by_role("button", name="Accept").click()
    invited.get_by_text("You are now referee of Copa Capicú.").wait_for()
    assert Staff.objects.filter(tournament=tournament, user__username="marta").exists()
    invited.goto(f"{live_server.url}/accounts/")
    roles = invited.locator("section[aria-labelledby=roles-title]")
    assert "Copa Capicú · Referee" in roles.inner_text()
    check_accessibility(invited)
    shot(invited, "account-roles-phone")
    invited.context.close()

    page.goto(f"{live_server.url}/t/copa/manage/?round={round_.number}")
    choice = page.locator("#ref-all")
    assert "marta" in choice.inner_text()
    choice.select_option(label="marta")
    page.get_by_role("button", name="Assign", exact=True).first.click()
    page.get_by_text("marta referees all").wait_for()


def test_a_referee_leaves_a_role_from_their_account_page(live_server, browser):
    organizer = UserFactory(username="org", password=PASSWORD)
    tournament, _ = make_event(organizer, slug="copa", public=False)
    marta = UserFactory(username="marta", password=PASSWORD)
    Staff.objects.create(tournament=tournament, user=marta, role="referee")
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    log_in(page, live_server.url, "marta", PASSWORD, "/accounts/")
    page.get_by_role("button", name="Leave this role").click()
    page.get_by_text("You are no longer referee of Copa Capicú.").wait_for()
    page.get_by_text("You organize and referee no event.").wait_for()
    assert not Staff.objects.filter(user=marta).exists()
    page.context.close()

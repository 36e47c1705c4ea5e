"""A person with an account answers an organizer's entry of them from their account page,
on a phone: until they accept, the event's entry is another player of their name."""

import pytest

from players.models import EntryRequest
from tests.e2e.conftest import check_accessibility, fits, log_in
from tests.factories import PlayerFactory, UserFactory
from tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"


def test_a_person_accepts_an_organizers_entry_on_their_account_page(live_server, phone, shot):
    organizer = UserFactory(username="mallory", password=PASSWORD)
    ana = PlayerFactory(
        display_name="Ana Rivera", user=UserFactory(username="ana", password=PASSWORD)
    )
    tournament = services.create_tournament(
        by=organizer, name="Abierto de Mallory", ruleset_key="cutthroat", table_size=4
    )
    services.update_tournament(tournament, by=organizer, status="registration")
    services.register_entrants(tournament, by=organizer, text="Ana Rivera\nBeto Cruz")
    assert not ana.entries.exists()
    page = phone
    log_in(page, live_server.url, "ana", PASSWORD, "/accounts/")
    page.get_by_text("mallory entered you in Abierto de Mallory.").wait_for()
    check_accessibility(page)
    fits(page)
    shot(page, "entry-request-phone")
    with page.expect_navigation():
        page.locator("#entry-requests-title ~ ul").get_by_role("button", name="Accept").click()
    page.get_by_text("Your entry in Abierto de Mallory is yours").wait_for()
    assert EntryRequest.objects.get().answer == "accepted"
    assert ana.entries.get().tournament == tournament
    page.set_viewport_size({"width": 1280, "height": 900})
    shot(page, "entry-request-answered-desktop")

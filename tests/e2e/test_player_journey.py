"""A player on a phone (390 by 844): signs in, enters an event, checks in, and sees their
table once the organizer publishes the round; the emails tell the same."""

from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.core import mail
from django.utils import timezone

from players import registration
from tests.e2e.conftest import check_accessibility, log_in
from tests.factories import UserFactory
from tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"
PHONE = {"width": 390, "height": 844}
SHOTS = Path("/tmp/shots-players")


def test_a_player_registers_checks_in_and_sees_their_table(live_server, browser, shot):
    organizer = UserFactory(username="org", password=PASSWORD)
    tournament = services.create_tournament(
        by=organizer, name="Viernes Cut-Throat", slug="viernes", ruleset_key="cutthroat",
        table_size=4,
    )  # fmt: skip
    services.update_tournament(tournament, by=organizer, status="registration")
    now = timezone.now()
    registration.open_registration(
        tournament, by=organizer, capacity=8, check_in_opens_at=now - timedelta(minutes=5)
    )
    for name in ("beto", "cira", "dino"):
        registration.enter(tournament, by=UserFactory(username=name, first_name=name.title()))
    UserFactory(username="ana", first_name="Ana", last_name="Rivera", password=PASSWORD)

    context = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "ana", PASSWORD, "/t/viernes/register/")
    page.get_by_label("Your name as it should appear").fill("Ana Rivera")
    check_accessibility(page)
    shot(page, "player-enter-phone")
    page.get_by_role("button", name="Enter", exact=True).click()
    page.get_by_text("You are entered.").wait_for()
    assert tournament.entrants.filter(name="Ana Rivera").exists()

    page.get_by_role("button", name="Check me in").click()
    page.get_by_text("You are checked in. Good luck!").wait_for()
    assert tournament.entrants.get(name="Ana Rivera").checked_in
    shot(page, "player-checked-in-phone")

    stage = services.add_stage(tournament, by=organizer, name="Round robin", format="round_robin")
    services.update_tournament(tournament, by=organizer, status="running")
    mail.outbox.clear()
    services.publish_round(services.generate_round(stage, by=organizer), by=organizer)
    page.reload()
    page.get_by_role("heading", name="Round 1: table 1").wait_for()
    seats = page.locator(".my-table .seats").inner_text()
    assert "Ana Rivera" in seats and "Beto" in seats
    told = [m for m in mail.outbox if m.to == ["ana@example.org"]]
    assert [m.subject for m in told] == ["capicu: your table is published"]
    assert "you play at table 1" in told[0].body
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "e2e-table-phone.png"), full_page=True)
    shot(page, "player-table-phone")

    page.goto(f"{live_server.url}/accounts/")
    page.get_by_text("Your account is the player").wait_for()
    assert (
        "Viernes Cut-Throat" in page.locator("section[aria-labelledby=player-title]").inner_text()
    )
    page.get_by_text("Emails are on.").wait_for()

    # The email's one-click link, opened signed out: it asks first, then unsubscribes.
    link = told[0].extra_headers["List-Unsubscribe"].strip("<>")
    assert link in told[0].body
    stranger = browser.new_context(viewport=PHONE).new_page()
    stranger.goto(live_server.url + urlsplit(link).path)
    stranger.get_by_text("Stop every email from capicu to this account?").wait_for()
    check_accessibility(stranger)
    stranger.get_by_role("button", name="Unsubscribe").click()
    stranger.get_by_text("capicu will not email you any more").wait_for()
    stranger.context.close()
    page.reload()
    page.get_by_text("Emails are off: capicu sends you none.").wait_for()
    page.get_by_role("button", name="Turn emails on").click()
    page.get_by_text("Emails are on.").wait_for()
    context.close()

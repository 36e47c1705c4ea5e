"""The small things a new organizer and referee met, on a phone in English and Spanish:
a staff invitation on the referee's own page, numbers in the reader's own format."""

import pytest

from tests.e2e.conftest import TABLE_PHONE, check_accessibility, fits, log_in
from tests.factories import UserFactory
from tests.test_pages import make_event
from tournaments import services
from tournaments.models import Invitation, Staff

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"
WORDS = {
    "en": {
        "title": "Invitations waiting for your answer",
        "invites": "org invites you to be referee of {name}.",
        "accept": "Accept",
        "decline": "Decline",
        "declined": "You declined the role in {name}.",
        "accepted": "You are now referee of {name}.",
    },
    "es": {
        "title": "Invitaciones que esperan su respuesta",
        "invites": "org le invita a ser árbitro de {name}.",
        "accept": "Aceptar",
        "decline": "Rechazar",
        "declined": "Rechazó el papel en {name}.",
        "accepted": "Ahora es árbitro de {name}.",
    },
}


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_referee_page_shows_a_pending_invitation_to_accept_or_decline(
    live_server, browser, language
):
    words = WORDS[language]
    organizer = UserFactory(username="org", password=PASSWORD)
    first, _ = make_event(organizer, slug="copa", public=False)
    second, _ = make_event(organizer, slug="liga", name="Liga del Barrio", public=False)
    UserFactory(username="marta", password=PASSWORD)
    for tournament in (first, second):
        services.invite_staff(tournament, by=organizer, username="marta", role="referee")
    context = browser.new_context(
        viewport=TABLE_PHONE, locale="es-ES" if language == "es" else "en-US"
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, live_server.url, "marta", PASSWORD, "/referee/")
    box = page.locator("section[aria-labelledby=invitations-title]")
    box.get_by_role("heading", name=words["title"]).wait_for()
    offered = box.locator("li", has_text=words["invites"].format(name=first.name))
    offered.wait_for()
    fits(page)
    check_accessibility(page)
    page.screenshot(path=f"test-output/e2e/referee-invitation-390-{language}.png")
    offered.get_by_role("button", name=words["decline"]).click()
    page.get_by_text(words["declined"].format(name=first.name)).wait_for()
    assert page.url.endswith("/referee/")  # the answer comes back to the referee's page
    assert not Invitation.objects.filter(tournament=first).exists()
    kept = page.locator("section[aria-labelledby=invitations-title] li").filter(
        has_text=second.name
    )
    kept.get_by_role("button", name=words["accept"]).click()
    page.get_by_text(words["accepted"].format(name=second.name)).wait_for()
    assert page.url.endswith("/referee/")
    assert Staff.objects.filter(tournament=second, user__username="marta").exists()
    assert page.locator("section[aria-labelledby=invitations-title]").count() == 0
    context.close()


@pytest.mark.parametrize("language", ["en", "es"])
def test_rule_set_names_stage_names_and_zones_read_right_on_a_phone(live_server, browser, language):
    spanish = language == "es"
    organizer = UserFactory(username="org", password=PASSWORD)
    services.create_tournament(
        by=organizer, name="Antes", ruleset_key="cutthroat", time_zone="Europe/Madrid"
    )
    context = browser.new_context(viewport=TABLE_PHONE, locale="es-PR" if spanish else "en-US")
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, live_server.url, "org", PASSWORD, "/organize/new/")

    # The chooser: each rule set by its own name, each with its own description.
    names = page.locator(".card-link").all_inner_texts()
    assert names[:3] == ["Cutthroat", "DCS Cut-Throat", "Partners"] and "Mexican" in names
    box = page.locator(".card", has=page.locator(".card-link", has_text="Two-box")).all()
    described = [card.locator("p").first.inner_text() for card in box]
    assert len(described) == 2 and described[0] != described[1]
    fits(page)
    page.screenshot(path=f"test-output/e2e/chooser-390-{language}.png")
    page.locator(".card-link", has_text="Mexican").click()
    title = "Nuevo torneo con las reglas Mexican" if spanish else "New Mexican tournament"
    page.get_by_role("heading", name=title).wait_for()

    # The first stage's name follows the format until one is typed.
    stage = page.locator("#id_stage_name")
    page.locator("#id_stage_format").select_option("swiss")
    assert stage.input_value() == ("Suizo" if spanish else "Swiss")
    stage.fill("Liga de otoño")
    page.locator("#id_stage_format").select_option("round_robin")
    assert stage.input_value() == "Liga de otoño"
    page.locator("#id_stage_format").select_option("swiss")
    page.locator("#id_name").fill(f"Copa {language}")
    page.locator("button.big").click()
    page.wait_for_url("**/manage/")
    made = Staff.objects.filter(user=organizer, tournament__name=f"Copa {language}").get()
    assert made.tournament.stages.get().name == "Liga de otoño"

    # The zone menu: the organizer's own and the browser's region first, no old aliases.
    page.goto(f"{live_server.url}/t/{made.tournament.slug}/manage/settings/")
    near = page.locator("#id_time_zone optgroup").first
    zones = near.locator("option").all_inner_texts()
    assert "Europe/Madrid" in zones and "America/Puerto_Rico" in zones
    every = page.locator("#id_time_zone option").all_inner_texts()
    assert "US/Eastern" not in every and "America/New_York" in every
    fits(page)
    page.screenshot(path=f"test-output/e2e/settings-zones-390-{language}.png")
    context.close()

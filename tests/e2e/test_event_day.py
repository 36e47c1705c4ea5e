"""The event day on a phone: check-in decides who is seated, a no-show is recorded at a
table and marked in the standings, and a late arrival plays from the next round."""

import random

import pytest

from tests.e2e.conftest import check_accessibility, check_in, fits, log_in, said
from tests.factories import UserFactory
from tournaments import services
from tournaments.demo import play
from tournaments.models import Match, MatchSeat, Round

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"
NAMES = [f"Jugador {i:02d}" for i in range(1, 10)]
PHONE = {"width": 390, "height": 844}


def test_check_in_seats_only_those_present_and_a_no_show_is_a_forfeit(live_server, browser, shot):
    organizer = UserFactory(username="organizer", password=PASSWORD)
    tournament = services.create_tournament(
        by=organizer, name="Copa del Día", ruleset_key="cutthroat", table_size=4
    )
    services.register_entrants(tournament, by=organizer, text="\n".join(NAMES))
    stage = services.add_stage(tournament, by=organizer, name="Round robin", format="round_robin")
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    manage = f"/t/{tournament.slug}/manage/"
    log_in(page, live_server.url, "organizer", PASSWORD, manage)

    # The stage asks for check-in: everyone but the last player arrives.
    page.get_by_label("Seat only checked-in entrants in this stage").check()
    page.get_by_role("button", name="Save check-in").click()
    said(page, "Round robin seats only checked-in entrants.")
    for name in NAMES[:-1]:
        check_in(page, name)
    page.locator("#check-in-state", has_text="8 of 9 entrants checked in.").wait_for()
    fits(page)
    check_accessibility(page)
    shot(page, "event-day-check-in-phone")

    page.get_by_role("button", name="Generate the next round").click()
    said(page, "Round 1 generated as a draft with 2 tables")
    page.get_by_role("button", name="Publish round 1").click()
    said(page, "Round 1 is published")
    absent = tournament.entrants.get(name=NAMES[-1])
    round_ = Round.objects.get(stage=stage, number=1)
    assert not MatchSeat.objects.filter(round=round_, entrant=absent).exists()
    page.locator("#not-seated", has_text=f"{NAMES[-1]} (not checked in)").wait_for()

    # A player at table 1 never sits down: the organizer records the no-show.
    first, second = Match.objects.filter(round=round_).order_by("table_number")
    no_show = first.seats.order_by("position").first().entrant
    page.get_by_label("Did not play").select_option(label=f"Table 1 · {no_show.name}")
    page.get_by_label("Why").select_option(label="No-show")
    page.locator("#dnp-confirm").check()
    page.get_by_role("button", name="Record the forfeit").click()
    said(page, f"{no_show.name} did not play at table 1 (no-show)")
    page.locator("#table-1 .pill.forfeit", has_text="forfeit (no-show)").wait_for()
    fits(page)
    shot(page, "event-day-no-show-phone")

    # The other table plays out; the standings mark the forfeit.
    play(second.game, organizer, random.Random(5))
    page.goto(f"{live_server.url}/t/{tournament.slug}/")
    line = page.locator("table.standings tr", has_text=no_show.name)
    line.locator(".mark", has_text="forfeit").wait_for()
    page.locator(".table-card .pill.forfeit", has_text="forfeit (no-show)").wait_for()
    fits(page)
    shot(page, "event-day-standings-phone")

    # The last player arrives late: checked in now, seated from round 2.
    page.goto(f"{live_server.url}{manage}")
    check_in(page, NAMES[-1])
    page.get_by_role("button", name="Generate the next round").click()
    said(page, "Round 2 generated as a draft with 3 tables")
    assert MatchSeat.objects.filter(round__stage=stage, round__number=2, entrant=absent).exists()
    assert page.locator("#not-seated").count() == 0
    context.close()

    spanish = browser.new_context(viewport=PHONE, locale="es-ES", device_scale_factor=2)
    page = spanish.new_page()
    log_in(page, live_server.url, "organizer", PASSWORD, manage)
    page.locator("#event-day-title", has_text="Registro de llegada y ausencias").wait_for()
    page.locator(
        "#check-in-state", has_text="9 de 9 participantes registraron su llegada."
    ).wait_for()
    fits(page)
    shot(page, "event-day-manage-phone-es")
    page.goto(f"{live_server.url}/t/{tournament.slug}/?round=1")
    page.locator("table.standings .mark", has_text="abandono").wait_for()
    page.locator(".table-card .pill.forfeit", has_text="abandono (no se presentó)").wait_for()
    shot(page, "event-day-standings-phone-es")
    spanish.close()

    for locale, language in (("en-US", "en"), ("es-ES", "es")):
        wide = browser.new_context(viewport={"width": 1280, "height": 900}, locale=locale)
        page = wide.new_page()
        log_in(page, live_server.url, "organizer", PASSWORD, manage)
        page.locator("#event-day-title").wait_for()
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        shot(page, f"event-day-manage-wide-{language}")
        page.goto(f"{live_server.url}/t/{tournament.slug}/?round=1")
        shot(page, f"event-day-standings-wide-{language}")
        wide.close()

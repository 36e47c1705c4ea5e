"""An organizer runs an event from the browser: create, register, pair, print, finish."""

import random

import pytest

from tests.e2e.conftest import check_accessibility, log_in, said
from tests.factories import UserFactory
from tournaments.demo import play
from tournaments.models import Match, Round, Stage, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"
NAMES = [f"Jugador {i:02d}" for i in range(1, 19)]


def test_organizer_runs_a_cutthroat_event_into_a_bracket(live_server, browser, shot):
    organizer = UserFactory(username="organizer", password=PASSWORD)
    UserFactory(username="mesa", password=PASSWORD)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, live_server.url, "organizer", PASSWORD, "/organize/")

    page.get_by_role("link", name="New tournament").click()
    page.get_by_role("link", name="Cutthroat", exact=True).click()
    check_accessibility(page)
    page.get_by_label("Name").fill("Copa del Barrio")
    page.get_by_label("Players at a table").select_option("4")
    page.get_by_role("button", name="Create the tournament").click()
    said(page, "Created Copa del Barrio")
    tournament = Tournament.objects.get(name="Copa del Barrio")

    page.get_by_label("Paste a list").fill("\n".join(NAMES))
    # Eighteen entrants written at once (and, where tasks run in the request, the
    # schedule's quick search): given more than a page's 15 s on a machine busy with
    # other test runs.
    page.get_by_role("button", name="Register them all").click(timeout=60_000)
    said(page, "Registered 18 entrants.")
    page.get_by_role("button", name="Generate the next round").click()
    said(page, "Round 1 generated as a draft with 5 tables")
    page.get_by_role("button", name="Publish round 1").click()
    said(page, "Round 1 is published")

    page.get_by_label("New referee account: username").fill("mesa1")
    page.get_by_role("button", name="Create", exact=True).click()
    said(page, "Created referee mesa1")
    assert "password" in page.locator(".notice").last.inner_text()
    page.goto(f"{live_server.url}/t/{tournament.slug}/manage/?round=1")
    page.get_by_label("One referee for every table").select_option(label="mesa1")
    page.get_by_role("button", name="Assign", exact=True).first.click()
    said(page, "mesa1 referees all 5 tables of round 1.")
    check_accessibility(page)
    shot(page, "organizer-round-published")

    page.get_by_role("link", name="Print table cards").click()
    page.emulate_media(media="print")
    page.locator(".table-card-print").first.wait_for()
    assert page.locator(".table-card-print").count() == 5
    shot(page, "organizer-table-cards-print-preview")
    page.emulate_media(media="screen")

    round_ = Round.objects.get(stage__tournament=tournament, number=1)
    for match in Match.objects.filter(round=round_, bye=False):
        play(match.game, organizer, random.Random(match.pk))  # the tables play their games
    page.goto(f"{live_server.url}/t/{tournament.slug}/manage/")
    page.get_by_text("Add a stage").click()
    page.get_by_label("Stage name").fill("Final bracket")
    page.get_by_label("Format", exact=True).select_option("single_elimination")
    page.get_by_role("button", name="Add the stage").click()
    said(page, "Added stage 2: Final bracket")
    page.get_by_role("link", name="Finish the stage…").click()
    page.get_by_label("Top overall").fill("16")
    page.get_by_role("button", name="Show who goes through").click()
    page.get_by_role("heading", name="16 go through to Final bracket").wait_for()
    assert page.locator("ol.through li").count() == 16
    # Only round 1 of the round robin was played: the page names the rounds left, and
    # the organizer ticks that the stage finishes without them.
    page.get_by_label("Finish without rounds").check()
    page.get_by_role("button", name="and send them through").click()
    said(page, "Final bracket is seeded from its standings.")
    bracket = Stage.objects.get(tournament=tournament, name="Final bracket")
    assert bracket.entrants.count() == 16
    page.goto(f"{live_server.url}/t/{tournament.slug}/manage/?stage=2")
    page.get_by_role("button", name="Generate the next round").click()
    said(page, "Round 1 generated as a draft")
    shot(page, "organizer-bracket-round")
    context.close()

    # The same key pages in Spanish, from a browser that asks for it.
    spanish = browser.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    page = spanish.new_page()
    log_in(page, live_server.url, "organizer", PASSWORD, f"/t/{tournament.slug}/manage/")
    assert page.get_by_role("button", name="Generar la siguiente ronda").is_visible()
    assert page.get_by_role("heading", name="Inscritos (18)").is_visible()
    shot(page, "organizer-manage-es")
    page.goto(f"{live_server.url}/t/{tournament.slug}/?stage=1")
    assert page.get_by_role("heading", name="Clasificación").is_visible()
    assert "4 jugadores, cada uno por su cuenta" in page.locator("details.rules").inner_text()
    shot(page, "public-tournament-es")
    page.goto(f"{live_server.url}/t/{tournament.slug}/rounds/1/cards/")
    assert "Árbitro: escanee para anotar esta mesa" in page.content()
    spanish.close()

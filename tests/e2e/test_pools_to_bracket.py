"""On a phone, an organizer runs pools into a bracket: the pools stage and its options,
its round, finishing it on the page that lists who goes through, and the bracket."""

import random

import pytest

from tests.e2e.conftest import check_accessibility, fits, log_in, said
from tests.factories import UserFactory
from tournaments import services
from tournaments.demo import play
from tournaments.models import Match, Round, Stage

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"
PHONE = {"width": 390, "height": 844}


def test_pools_into_a_bracket_on_a_phone(live_server, browser, shot):
    organizer = UserFactory(username="organizer", password=PASSWORD)
    tournament = services.create_tournament(
        by=organizer, name="Copa de Grupos", ruleset_key="cutthroat", table_size=4
    )
    services.register_entrants(
        tournament, by=organizer, text="\n".join(f"Jugadora {i:02d}" for i in range(1, 17))
    )
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    manage = f"/t/{tournament.slug}/manage/"
    log_in(page, live_server.url, "organizer", PASSWORD, manage)

    # A typo is answered in its field, and nothing is added.
    page.get_by_text("Add a stage").click()
    page.get_by_label("Stage name").fill("Grupos")
    page.get_by_label("Format", exact=True).select_option("pools")
    page.get_by_label("Pools", exact=True).fill("dos")
    page.get_by_role("button", name="Add the stage").click()
    page.locator(".has-error .error", has_text="Enter a whole number.").wait_for()
    assert not Stage.objects.filter(tournament=tournament).exists()
    check_accessibility(page)
    fits(page)
    shot(page, "stage-form-error-phone")
    page.get_by_label("Pools", exact=True).fill("4")
    page.get_by_label("Go through from each table or pool").fill("1")
    page.get_by_role("button", name="Add the stage").click()
    said(page, "Added stage 1: Grupos.")
    assert page.get_by_text("4 pools").first.is_visible()

    page.get_by_text("Add a stage").click()
    page.get_by_label("Stage name").fill("Final")
    page.get_by_label("Format", exact=True).select_option("single_elimination")
    page.get_by_role("button", name="Add the stage").click()
    said(page, "Added stage 2: Final.")

    page.goto(f"{live_server.url}{manage}?stage=1")
    page.get_by_role("button", name="Generate the next round").click()
    said(page, "Round 1 generated as a draft with 4 tables")
    page.get_by_role("button", name="Publish round 1").click()
    said(page, "Round 1 is published")
    fits(page)

    pools = Stage.objects.get(tournament=tournament, order=1)
    round_ = Round.objects.get(stage=pools)
    for match in Match.objects.filter(round=round_, bye=False):
        play(match.game, organizer, random.Random(match.pk))  # the tables play their games

    page.goto(f"{live_server.url}{manage}?stage=1")
    page.get_by_role("link", name="Finish the stage…").click()
    # "abc" is a field error; nothing finishes.
    page.get_by_label("Top of each pool").fill("abc")
    page.get_by_role("button", name="Show who goes through").click()
    page.locator(".has-error .error", has_text="Enter a whole number.").wait_for()
    assert Stage.objects.get(pk=pools.pk).status == Stage.Status.RUNNING
    page.get_by_label("Top of each pool").fill("1")
    page.get_by_role("button", name="Show who goes through").click()
    page.get_by_role("heading", name="4 go through to Final").wait_for()
    assert page.locator("ol.through li").count() == 4
    check_accessibility(page)
    fits(page)
    shot(page, "finish-stage-confirm-phone")
    assert Stage.objects.get(pk=pools.pk).status == Stage.Status.RUNNING  # listed only
    page.get_by_role("button", name="Finish Grupos and send them through").click()
    said(page, "Grupos finished; Final is seeded from its standings.")
    final = Stage.objects.get(tournament=tournament, order=2)
    assert final.entrants.count() == 4

    page.get_by_role("button", name="Generate the next round").click()
    said(page, "Round 1 generated as a draft with 1 table.")
    page.get_by_role("button", name="Publish round 1").click()
    said(page, "Round 1 is published")
    seated = page.locator(".table-card .seats li").all_inner_texts()
    assert len(seated) == 4
    shot(page, "bracket-manage-phone")

    page.goto(f"{live_server.url}/t/{tournament.slug}/?stage=2")
    page.locator(".table-card").first.wait_for()
    assert page.locator(".table-card .seats li").count() == 4
    fits(page)
    shot(page, "bracket-public-phone")
    context.close()

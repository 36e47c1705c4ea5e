"""The organizer's officiating pages in a browser, in English and Spanish, on a phone and
a desktop: open disputes in the event's header, settling one, disqualifying, the audit
list and the marks in the standings."""

import pytest

from scoring import officiating
from scoring import services as scoring
from tests.e2e.conftest import log_in
from tests.factories import UserFactory, event_referee
from tournaments import services
from tournaments.models import Entrant, MatchSeat
from tournaments.read.standings_store import rebuild_standings

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"
SHOTS = "/tmp/shots-officiating"
SIZES = {"390": {"width": 390, "height": 844}, "1280": {"width": 1280, "height": 900}}


def event():
    organizer = UserFactory(username="org", password=PASSWORD)
    referee = UserFactory(username="ref", password=PASSWORD)
    tournament = services.create_tournament(
        by=organizer, name="Copa DCS", slug="copa-dcs", ruleset_key="dcs", table_size=4
    )
    services.register_entrants(
        tournament, by=organizer, text="\n".join(f"Jugador {i:02d}" for i in range(8))
    )
    stage = services.add_stage(tournament, by=organizer, name="RR", format="round_robin")
    round_ = services.generate_round(stage, by=organizer)
    services.publish_round(round_, by=organizer)
    event_referee(tournament, user=referee)
    games = [m.game for m in round_.matches.order_by("table_number")]
    for game in games:
        services.assign_referee(game.match, referee, by=organizer)
    scoring.record_hand(
        games[0], by=referee, number=1, ended="block", pips={"A": 8, "B": 15, "C": 22, "D": 12}
    )
    scoring.add_score_event(games[0], by=referee, hand=2, seat="B", kind="clock_violation")
    scoring.add_score_event(games[0], by=referee, hand=2, seat="B", kind="clock_violation")
    officiating.open_dispute(games[0], by=referee, note="D says he held 2, not 12", hand=1)
    officiating.forfeit_seat(games[1], "C", "left the hall", organizer)
    return tournament, organizer, games


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_organizer_settles_disputes_and_reads_the_audit(live_server, browser, language):
    tournament, _organizer, games = event()
    for size, viewport in SIZES.items():
        context = browser.new_context(viewport=viewport, locale=language)
        page = context.new_page()
        page.set_default_timeout(10_000)
        log_in(page, live_server.url, "org", PASSWORD, f"/t/{tournament.slug}/manage/")
        header = page.locator("#disputes-title").inner_text()
        assert header.startswith("1 ")
        page.screenshot(path=f"{SHOTS}/manage-{size}-{language}.png", full_page=False)
        page.goto(f"{live_server.url}/games/{games[0].pk}/score/")
        page.screenshot(path=f"{SHOTS}/score-org-{size}-{language}.png", full_page=True)
        page.goto(f"{live_server.url}/t/{tournament.slug}/manage/audit/")
        page.screenshot(path=f"{SHOTS}/audit-{size}-{language}.png", full_page=True)
        context.close()
    # Settle it from the phone, in the reader's language.
    context = browser.new_context(viewport=SIZES["390"], locale=language)
    page = context.new_page()
    log_in(page, live_server.url, "org", PASSWORD, f"/t/{tournament.slug}/manage/")
    dispute = page.locator("#disputes article").first
    dispute.locator("input[name=reason]").fill("la foto lo muestra")
    dispute.locator("button[value=dismissed]").click()
    page.wait_for_url("**/manage/**")
    assert page.locator("#disputes-title").inner_text().startswith("0 ")
    seat = MatchSeat.objects.filter(match__game=games[0]).order_by("position").first()
    page.locator("#dq-entrant").select_option(str(seat.entrant_id))
    page.locator("#dq-reason").fill("conducta antideportiva")
    page.locator("#dq-confirm").check()
    page.locator("#disqualify-form button").click()
    page.wait_for_url("**#sanctions")
    assert Entrant.objects.get(pk=seat.entrant_id).disqualified_reason == "conducta antideportiva"
    page.screenshot(path=f"{SHOTS}/sanctions-390-{language}.png", full_page=False)
    rebuild_standings(tournament.pk)
    page.goto(f"{live_server.url}/t/{tournament.slug}/")
    word = "descalificado" if language == "es" else "disqualified"
    page.locator("#standings .mark").get_by_text(word).first.wait_for()
    page.screenshot(path=f"{SHOTS}/standings-390-{language}.png", full_page=True)
    page.goto(f"{live_server.url}/games/{games[0].pk}/")
    page.screenshot(path=f"{SHOTS}/game-390-{language}.png", full_page=False)
    context.close()

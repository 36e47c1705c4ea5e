"""A whole event day run by an organizer from a phone (390 by 844), browser only for every
organizer action: a tournament from a preset, a pasted field of 18 at tables of four, a
second stage, check-in that leaves two out, round 1 published without them, a late
arrival seated from round 2, a no-show and a forfeit recorded and marked in the
standings; then a pooled event finished on its confirmation page into a bracket where a
withdrawn entrant gives a walkover.

The games themselves are played through the scoring service for most tables (to keep the
test short); one table is scored hand by hand on the referee's page in the browser."""

import random
import re
from pathlib import Path

import pytest

from tests.e2e.conftest import check_in, fits, log_in, said
from tests.factories import UserFactory
from tournaments.demo import play
from tournaments.models import Entrant, Match, MatchSeat, Round, Stage, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"
PHONE = {"width": 390, "height": 844}
NAMES = [f"Jugador {i:02d}" for i in range(1, 19)]


def create_from_preset(page, name: str, *, first_stage: str = "", **options) -> Tournament:
    page.get_by_role("link", name="New tournament").click()
    page.get_by_role("link", name="Cutthroat", exact=True).click()
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Players at a table").select_option("4")
    if first_stage:
        page.get_by_label("First stage", exact=True).fill(first_stage)
        page.get_by_label("Format", exact=True).select_option(options.pop("format"))
        for label, value in options.items():
            page.get_by_label(label, exact=True).fill(value)
    fits(page)
    page.get_by_role("button", name="Create the tournament").click()
    said(page, f"Created {name}")
    return Tournament.objects.get(name=name)


def paste_field(page, names: list[str]) -> None:
    page.get_by_label("Paste a list").fill("\n".join(names))
    # Eighteen entrants written at once (and, where tasks run in the request, the
    # schedule's quick search): given more than a page's 15 s on a machine busy with
    # other test runs.
    page.get_by_role("button", name="Register them all").click(timeout=60_000)
    said(page, f"Registered {len(names)} entrants.")


def add_stage(page, name: str, form: str, **fields) -> None:
    page.get_by_text("Add a stage").click()
    page.get_by_label("Stage name").fill(name)
    page.get_by_label("Format", exact=True).select_option(form)
    for label, value in fields.items():
        page.get_by_label(label, exact=True).fill(value)
    fits(page)
    page.get_by_role("button", name="Add the stage").click()
    said(page, f": {name}.")


def play_by_service(round_: Round, organizer, *, but=()) -> None:
    for match in Match.objects.filter(round=round_, bye=False, game__isnull=False):
        if match.pk not in but and not match.game.is_finished:
            play(match.game, organizer, random.Random(match.pk))


def score_in_the_browser(page, game) -> None:
    """The referee scores a four-player Cutthroat table to its winner: three dominoes by
    the first seat, 90 points each, pass 250."""
    names = [seat.display_name for seat in game.seats.order_by("name")]
    for number in (1, 2, 3):
        page.get_by_label(f"Domino by {names[0]}", exact=True).check()
        for other in names[1:]:
            page.get_by_label(f"Pips left: {other}").fill("30")
        page.get_by_role("button", name=f"Confirm hand {number}").click()
        page.locator("#referee-bar").get_by_text(f"Hand {number} saved: {names[0]} +90.").wait_for()


def test_an_organizer_runs_the_whole_event_day_from_a_phone(live_server, browser, shot):
    organizer = UserFactory(username="organizer", password=PASSWORD)
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.on("dialog", lambda dialog: dialog.accept())
    log_in(page, live_server.url, "organizer", PASSWORD, "/organize/")

    # A tournament from a preset, a demo-sized field pasted, a second stage.
    tournament = create_from_preset(page, "Copa del Día")
    manage = f"{live_server.url}/t/{tournament.slug}/manage/"
    paste_field(page, NAMES)
    add_stage(page, "Final", "single_elimination")
    page.goto(f"{manage}?stage=1")
    fits(page)

    # Check-in is required; everyone but two arrives.
    late, absent = NAMES[-2], NAMES[-1]
    page.get_by_label("Seat only checked-in entrants in this stage").check()
    page.get_by_role("button", name="Save check-in").click()
    said(page, "seats only checked-in entrants.")
    for name in NAMES[:-2]:
        check_in(page, name)
    page.locator("#check-in-state", has_text="16 of 18 entrants checked in.").wait_for()
    fits(page)
    shot(page, "whole-day-check-in-phone")

    # Round 1 seats the sixteen present: the two absent are not seated.
    page.get_by_role("button", name="Generate the next round").click()
    said(page, "Round 1 generated as a draft with 4 tables.")
    page.get_by_role("button", name="Publish round 1").click()
    said(page, "Round 1 is published")
    stage = Stage.objects.get(tournament=tournament, order=1)
    first = Round.objects.get(stage=stage, number=1)
    away = list(tournament.entrants.filter(name__in=(late, absent)))
    assert not MatchSeat.objects.filter(round=first, entrant__in=away).exists()
    page.locator("#not-seated", has_text=f"{late} (not checked in)").wait_for()

    # A no-show at table 1, recorded by the organizer.
    tables = list(Match.objects.filter(round=first).order_by("table_number"))
    no_show = tables[0].seats.order_by("position").first().entrant
    page.get_by_label("Did not play").select_option(label=f"Table 1 · {no_show.name}")
    page.get_by_label("Why").select_option(label="No-show")
    page.locator("#dnp-confirm").check()
    page.get_by_role("button", name="Record the forfeit").click()
    said(page, f"{no_show.name} did not play at table 1 (no-show)")
    page.locator("#table-1 .pill.forfeit", has_text="forfeit (no-show)").wait_for()

    # A referee account for the day, made on the page; it referees table 2.
    page.get_by_label("New referee account: username").fill("mesa1")
    page.get_by_role("button", name="Create", exact=True).click()
    said(page, "Created referee mesa1")
    password = page.locator(".notice code").first.inner_text()
    page.goto(f"{manage}?stage=1&round=1")
    page.locator("#table-2").get_by_label("Referee").select_option(label="mesa1")
    page.locator("#table-2").get_by_role("button", name="Assign").click()
    said(page, "mesa1 referees table 2.")

    # A forfeit at table 3: the organizer's sanction on the scoring page.
    forfeited_game = tables[2].game
    forfeiter = forfeited_game.seats.order_by("name").last()
    page.goto(f"{live_server.url}/games/{forfeited_game.pk}/score/")
    page.get_by_text("Sanctions (organizers)").click()
    page.get_by_label("Seat", exact=True).select_option(label=forfeiter.display_name)
    page.get_by_label("Reason", exact=True).fill("left the hall")
    page.get_by_role("button", name="Forfeit the game for this seat").click()
    page.get_by_text(f"Forfeit by {forfeiter.display_name};").first.wait_for()
    fits(page)
    shot(page, "whole-day-forfeit-on-scoring-page-phone")

    # Table 2 is scored on the referee's own phone, hand by hand; table 4 by the service.
    referee = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
    ref_page = referee.new_page()
    ref_page.set_default_timeout(15_000)
    log_in(ref_page, live_server.url, "mesa1", password, f"/games/{tables[1].game_id}/score/")
    score_in_the_browser(ref_page, tables[1].game)
    referee.close()
    play_by_service(first, organizer)
    assert all(m.game.is_finished for m in Match.objects.filter(round=first))

    # The standings mark the no-show's and the forfeiter's games.
    page.goto(f"{live_server.url}/t/{tournament.slug}/?stage=1")
    for name in (no_show.name, forfeiter.display_name):
        line = page.locator("table.standings tr", has_text=name)
        line.locator(".mark", has_text="forfeit").wait_for()
    fits(page)
    shot(page, "whole-day-standings-phone")

    # The late arrival checks in and is seated from round 2; the absent one still is not.
    page.goto(f"{manage}?stage=1")
    check_in(page, late)
    page.get_by_role("button", name="Generate the next round").click()
    said(page, "Round 2 generated as a draft")
    second = Round.objects.get(stage=stage, number=2)
    seated = set(MatchSeat.objects.filter(round=second).values_list("entrant__name", flat=True))
    assert late in seated and absent not in seated
    page.get_by_role("button", name="Publish round 2").click()
    said(page, "Round 2 is published")
    page.locator("#not-seated", has_text=f"{absent} (not checked in)").wait_for()
    fits(page)
    shot(page, "whole-day-round-2-phone")
    context.close()


def test_an_organizer_runs_a_pooled_event_into_a_bracket_with_a_walkover(
    live_server, browser, shot
):
    organizer = UserFactory(username="organizer", password=PASSWORD)
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, live_server.url, "organizer", PASSWORD, "/organize/")

    # The pools stage is the event's first, with its options, from the new-event page.
    tournament = create_from_preset(
        page,
        "Copa de Grupos",
        first_stage="Grupos",
        format="pools",
        Pools="4",
        **{"Go through from each table or pool": "2"},
    )
    manage = f"{live_server.url}/t/{tournament.slug}/manage/"
    paste_field(page, NAMES[:16])
    add_stage(page, "Llave", "single_elimination")
    pools = Stage.objects.get(tournament=tournament, name="Grupos")
    assert (pools.order, pools.settings) == (1, {"pools": 4, "advance": 2})

    page.goto(f"{manage}?stage={pools.order}")
    page.get_by_role("button", name="Generate the next round").click()
    said(page, "Round 1 generated as a draft with 4 tables.")
    page.get_by_role("button", name="Publish round 1").click()
    said(page, "Round 1 is published")
    play_by_service(Round.objects.get(stage=pools, number=1), organizer)

    page.goto(f"{manage}?stage={pools.order}")
    page.get_by_role("link", name="Finish the stage…").click()
    page.get_by_label("Top of each pool").fill("2")
    page.get_by_role("button", name="Show who goes through").click()
    # The list is read once the answer has loaded: count() does not wait for it.
    page.get_by_role("heading", name="8 go through to Llave").wait_for()
    assert page.locator("ol.through li").count() == 8
    fits(page)
    shot(page, "whole-day-finish-pools-phone")
    page.get_by_role("button", name="Finish Grupos and send them through").click()
    said(page, "Grupos finished; Llave is seeded from its standings.")
    bracket = Stage.objects.get(tournament=tournament, name="Llave")
    assert bracket.entrants.count() == 8

    # One of the eight withdraws before the bracket is seated: their table is a walkover.
    gone = Entrant.objects.get(pk=bracket.settings["seeding"][-1])
    page.goto(f"{manage}?stage={bracket.order}")
    row = page.locator("tr", has_text=gone.name)
    row.get_by_text("Withdraw…").click()
    row.get_by_role("button", name=f"Withdraw {gone.name}").click()
    said(page, f"{gone.name}")
    page.get_by_role("button", name="Generate the next round").click()
    said(page, "Round 1 generated as a draft with 4 tables. The pairing left 1 note.")
    page.get_by_role("button", name="Publish round 1").click()
    said(page, "Round 1 is published")
    seat = MatchSeat.objects.get(round__stage=bracket, entrant=gone)
    assert seat.did_not_play == MatchSeat.DidNotPlay.WITHDRAWN
    assert seat.match.game is None  # a walkover: no game for the withdrawn entrant
    page.locator(".table-card .pill", has_text="walkover").first.wait_for()
    fits(page)
    shot(page, "whole-day-bracket-manage-phone")
    page.goto(f"{live_server.url}/t/{tournament.slug}/?stage={bracket.order}")
    page.get_by_text(re.compile("forfeit \\(withdrawn\\)")).first.wait_for()
    fits(page)
    shot(page, "whole-day-bracket-public-phone")
    context.close()


SHOTS = Path("/tmp/shots-dayqa")
SIZES = {"390": PHONE, "1280": {"width": 1280, "height": 900}}


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_new_event_and_finish_pages_read_right_on_a_phone_and_wide(
    live_server, browser, language
):
    from tournaments import services

    SHOTS.mkdir(exist_ok=True)
    organizer = UserFactory(username="organizer", password=PASSWORD)
    tournament = services.create_tournament(
        by=organizer, name="Liga", ruleset_key="cutthroat", table_size=4
    )
    services.register_entrants(tournament, by=organizer, text="\n".join(NAMES[:8]))
    liga = services.add_stage(tournament, by=organizer, name="Liga", format="round_robin")
    services.add_stage(tournament, by=organizer, name="Final", format="single_elimination")
    round_ = services.generate_round(liga, by=organizer)
    services.publish_round(round_, by=organizer)
    play_by_service(round_, organizer)
    spanish = language == "es"
    for size, viewport in SIZES.items():
        context = browser.new_context(viewport=viewport, locale=language)
        page = context.new_page()
        page.set_default_timeout(15_000)
        log_in(page, live_server.url, "organizer", PASSWORD, "/organize/")
        page.goto(f"{live_server.url}/organize/new/?preset=cutthroat")
        page.locator("#id_pools").wait_for()
        label = page.locator("label[for=id_pools]").inner_text()
        assert label == ("Grupos" if spanish else "Pools"), label
        page.locator("button.big").click()  # no name, pools without a count: refused
        error = page.locator(".has-error .error").first.inner_text()
        assert error == ("Este campo es requerido." if spanish else "This field is required.")
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.screenshot(path=str(SHOTS / f"new-event-{size}-{language}.png"), full_page=True)

        page.goto(f"{live_server.url}/t/{tournament.slug}/manage/stages/new/")
        page.locator("#id_format").select_option("single_elimination")
        third = page.locator("input[name=third_place]")
        assert third.is_visible()
        label = "Partida por el tercer puesto" if spanish else "Third-place match"
        assert label in page.locator("label", has=third).inner_text()
        page.locator("#id_format").select_option("round_robin")
        assert not third.is_visible()  # only a single-elimination bracket's option
        page.locator("#id_format").select_option("single_elimination")
        third.check()
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.screenshot(path=str(SHOTS / f"add-stage-{size}-{language}.png"), full_page=True)
        page.locator("#id_name").fill(f"Bronce {size}")
        page.locator("form[data-stage-form] button[type=submit]").click()
        page.locator(".notice", has_text=f"Bronce {size}").wait_for()
        order = Stage.objects.get(tournament=tournament, name=f"Bronce {size}").order
        page.goto(f"{live_server.url}/t/{tournament.slug}/manage/?stage={order}")
        words = "partida por el tercer puesto" if spanish else "third-place match"
        assert words in page.locator("main").inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.screenshot(path=str(SHOTS / f"manage-{size}-{language}.png"), full_page=False)

        finish = f"{live_server.url}/t/{tournament.slug}/manage/stages/1/finish/"
        page.goto(f"{finish}?top=4")
        assert page.locator("ol.through li").count() == 4
        # Only round 1 of the round robin was played: the page says which rounds are
        # left and the organizer ticks that they finish without them.
        caution = page.locator(".caution")
        assert ("rondas 2, 3" if spanish else "Rounds 2, 3") in caution.inner_text()
        caution.locator("input[name=unplayed_rounds]").check()
        # Another tab corrects the standings in between: the page refuses and lists again.
        page.locator("input[name=listed]").evaluate("(el) => { el.value = '1,2,3,999'; }")
        page.locator("button.big").click()
        refused = page.locator(".error-box").inner_text()
        assert refused.startswith("Quién pasa cambió" if spanish else "Who goes through changed")
        assert page.locator("ol.through li").count() == 4
        assert Stage.objects.get(pk=liga.pk).status == Stage.Status.RUNNING
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.screenshot(path=str(SHOTS / f"finish-refused-{size}-{language}.png"), full_page=True)
        context.close()

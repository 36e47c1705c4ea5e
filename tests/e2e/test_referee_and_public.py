"""A referee scores from a phone; a player watches the standings change by themselves."""

import random
import re

import pytest

from scoring.models import Game, Hand
from scoring.services import start_game
from tests.e2e.conftest import check_accessibility, log_in
from tests.factories import PlayerFactory, UserFactory
from tournaments import services
from tournaments.demo import play

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"


def names_of(game: Game) -> dict[str, str]:
    return {seat.name: seat.display_name for seat in game.seats.all()}


def finish_hand(page, *, ending: str, pips: dict[str, int]) -> None:
    """Fill the end-of-hand form the way a referee does: a tap, then the keypad."""
    page.get_by_label(ending, exact=True).check()
    for label, value in pips.items():
        page.get_by_label(f"Pips left: {label}").fill(str(value))


def confirm(page, number: int) -> None:
    page.get_by_role("button", name=f"Confirm hand {number}").click()


def test_referee_scores_a_cutthroat_game_to_its_winner_on_a_phone(live_server, phone, shot):
    referee = UserFactory(username="ref", password=PASSWORD)
    players = [PlayerFactory(display_name=n) for n in ("Ana", "Beto", "Cira", "Dino")]
    game = start_game(ruleset_key="cutthroat", seats=players, referees=[referee], label="Mesa 1")
    page = phone
    log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/")
    check_accessibility(page)

    # Hand 1: Ana dominoes; 20 + 25 + 30 = 75. The preview shows it before confirming.
    finish_hand(page, ending="Domino by Ana", pips={"Beto": 20, "Cira": 25, "Dino": 30})
    page.locator("#preview").get_by_text("If confirmed").wait_for()
    assert "Ana +75" in page.locator("#preview").inner_text()
    confirm(page, 1)
    page.locator("#referee-bar").get_by_text("Hand 1 saved: Ana +75.").wait_for()

    # Hand 2: in-play points, then a block: Ana holds 5 and scores 10 + 20 + 30 - 5 = 55.
    page.get_by_role("button", name="Beto plus 10").click()
    page.locator("#referee-bar").get_by_text("Beto +10.").wait_for()
    finish_hand(page, ending="Blocked", pips={"Ana": 5, "Beto": 10, "Cira": 20, "Dino": 30})
    confirm(page, 2)
    page.locator("#referee-bar").get_by_text("Hand 2 saved: Ana +55.").wait_for()

    # Hand 3: the answer is lost on the way back; the retry does not count it twice.
    finish_hand(page, ending="Domino by Ana", pips={"Beto": 30, "Cira": 30, "Dino": 30})
    state = {"dropped": False}

    def drop_first_answer(route):
        if not state["dropped"]:
            state["dropped"] = True
            route.fetch()  # the server saves the hand ...
            route.abort("failed")  # ... and the phone never hears back
        else:
            route.continue_()

    page.route("**/score/hand/", drop_first_answer)
    confirm(page, 3)
    # The phone keeps the hand in its outbox and sends it again with the same key.
    page.locator("#referee-bar").get_by_text(
        "Hand 3 was already saved; it was not counted twice."
    ).wait_for()
    assert Game.objects.get(pk=game.pk).hand_count == 3
    page.unroute("**/score/hand/")
    assert Hand.objects.filter(game=game, number=3).count() == 1

    # A correction: hand 1's Dino held 35, not 30 (the award becomes 80).
    page.get_by_role("link", name="Correct hand 1").click()
    page.get_by_label("Pips left: Dino").fill("35")
    page.get_by_role("button", name="Save correction").click()
    page.get_by_text("Say why the hand is being corrected.").wait_for()
    page.get_by_label("Why is this hand being corrected?").fill("Dino's pips miscounted")
    page.get_by_label("Pips left: Dino").fill("35")
    page.get_by_role("button", name="Save correction").click()
    page.locator("#referee-bar").get_by_text("Hand 1 corrected: Dino's pips miscounted").wait_for()
    assert page.locator(".total-box").first.inner_text().split()[-1] == "225"

    # Hand 4 wins it: 10 + 10 + 10 = 30 takes Ana from 225 to 255.
    finish_hand(page, ending="Domino by Ana", pips={"Beto": 10, "Cira": 10, "Dino": 10})
    confirm(page, 4)
    page.locator("#referee-bar").get_by_text("Game over: Ana won.").wait_for()
    assert "Winner: Ana" in page.locator(".final").inner_text()
    game.refresh_from_db()
    assert game.status == "finished" and game.winner == "A" and game.total_of("A") == 255
    shot(page, "referee-cutthroat-final")

    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert "corrected (version 2): Dino's pips miscounted" in page.content()
    assert page.locator("svg.chart polyline").count() == 4
    shot(page, "game-page-cutthroat")


def test_partners_tied_block_scores_nothing(live_server, phone, shot):
    referee = UserFactory(username="ref", password=PASSWORD)
    players = [PlayerFactory(display_name=n) for n in ("Eva", "Fito", "Gabi", "Hugo")]
    game = start_game(ruleset_key="partners", seats=players, referees=[referee], label="Mesa 2")
    page = phone
    log_in(page, live_server.url, "ref", PASSWORD, f"/games/{game.pk}/score/")
    # Eva & Gabi hold 10 + 5, Fito & Hugo 7 + 8: a tie, and a tied block scores nothing.
    finish_hand(page, ending="Blocked", pips={"Eva": 10, "Fito": 7, "Gabi": 5, "Hugo": 8})
    # "Who holds the double six?" is asked for hand 1: its answer is the hand's "Led by".
    page.locator("#leader-question").get_by_role("button", name="Eva").click()
    page.locator("#referee-bar.saved", has_text="Eva leads hand 1.").wait_for()
    page.locator("#preview").get_by_text("If confirmed").wait_for()
    assert "Eva & Gabi 0" in page.locator("#preview").inner_text()
    confirm(page, 1)
    page.locator("#referee-bar").get_by_text("Hand 1 saved: no award.").wait_for()
    totals = [t.inner_text() for t in page.locator(".total-box .score").all()]
    assert totals == ["0", "0"]
    check_accessibility(page)
    shot(page, "referee-partners-tied-block")
    hand = Hand.objects.get(game=game, number=1)
    assert hand.ended == "block" and hand.awards == {"A+C": 0, "B+D": 0}


def league_in_play(organizer, *, name: str, slug: str):
    """Eight players at two tables of a published first round: (tournament, stage, round)."""
    tournament = services.create_tournament(
        by=organizer, name=name, ruleset_key="cutthroat", table_size=4, slug=slug
    )
    services.update_tournament(tournament, by=organizer, status="registration")
    services.register_entrants(
        tournament, by=organizer, text="\n".join(f"Jugador {i}" for i in range(1, 9))
    )
    stage = services.add_stage(tournament, by=organizer, name="Liga", format="round_robin")
    services.update_tournament(tournament, by=organizer, status="running")
    round_ = services.generate_round(stage, by=organizer)
    services.publish_round(round_, by=organizer)
    return tournament, stage, round_


def test_a_player_watches_the_standings_change_without_reloading(live_server, browser, shot):
    from playwright.sync_api import expect

    organizer = UserFactory(username="organizer")
    _tournament, _stage, round_ = league_in_play(organizer, name="Copa en vivo", slug="vivo")
    match = round_.matches.order_by("table_number").first()

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{live_server.url}/t/vivo/")
    page.evaluate("window.sameDocument = 'yes'")
    first_gp = "() => document.querySelector('#standings tbody tr td:nth-child(3)').innerText"
    assert page.evaluate(first_gp) == "0"  # nobody has played yet
    check_accessibility(page)

    play(match.game, organizer, random.Random(5))  # the table finishes its game
    game = Game.objects.get(pk=match.game_id)
    winner = next(
        seat.entrant.name
        for seat in match.seats.all()
        if ["A", "B", "C", "D"][seat.position] == game.winner
    )
    # Playwright's expect polls without evaluating strings, which the page's CSP forbids.
    expect(page.locator("#standings tbody tr td:nth-child(3)").first).to_have_text(
        "1", timeout=20_000
    )
    first_row = page.locator("#standings tbody tr").first.inner_text()
    assert winner in first_row
    table = page.locator(f"#table-{match.table_number}")
    assert re.search(str(game.total_of(game.winner)), table.inner_text())
    assert page.evaluate("window.sameDocument") == "yes"  # no reload happened
    shot(page, "public-standings-live")
    context.close()


def test_a_phone_sees_one_table_change_and_follows_the_tables_into_the_next_round(
    live_server, phone, shot
):
    organizer = UserFactory(username="organizer")
    _tournament, stage, round_ = league_in_play(organizer, name="Copa móvil", slug="movil")
    first, second = round_.matches.order_by("table_number")

    page = phone
    page.goto(f"{live_server.url}/t/movil/")
    page.evaluate("window.sameDocument = 'yes'")
    untouched = page.locator("#table-1").inner_text()

    play(second.game, organizer, random.Random(4), hands=1)  # a hand at table 2 only
    game = Game.objects.get(pk=second.game_id)
    best = str(max(game.totals.values()))
    page.locator("#table-2 .score", has_text=best).first.wait_for(timeout=20_000)
    assert page.locator("#table-1").inner_text() == untouched
    check_accessibility(page)
    shot(page, "public-tables-live-phone")

    play(first.game, organizer, random.Random(5))
    play(second.game, organizer, random.Random(6))
    services.publish_round(services.generate_round(stage, by=organizer), by=organizer)
    page.locator("#tables", has_text="Round 2").wait_for(timeout=20_000)
    assert page.evaluate("window.sameDocument") == "yes"  # no reload happened
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width} px)"
    shot(page, "public-next-round-phone")

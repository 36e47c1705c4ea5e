"""No irreversible tap on the organizer's phone: withdrawing someone asks first and says
what it does, cancelling changes nothing, the table not started plays on or is reseated
as chosen, and check-in, absent and withdraw leave the page where it was."""

import pytest

from tests.e2e.conftest import TABLE_PHONE, fits, log_in
from tests.factories import UserFactory
from tournaments import services
from tournaments.models import Entrant, Match

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"
NAMES = [f"Jugador {i:02d}" for i in range(1, 17)]

WORDS = {
    "en": {
        "check_in": "Check in",
        "absent": "Mark absent",
        "withdraw": "Withdraw…",
        "confirm": "Withdraw {name}",
        "cancel": "Cancel",
        "not_started": "Table {table} has not started",
        "play_on": "Table {table} plays on with 3 players.",
        "reseat": "Someone free in this round takes the seat at table {table}",
        "done": "{name} withdrew; their table plays on without them.",
        "checked": "{name} checked in.",
        "marked": "{name} marked absent.",
    },
    "es": {
        "check_in": "Registrar llegada",
        "absent": "Marcar ausente",
        "withdraw": "Retirar…",
        "confirm": "Retirar a {name}",
        "cancel": "Cancelar",
        "not_started": "La mesa {table} no ha empezado",
        "play_on": "La mesa {table} sigue jugando con 3 jugadores.",
        "reseat": "Alguien libre en esta ronda ocupa el asiento en la mesa {table}",
        "done": "{name} se retiró; su mesa sigue jugando sin él.",
        "checked": "{name} registró su llegada.",
        "marked": "{name} marcado ausente.",
    },
}


def _event(organizer, slug: str):
    tournament = services.create_tournament(
        by=organizer, name=f"Copa {slug}", ruleset_key="cutthroat", table_size=4
    )
    services.register_entrants(tournament, by=organizer, text="\n".join(NAMES))
    # Swiss: a round robin plans its whole schedule again when the field changes, which
    # without a worker (no REDIS_URL) runs inside the request, for seconds on a slow host.
    stage = services.add_stage(tournament, by=organizer, name="Suizo", format="swiss")
    round_ = services.publish_round(services.generate_round(stage, by=organizer), by=organizer)
    return tournament, round_


def _scrolled_to(page, row) -> float:
    """Bring ``row`` to the middle of the phone's screen; the page's scroll then."""
    row.evaluate("el => el.scrollIntoView({block: 'center'})")
    page.wait_for_timeout(100)
    return page.evaluate("window.scrollY")


def _stays(page, before: float) -> None:
    after = page.evaluate("window.scrollY")
    assert before > 300, before  # far down the list, as an organizer at a long one is
    assert abs(after - before) < 60, (before, after)


@pytest.mark.parametrize("language", ["en", "es"])
def test_withdraw_asks_says_the_effect_and_the_page_stays_put(live_server, browser, language):
    words = WORDS[language]
    organizer = UserFactory(username="organizer", password=PASSWORD)
    tournament, round_ = _event(organizer, language)
    last = Match.objects.filter(round=round_).order_by("-table_number").first()
    seats = list(last.seats.order_by("position").select_related("entrant"))
    leaving, present = seats[0].entrant, seats[1].entrant
    context = browser.new_context(
        viewport=TABLE_PHONE,
        device_scale_factor=2,
        has_touch=True,
        locale="es-ES" if language == "es" else "en-US",
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    manage = f"/t/{tournament.slug}/manage/"
    log_in(page, live_server.url, "organizer", PASSWORD, manage)

    # Check-in and absent answer on the row, and the page does not move.
    row = page.locator(f"#entrant-{present.pk}")
    before = _scrolled_to(page, row)
    row.get_by_role("button", name=words["check_in"], exact=True).click()
    notice = page.locator(f"#entrant-{present.pk} .notice")
    notice.filter(has_text=words["checked"].format(name=present.name)).wait_for()
    assert Entrant.objects.get(pk=present.pk).checked_in
    _stays(page, before)
    row = page.locator(f"#entrant-{present.pk}")
    row.get_by_role("button", name=words["absent"]).click()
    notice.filter(has_text=words["marked"].format(name=present.name)).wait_for()
    assert not Entrant.objects.get(pk=present.pk).checked_in
    _stays(page, before)

    # Withdraw asks first and says what it does; cancelling changes nothing.
    row = page.locator(f"#entrant-{leaving.pk}")
    before = _scrolled_to(page, row)
    row.get_by_text(words["withdraw"]).click()
    panel = row.locator("details[open]")
    table = last.table_number
    panel.get_by_text(words["not_started"].format(table=table)).wait_for()
    panel.get_by_text(words["play_on"].format(table=table)).wait_for()
    assert panel.get_by_text(words["reseat"].format(table=table)).count() == 0  # nobody free
    fits(page)
    page.screenshot(path=f"test-output/e2e/withdraw-confirm-390-{language}.png")
    cancel = panel.get_by_role("button", name=words["cancel"])
    cancel.scroll_into_view_if_needed()
    before = page.evaluate("window.scrollY")
    cancel.click()
    assert row.locator("details[open]").count() == 0
    assert not Entrant.objects.get(pk=leaving.pk).withdrawn
    last.refresh_from_db()
    assert last.game.seats.count() == 4 and last.game.status == "scheduled"
    _stays(page, before)

    # Confirmed: the table plays on with three, nobody's game ended, the page stays.
    row.get_by_text(words["withdraw"]).click()
    sure = row.get_by_role("button", name=words["confirm"].format(name=leaving.name))
    sure.scroll_into_view_if_needed()
    before = page.evaluate("window.scrollY")
    sure.click()
    page.locator(f"#entrant-{leaving.pk} .notice").wait_for()
    assert (
        words["done"].format(name=leaving.name)
        in page.locator(f"#entrant-{leaving.pk} .notice").inner_text()
    )
    _stays(page, before)
    assert Entrant.objects.get(pk=leaving.pk).withdrawn
    last.refresh_from_db()
    assert last.game.status == "scheduled" and last.game.seats.count() == 3
    assert not last.game.forfeits
    page.screenshot(path=f"test-output/e2e/withdraw-done-390-{language}.png")
    context.close()


def test_withdraw_can_seat_the_bye_in_their_place(live_server, browser):
    organizer = UserFactory(username="organizer", password=PASSWORD)
    tournament = services.create_tournament(by=organizer, name="Parejas", ruleset_key="partners")
    services.register_entrants(tournament, by=organizer, text="Ana & Beto\nCruz & Dora\nEva & Fito")
    stage = services.add_stage(tournament, by=organizer, name="Liga", format="round_robin")
    round_ = services.publish_round(services.generate_round(stage, by=organizer), by=organizer)
    free = Match.objects.get(round=round_, bye=True).seats.get().entrant
    table = Match.objects.get(round=round_, bye=False)
    leaving = table.seats.order_by("position").first().entrant
    context = browser.new_context(viewport=TABLE_PHONE, device_scale_factor=2, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, live_server.url, "organizer", PASSWORD, f"/t/{tournament.slug}/manage/")
    row = page.locator(f"#entrant-{leaving.pk}")
    row.get_by_text("Withdraw…").click()
    # Partners is played by four only: no playing on one team short.
    assert row.locator("input[value=play_on]").count() == 0
    row.get_by_label("Someone free in this round takes the seat").check()
    row.get_by_label("Who takes the seat").select_option(label=free.name)
    row.get_by_role("button", name=f"Withdraw {leaving.name}").click()
    page.locator(
        f"#entrant-{leaving.pk} .notice", has_text=f"{free.name} takes their seat"
    ).wait_for()
    assert table.seats.order_by("position").first().entrant_id == free.pk
    table.game.refresh_from_db()
    assert table.game.status == "scheduled"
    context.close()

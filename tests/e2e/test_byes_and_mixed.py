"""The organizer's view of a round that does not divide, on a phone, in English and
Spanish: generate, see the tables and who sits out, publish, print the cards."""

import pytest

from tests.e2e.conftest import TABLE_PHONE, check_accessibility, fits, log_in, said
from tests.factories import UserFactory
from tournaments import services
from tournaments.models import Round

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"

WORDS = {
    "en": {
        "generate": "Generate the next round",
        "generated": "Round 1 generated as a draft with 3 tables.",
        "byes": "2 sit out with a bye.",
        "bye": "Sits out (bye)",
        "table": "Table 3 · 4 seats",
        "publish": "Publish round 1",
        "cards": "Print table cards",
        "sitting": "Sitting out this round (bye):",
        "mixed": "Round 1 generated as a draft with 2 tables.",
        "six": "· 6 seats",
        "five": "· 5 seats",
    },
    "es": {
        "generate": "Generar la siguiente ronda",
        "generated": "Ronda 1 generada como borrador con 3 mesas.",
        "byes": "2 descansan esta ronda.",
        "bye": "Descansa esta ronda",
        "table": "Mesa 3 · 4 puestos",
        "publish": "Publicar la ronda 1",
        "cards": "Imprimir las tarjetas de mesa",
        "sitting": "Descansan en esta ronda:",
        "mixed": "Ronda 1 generada como borrador con 2 mesas.",
        "six": "· 6 puestos",
        "five": "· 5 puestos",
    },
}


def event(organizer, slug, ruleset, count, table_size):
    tournament = services.create_tournament(
        by=organizer, name=slug.title(), ruleset_key=ruleset, slug=slug, table_size=table_size
    )
    services.register_entrants(
        tournament, by=organizer, text="\n".join(f"Jugador {i:02d}" for i in range(1, count + 1))
    )
    services.add_stage(tournament, by=organizer, name="Suizo", format="swiss")
    return tournament


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_round_with_byes_and_one_with_mixed_tables_on_a_phone(
    live_server, browser, shot, language
):
    words = WORDS[language]
    organizer = UserFactory(username="organizer", password=PASSWORD)
    dcs = event(organizer, "noche-dcs", "dcs", 14, 4)
    two_box = event(organizer, "dos-cajas", "two_box", 11, 5)
    context = browser.new_context(
        viewport=TABLE_PHONE, locale="es-ES" if language == "es" else "en-US"
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, live_server.url, "organizer", PASSWORD, f"/t/{dcs.slug}/manage/")

    # Fourteen DCS players at tables of four: three tables, two sit out.
    page.get_by_role("button", name=words["generate"]).click()
    said(page, words["generated"])
    said(page, words["byes"])
    round_ = Round.objects.get(stage__tournament=dcs, number=1)
    byes = list(round_.matches.filter(bye=True))
    assert len(byes) == 2
    for match in byes:
        card = page.locator(f"#bye-{match.pk}")
        card.wait_for()
        assert words["bye"] in card.inner_text()
        assert match.seats.get().entrant.name in card.inner_text()
    page.get_by_text(words["table"]).wait_for()
    assert page.locator("#table-4").count() == 0  # a bye takes no table number
    fits(page)
    check_accessibility(page)
    shot(page, f"byes-round-draft-390-{language}")
    page.get_by_role("button", name=words["publish"]).click()
    page.get_by_role("link", name=words["cards"]).first.wait_for()
    round_.refresh_from_db()
    assert round_.status == Round.Status.PUBLISHED
    page.goto(f"{live_server.url}/t/{dcs.slug}/rounds/1/cards/")
    assert page.locator(".table-card-print").count() == 3
    sitting = page.locator(".card-byes")
    assert words["sitting"] in sitting.inner_text()
    for match in byes:
        assert match.seats.get().entrant.name in sitting.inner_text()
    shot(page, f"byes-cards-390-{language}")

    # Eleven two-box players at tables of five: a table of five and one of six.
    page.goto(f"{live_server.url}/t/{two_box.slug}/manage/")
    page.get_by_role("button", name=words["generate"]).click()
    said(page, words["mixed"])
    page.get_by_text(words["six"]).wait_for()
    page.get_by_text(words["five"]).wait_for()
    fits(page)
    check_accessibility(page)
    shot(page, f"mixed-round-draft-390-{language}")
    context.close()
